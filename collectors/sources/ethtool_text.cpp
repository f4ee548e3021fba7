#include "collectors/sources/ethtool_text.hpp"

#include <cerrno>
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

}  // namespace

Result<EthtoolStats> parseEthtoolText(std::string_view text) {
  if (trim(text).empty()) return Error{"empty ethtool stats", ENODATA};

  EthtoolStats out;
  std::unordered_set<std::string_view> seen;
  bool header = false;
  size_t lineNo = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view raw = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++lineNo;

    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (!header) {
      if (line == kHeader) {
        header = true;
      } else {
        out.issues.push_back(issue(lineNo, "text before \"NIC statistics:\"", line));
      }
      continue;
    }
    const auto colon = line.rfind(':');
    if (colon == std::string_view::npos) {
      out.issues.push_back(issue(lineNo, "not \"name: value\"", line));
      continue;
    }
    const std::string_view name = trim(line.substr(0, colon));
    if (name.empty()) {
      out.issues.push_back(issue(lineNo, "stat without a name", line));
      continue;
    }
    auto value = parseCounter(line.substr(colon + 1));
    if (!value) {
      out.issues.push_back(issue(lineNo, value.error().message, line));
      continue;
    }
    if (!seen.insert(name).second) {
      out.issues.push_back(issue(lineNo, "repeated stat name", line));
      continue;
    }
    out.stats.emplace_back(std::string(name), *value);
  }

  if (!header) return Error{"no \"NIC statistics:\" line", EINVAL};
  if (out.stats.empty()) {
    std::string msg = "no statistics after \"NIC statistics:\"";
    if (!out.issues.empty()) msg += " (" + out.issues.front() + ")";
    return Error{std::move(msg), EINVAL};
  }
  return out;
}

}  // namespace fabricmon
