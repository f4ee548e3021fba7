#include "collectors/sources/parse.hpp"

#include <charconv>
#include <cmath>
#include <span>
#include <string>

namespace fabricmon {

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

namespace {

Error parseError(std::string_view what, std::string_view text) {
  std::string shown(text.substr(0, 40));
  return Error{std::string(what) + ": \"" + shown + "\"", EINVAL};
}

}  // namespace

Result<uint64_t> parseCounter(std::string_view text) {
  const std::string_view t = trim(text);
  if (t.empty()) return Error{"empty value", ENODATA};
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value, 10);
  if (ec == std::errc::result_out_of_range) return parseError("counter beyond 64 bits", t);
  if (ec != std::errc() || ptr != t.data() + t.size()) return parseError("not a counter", t);
  return value;
}

Result<uint64_t> parseEnumNumber(std::string_view text) {
  const std::string_view t = trim(text);
  const auto colon = t.find(':');
  if (colon == std::string_view::npos) return parseCounter(t);
  return parseCounter(t.substr(0, colon));
}

Result<double> parseRateBytesPerSecond(std::string_view text) {
  const std::string_view t = trim(text);
  const auto space = t.find(' ');
  if (space == std::string_view::npos) return parseError("not a rate", t);
  std::string_view unit = t.substr(space + 1);
  // Unit, then nothing or a parenthesised width/speed: "Gb/sec", "Gb/sec (4X NDR)".
  constexpr std::string_view kUnit = "Gb/sec";
  if (!unit.starts_with(kUnit)) return parseError("unknown rate unit (the kernel prints Gb/sec)", t);
  unit.remove_prefix(kUnit.size());
  if (!unit.empty() && !(unit.size() >= 3 && unit.front() == ' ' && unit[1] == '(' && unit.back() == ')')) {
    return parseError("not a rate", t);
  }
  const std::string_view number = t.substr(0, space);
  // Digits and at most one '.': from_chars alone would take "nan", "inf" and "1e300".
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string_view::npos) {
    return parseError("not a rate", t);
  }
  double gbits = 0;
  const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), gbits,
                                         std::chars_format::fixed);
  if (ec != std::errc() || ptr != number.data() + number.size()) return parseError("not a rate", t);
  if (!std::isfinite(gbits) || gbits <= 0 || gbits > kMaxRateGbps) {
    return parseError("rate out of range", t);
  }
  return gbits * 1e9 / 8;
}

namespace {

// "N" or "N: NAME" with N an index of `names`. The number is the value; the name is not compared,
// because captures in circulation (prometheus/procfs fixtures) pair phys_state 4 with "ACTIVE".
Result<uint64_t> parseNamedEnum(std::string_view text, std::span<const std::string_view> names,
                                std::string_view what) {
  const std::string_view t = trim(text);
  const auto colon = t.find(':');
  auto number = parseCounter(colon == std::string_view::npos ? t : t.substr(0, colon));
  if (!number || *number >= names.size()) return parseError(std::string("not a known ") + std::string(what), t);
  return *number;
}

// drivers/infiniband/core/sysfs.c: state_show() names and phys_state_to_str().
constexpr std::string_view kPortStates[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
constexpr std::string_view kPhysStates[] = {"<unknown>", "Sleep", "Polling", "Disabled",
                                            "PortConfigurationTraining", "LinkUp",
                                            "LinkErrorRecovery", "Phy Test"};
// net/core/net-sysfs.c operstates[] (RFC 2863 ifOperStatus).
constexpr std::string_view kOperstates[] = {"unknown", "notpresent", "down", "lowerlayerdown",
                                            "testing", "dormant", "up"};

}  // namespace

Result<uint64_t> parsePortState(std::string_view text) {
  return parseNamedEnum(text, kPortStates, "port state");
}

Result<uint64_t> parsePhysState(std::string_view text) {
  return parseNamedEnum(text, kPhysStates, "physical port state");
}

Result<double> parseOperstateUp(std::string_view text) {
  const std::string_view t = trim(text);
  for (std::string_view name : kOperstates) {
    if (t == name) return name == "up" ? 1.0 : 0.0;
  }
  return parseError("not a known operstate", t);
}

Result<double> parseNetdevFlagsUp(std::string_view text) {
  // net/core/net-sysfs.c: NETDEVICE_SHOW_RW(flags, fmt_hex), "%#x" of an unsigned int.
  const std::string_view t = trim(text);
  if (t == "0") return 0.0;  // "%#x" prints zero without the prefix
  if (t.size() < 3 || t.size() > 10 || t.substr(0, 2) != "0x") return parseError("not interface flags", t);
  uint32_t flags = 0;
  const auto [end, ec] = std::from_chars(t.data() + 2, t.data() + t.size(), flags, 16);
  if (ec != std::errc() || end != t.data() + t.size()) return parseError("not interface flags", t);
  constexpr uint32_t kIffUp = 0x1;
  return (flags & kIffUp) != 0 ? 1.0 : 0.0;
}

Result<double> parseSwitch(std::string_view text) {
  const std::string_view t = trim(text);
  if (t == "0") return 0.0;
  if (t == "1") return 1.0;
  return parseError("not a 0/1 switch", t);
}

}  // namespace fabricmon
