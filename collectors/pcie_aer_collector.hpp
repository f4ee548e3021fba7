#pragma once
// The pcie_aer collector: the PCIe Advanced Error Reporting counters of each RDMA device's PCI
// function and of every port above it up to the root port (docs/metrics.md, "PCIe AER errors").
// The files and their format: Documentation/ABI/testing/sysfs-bus-pci-devices-aer-stats and
// aer_stats_dev_attr() in drivers/pci/pcie/aer.c ("%s %llu\n" per error type, then "TOTAL_%s
// %llu\n").

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

#include "collectors/collector.hpp"
#include "model/result.hpp"

namespace fabricmon {

enum class AerSeverity { kCorrectable, kNonFatal, kFatal };

/// The value of the `severity` label ("correctable", "nonfatal", "fatal") and the file it is read
/// from.
std::string_view aerSeverityName(AerSeverity severity);
std::string_view aerFileName(AerSeverity severity);

/// One line of an aer_dev_* file: the `error` label it is exported under and its count.
struct AerEntry {
  std::string_view error;  ///< into the parsed text, or a static name ("total", "bit_3")
  uint64_t value = 0;
};

struct AerStats {
  /// The kernel prints at most one line per bit of a 32-bit status register, plus the total.
  static constexpr size_t kMaxEntries = 40;
  std::array<AerEntry, kMaxEntries> entries{};
  size_t count = 0;
  /// Lines whose name is neither [A-Za-z0-9_]+ (at most 64 characters) nor the kernel's
  /// "<array>_bit[N]": not exported, reported as a per-file error.
  size_t rejectedNames = 0;
};

/// Parses the text of one aer_dev_* file. The file's own TOTAL_ERR_* line becomes error="total";
/// the kernel's "dev_cor_errs_bit[N]" lines (a set bit it has no name for) become "bit_N". An
/// empty file, a line without a value, a value that is not an unsigned decimal or lies beyond 2^53
/// (the 2022 out-of-bounds bug printed junk there: "PCI/AER: Iterate over error counters instead of
/// error strings"), a repeated name or more than kMaxEntries lines is an error for the whole file.
Result<AerStats> parseAerStats(std::string_view text, AerSeverity severity);

}  // namespace fabricmon
