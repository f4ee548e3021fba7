#include "config/duration.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace fabricmon {
namespace {

struct GoodCase {
  const char* text;
  std::int64_t millis;
};

TEST(ParseDuration, AcceptsEveryUnitAndCombination) {
  const GoodCase cases[] = {
      {"250ms", 250},
      {"1s", 1'000},
      {"2m", 120'000},
      {"1h", 3'600'000},
      {"1m30s", 90'000},
      {"1h30m", 5'400'000},
      {"1s500ms", 1'500},
      {"1h2m3s4ms", 3'723'004},
      {"0", 0},
      {"0s", 0},
      {"0ms", 0},
      {"10ms", 10},
      {"90s", 90'000},
      {"007s", 7'000},
      {"1000ms", 1'000},
      {"2562047788015h12m", 9'223'372'036'854'720'000},
      // The largest whole number of milliseconds a Duration holds.
      {"9223372036854775807ms", std::numeric_limits<std::int64_t>::max()},
  };
  for (const auto& c : cases) {
    auto d = parseDuration(c.text);
    ASSERT_TRUE(d.ok()) << c.text << ": " << d.error().message;
    EXPECT_EQ(d->count(), c.millis) << c.text;
  }
}

struct BadCase {
  const char* text;
  const char* reason;  // a fragment of the error message
};

TEST(ParseDuration, RejectsWithAReason) {
  const BadCase cases[] = {
      {"", "empty"},
      {"-1s", "negative"},
      {"+1s", "sign"},
      {"5", "missing unit"},
      {"10", "missing unit"},
      {"1d", "unknown unit \"d\""},
      {"5us", "unknown unit \"us\""},
      {"5µs", "unknown unit"},
      {"1min", "unknown unit \"min\""},
      {"1S", "unknown unit \"S\""},
      {"1.5s", "fractions"},
      {"s", "expected a number"},
      {" 1s", "expected a number"},
      {"1s ", "expected a number"},
      {"1 s", "unexpected"},
      {"30s1m", "largest first"},
      {"1s1s", "largest first"},
      {"1m30", "missing unit"},
      {"9223372036854775808ms", "too large"},
      {"99999999999999999999", "too large"},
      {"2562047788016h", "too large"},     // the multiplication overflows
      {"2562047788015h13m", "too large"},  // the sum overflows
  };
  for (const auto& c : cases) {
    auto d = parseDuration(c.text);
    ASSERT_FALSE(d.ok()) << "accepted \"" << c.text << "\" as " << d->count() << "ms";
    EXPECT_NE(d.error().message.find(c.reason), std::string::npos)
        << c.text << " -> " << d.error().message;
  }
}

TEST(FormatDuration, IsCanonical) {
  const GoodCase cases[] = {
      {"0s", 0},           {"250ms", 250},      {"1s", 1'000},
      {"1s500ms", 1'500},  {"1m30s", 90'000},   {"10m", 600'000},
      {"1h", 3'600'000},   {"25h", 90'000'000}, {"1h2m3s4ms", 3'723'004},
      {"-1m30s", -90'000},
  };
  for (const auto& c : cases) EXPECT_EQ(formatDuration(Duration{c.millis}), c.text);
}

TEST(FormatDuration, RoundTripsThroughParse) {
  const std::int64_t values[] = {1,          999,         1'000,
                                 59'999,     60'001,      3'599'999,
                                 86'400'000, 123'456'789, std::numeric_limits<std::int64_t>::max()};
  for (std::int64_t v : values) {
    auto back = parseDuration(formatDuration(Duration{v}));
    ASSERT_TRUE(back.ok()) << formatDuration(Duration{v});
    EXPECT_EQ(back->count(), v);
  }
  // The most negative value has no positive counterpart; it must still format without overflow.
  EXPECT_EQ(formatDuration(Duration{std::numeric_limits<std::int64_t>::min()}).front(), '-');
}

}  // namespace
}  // namespace fabricmon
