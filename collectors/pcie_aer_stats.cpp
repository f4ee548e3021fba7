// The parser of the aer_dev_* files, apart from the collector so it can be fuzzed without a sysfs
// tree (tests/fuzz/pcie_aer_fuzz.cpp).
#include <algorithm>
#include <optional>
#include <string>

#include "collectors/pcie_aer_collector.hpp"
#include "collectors/sources/parse.hpp"

namespace fabricmon {

std::string_view aerSeverityName(AerSeverity severity) {
  switch (severity) {
    case AerSeverity::kCorrectable:
      return "correctable";
    case AerSeverity::kNonFatal:
      return "nonfatal";
    case AerSeverity::kFatal:
      return "fatal";
  }
  return "";
}

std::string_view aerFileName(AerSeverity severity) {
  switch (severity) {
    case AerSeverity::kCorrectable:
      return "aer_dev_correctable";
    case AerSeverity::kNonFatal:
      return "aer_dev_nonfatal";
    case AerSeverity::kFatal:
      return "aer_dev_fatal";
  }
  return "";
}

namespace {

// aer_stats_dev_attr() in drivers/pci/pcie/aer.c: "TOTAL_%s" with ERR_COR, ERR_NONFATAL, ERR_FATAL.
std::string_view totalLine(AerSeverity severity) {
  switch (severity) {
    case AerSeverity::kCorrectable:
      return "TOTAL_ERR_COR";
    case AerSeverity::kNonFatal:
      return "TOTAL_ERR_NONFATAL";
    case AerSeverity::kFatal:
      return "TOTAL_ERR_FATAL";
  }
  return "";
}

constexpr size_t kMaxNameLength = 64;
// A u64 in the file, a double in the sample: beyond 2^53 the value would not even be exact, and
// no device logs that many errors; such a number is junk (see parseAerStats).
constexpr uint64_t kMaxExact = uint64_t{1} << 53;
// The status registers are 32 bits wide (PCIe Base Specification, AER Correctable/Uncorrectable
// Error Status registers): the kernel's "_bit[N]" lines have N < 32.
constexpr unsigned kStatusBits = 32;

bool plainName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

/// "dev_cor_errs_bit[3]" -> 3: the line aer_stats_dev_attr() prints for a set bit with no name.
std::optional<unsigned> unnamedBit(std::string_view name) {
  const auto open = name.rfind("_bit[");
  if (open == std::string_view::npos || open == 0 || !name.ends_with(']')) return std::nullopt;
  if (!plainName(name.substr(0, open))) return std::nullopt;
  const std::string_view digits = name.substr(open + 5, name.size() - open - 6);
  if (digits.empty() || digits.size() > 2) return std::nullopt;
  unsigned bit = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    bit = bit * 10 + unsigned(c - '0');
  }
  if (bit >= kStatusBits) return std::nullopt;
  return bit;
}

const std::array<std::string, kStatusBits>& bitNames() {
  static const auto* const names = [] {
    auto* a = new std::array<std::string, kStatusBits>;
    for (unsigned i = 0; i < kStatusBits; ++i) (*a)[i] = "bit_" + std::to_string(i);
    return a;
  }();
  return *names;
}

/// A piece of hostile text fit for a log line: at most 40 characters, non-printables as '?'.
std::string shown(std::string_view text) {
  std::string out(text.substr(0, 40));
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return out;
}

}  // namespace

Result<AerStats> parseAerStats(std::string_view text, AerSeverity severity) {
  if (text.empty()) return Error{"empty file", ENODATA};
  AerStats stats;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t eol = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    if (line.empty()) continue;  // the kernel ends the file with a newline; tolerate blank lines
    const size_t space = line.rfind(' ');
    if (space == std::string_view::npos)
      return Error{"line without a count: \"" + shown(line) + "\"", EINVAL};
    const std::string_view name = line.substr(0, space);
    const std::string_view count = line.substr(space + 1);
    // Exactly "%llu": no sign, no surrounding whitespace (a "\r" is not the kernel's).
    auto value = parseCounter(count);
    if (!value || count.empty() || count != trim(count)) {
      return Error{"bad count in \"" + shown(line) + "\"", EINVAL};
    }
    if (*value > kMaxExact) return Error{"count beyond 2^53 in \"" + shown(line) + "\"", ERANGE};
    std::string_view error;
    if (name == totalLine(severity)) {
      error = "total";
    } else if (plainName(name)) {
      error = name;
    } else if (auto bit = unnamedBit(name)) {
      error = bitNames()[*bit];
    } else {
      ++stats.rejectedNames;
      continue;
    }
    for (size_t i = 0; i < stats.count; ++i) {
      if (stats.entries[i].error == error)
        return Error{"repeated name \"" + shown(error) + "\"", EINVAL};
    }
    if (stats.count == AerStats::kMaxEntries)
      return Error{"more lines than the kernel prints", E2BIG};
    stats.entries[stats.count++] = AerEntry{error, *value};
  }
  if (stats.count == 0 && stats.rejectedNames == 0) return Error{"no counts", ENODATA};
  return stats;
}

}  // namespace fabricmon
