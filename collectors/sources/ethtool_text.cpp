#include "collectors/sources/ethtool_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_set>

#include "collectors/sources/parse.hpp"

namespace fabricmon {

namespace {

constexpr std::string_view kHeader = "NIC statistics:";

std::string issue(size_t lineNo, std::string_view why, std::string_view line) {
  std::string s = "line " + std::to_string(lineNo) + ": " + std::string(why) + ": \"";
  s += line.substr(0, 60);
  s += '"';
  return s;
}

// The whitespace trim() (parse.hpp) removes; inlined here because the loop below runs once per
// line of a 665-line file on every poll.
constexpr bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

[[gnu::always_inline]] inline std::string_view trimFast(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && isSpace(s[b])) ++b;
  while (e > b && isSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

constexpr bool isDigit(char c) {
  return static_cast<unsigned>(static_cast<unsigned char>(c) - '0') < 10u;
}

// The common line, "<name>: <digits>" (already trimmed), taken apart from its end: digits,
// blanks, ':', the name's trailing blanks. At most 19 digits, which always fit in 64 bits.
// Anything else returns false and the general code decides, so values, names and issue messages
// are those of the general code.
bool fastStat(std::string_view line, std::string_view& name, uint64_t& value) {
  const char* const b = line.data();
  const char* const e = b + line.size();
  const char* d = e;
  while (d > b && isDigit(d[-1])) --d;
  if (d == e || e - d > 19) return false;
  const char* c = d;
  while (c > b && isSpace(c[-1])) --c;
  if (c == b || c[-1] != ':') return false;
  --c;
  while (c > b && isSpace(c[-1])) --c;
  if (c == b) return false;
  uint64_t v = 0;
  for (const char* q = d; q < e; ++q) v = v * 10 + static_cast<unsigned>(*q - '0');
  name = std::string_view(b, static_cast<size_t>(c - b));
  value = v;
  return true;
}

// std::string == std::string_view compares the common prefix before the lengths and calls
// memcmp; this runs once per line per poll, mostly on equal names of 10-30 bytes.
bool sameName(const std::string& a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t u, v;
    std::memcpy(&u, x + i, 8);
    std::memcpy(&v, y + i, 8);
    if (u != v) return false;
  }
  for (; i < n; ++i) {
    if (x[i] != y[i]) return false;
  }
  return true;
}

size_t countLines(std::string_view s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')) + 1;
}

}  // namespace

Status parseEthtoolTextInto(std::string_view text, EthtoolStats& out) {
  out.issues.clear();
  out.namesUnchanged = false;
  if (trimFast(text).empty()) {
    out = EthtoolStats{};
    return Error{"empty ethtool stats", ENODATA};
  }

  // The previous list is shared (interned) and never written: while the names match it, only
  // values are written. At the first difference a new list is built (the matching prefix copied),
  // checked for repeats and interned at the end.
  const EthtoolNamesPtr previous = out.names;
  const size_t before = previous ? previous->size() : 0;
  auto& values = out.values;
  values.resize(before);
  size_t n = 0;  // stats accepted so far, values[0, n)
  // Built at the first name that differs from the previous result. `seen` holds views into
  // `text` and into fresh[0, n), which stay put: `fresh` is reserved for every remaining line so
  // it does not reallocate (a moved short string would move its characters).
  EthtoolNames fresh;
  std::unordered_set<std::string_view> seen;
  bool changed = false;
  bool header = false;
  size_t lineNo = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* lineEnd = nl != nullptr ? nl : end;
    const std::string_view line = trimFast(std::string_view(p, static_cast<size_t>(lineEnd - p)));
    p = nl != nullptr ? nl + 1 : end;
    ++lineNo;

    if (line.empty()) continue;
    if (!header) {
      if (line == kHeader) {
        header = true;
      } else {
        out.issues.push_back(issue(lineNo, "text before \"NIC statistics:\"", line));
      }
      continue;
    }
    std::string_view name;
    uint64_t value = 0;
    if (!fastStat(line, name, value)) {
      const auto colon = line.rfind(':');
      if (colon == std::string_view::npos) {
        out.issues.push_back(issue(lineNo, "not \"name: value\"", line));
        continue;
      }
      name = trimFast(line.substr(0, colon));
      if (name.empty()) {
        out.issues.push_back(issue(lineNo, "stat without a name", line));
        continue;
      }
      auto parsed = parseCounter(line.substr(colon + 1));
      if (!parsed) {
        out.issues.push_back(issue(lineNo, parsed.error().message, line));
        continue;
      }
      value = *parsed;
    }

    if (!changed) {
      if (n < before && sameName((*previous)[n], name)) {
        values[n] = value;
        ++n;
        continue;
      }
      changed = true;
      fresh.reserve(n + countLines(std::string_view(p, static_cast<size_t>(end - p))) + 1);
      if (previous) fresh.assign(previous->begin(), previous->begin() + static_cast<std::ptrdiff_t>(n));
      seen.reserve(fresh.capacity());
      for (size_t i = 0; i < n; ++i) seen.insert(fresh[i]);
    }
    if (!seen.insert(name).second) {
      out.issues.push_back(issue(lineNo, "repeated stat name", line));
      continue;
    }
    fresh.emplace_back(name);
    if (n < values.size()) {
      values[n] = value;
    } else {
      values.push_back(value);
    }
    ++n;
  }

  if (!header) {
    out = EthtoolStats{};
    return Error{"no \"NIC statistics:\" line", EINVAL};
  }
  if (n == 0) {
    std::string msg = "no statistics after \"NIC statistics:\"";
    if (!out.issues.empty()) msg += " (" + out.issues.front() + ")";
    out = EthtoolStats{};
    return Error{std::move(msg), EINVAL};
  }
  values.resize(n);
  if (changed) {
    out.names = internEthtoolNames(std::move(fresh));
  } else if (n != before) {
    // The previous list, cut short at its end.
    out.names = internEthtoolNames(EthtoolNames(previous->begin(),
                                                previous->begin() + static_cast<std::ptrdiff_t>(n)));
  }
  out.namesUnchanged = !changed && n == before;
  return {};
}

Result<EthtoolStats> parseEthtoolText(std::string_view text) {
  EthtoolStats out;
  if (auto st = parseEthtoolTextInto(text, out); !st) return st.error();
  return out;
}

}  // namespace fabricmon
