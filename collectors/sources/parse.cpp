#include "collectors/sources/parse.hpp"

#include <charconv>
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
  const std::string_view unit = t.substr(space + 1);
  double gbits = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + space, gbits);
  if (ec != std::errc() || ptr != t.data() + space || gbits < 0) return parseError("not a rate", t);
  if (unit.substr(0, 6) == "Gb/sec") return gbits * 1e9 / 8;
  if (unit.substr(0, 6) == "Mb/sec") return gbits * 1e6 / 8;
  return parseError("unknown rate unit", t);
}

}  // namespace fabricmon
