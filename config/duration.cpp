#include "config/duration.hpp"

#include <array>
#include <cstdint>

namespace fabricmon {
namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t millis;
};

// Largest first: the order a duration must be written in, and the order formatDuration emits.
constexpr std::array<Unit, 4> kUnits{{{"h", 3'600'000}, {"m", 60'000}, {"s", 1'000}, {"ms", 1}}};

bool isDigit(char c) { return c >= '0' && c <= '9'; }
// Letters plus the UTF-8 bytes of "µ", so that `5µs` is reported as an unknown unit, not as junk.
bool isUnitChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\xc2' || c == '\xb5';
}

Error durationError(std::string_view text, std::string_view why) {
  std::string message = "invalid duration \"";
  message.append(text);
  message += "\": ";
  message.append(why);
  return Error{std::move(message)};
}

}  // namespace

Result<Duration> parseDuration(std::string_view text) {
  if (text.empty()) return durationError(text, "empty (write e.g. 1s, 250ms, 1m30s)");
  if (text == "0") return Duration{0};
  if (text.front() == '-') return durationError(text, "negative durations are not allowed");
  if (text.front() == '+') return durationError(text, "no sign allowed");

  std::int64_t total = 0;
  std::size_t nextUnit = 0;  // index into kUnits: a unit may only follow larger ones
  std::size_t i = 0;
  while (i < text.size()) {
    if (!isDigit(text[i])) {
      return durationError(text, "expected a number at \"" + std::string(text.substr(i)) + "\"");
    }
    std::int64_t number = 0;
    while (i < text.size() && isDigit(text[i])) {
      if (__builtin_mul_overflow(number, 10, &number) ||
          __builtin_add_overflow(number, text[i] - '0', &number)) {
        return durationError(text, "too large");
      }
      ++i;
    }
    if (i < text.size() && (text[i] == '.' || text[i] == ',')) {
      return durationError(text, "fractions are not supported (write 1500ms, not 1.5s)");
    }
    const std::size_t unitStart = i;
    while (i < text.size() && isUnitChar(text[i])) ++i;
    const std::string_view suffix = text.substr(unitStart, i - unitStart);
    if (suffix.empty()) {
      if (i == text.size()) return durationError(text, "missing unit (h, m, s or ms)");
      return durationError(text, "unexpected \"" + std::string(text.substr(i)) + "\"");
    }
    std::size_t u = 0;
    while (u < kUnits.size() && kUnits[u].suffix != suffix) ++u;
    if (u == kUnits.size()) {
      return durationError(text,
                           "unknown unit \"" + std::string(suffix) + "\" (use h, m, s or ms)");
    }
    if (u < nextUnit) {
      return durationError(text,
                           "units must appear once each, largest first (e.g. 1h30m, 1s500ms)");
    }
    nextUnit = u + 1;
    std::int64_t millis = 0;
    if (__builtin_mul_overflow(number, kUnits[u].millis, &millis) ||
        __builtin_add_overflow(total, millis, &total)) {
      return durationError(text, "too large");
    }
  }
  return Duration{total};
}

std::string formatDuration(Duration d) {
  std::int64_t ms = d.count();
  if (ms == 0) return "0s";
  std::string out;
  // Work on the negative side: -INT64_MIN does not exist, INT64_MIN's parts all do.
  if (ms > 0)
    ms = -ms;
  else
    out += '-';
  for (const Unit& unit : kUnits) {
    const std::int64_t part = ms / unit.millis;  // <= 0
    if (part != 0) {
      out += std::to_string(-part);  // only the largest part can be large, and it is > INT64_MIN
      out.append(unit.suffix);
      ms -= part * unit.millis;
    }
  }
  return out;
}

}  // namespace fabricmon
