#include "config/key_suggestion.hpp"

#include <gtest/gtest.h>

#include <array>

namespace fabricmon {
namespace {

constexpr std::array<std::string_view, 6> kKeys{
    "interval",    "slow_interval", "discovery_interval",
    "stale_after", "log",           "local_ack_timeout_critical_per_second"};

TEST(ClosestKey, SuggestsNearMissesOnly) {
  struct Case {
    const char* typed;
    const char* suggestion;  // nullptr = no suggestion
  } const cases[] = {
      {"intervall", "interval"},
      {"interal", "interval"},
      {"slowInterval", "slow_interval"},
      {"slow-interval", "slow_interval"},
      {"Stale_After", "stale_after"},
      {"staleafter", "stale_after"},
      {"localAckTimeoutCriticalPerSecond", "local_ack_timeout_critical_per_second"},
      {"lg", "log"},
      {"qos", nullptr},  // two edits from "log": a different word, not a typo
      {"stale", nullptr},
      {"timeout", nullptr},
      {"", nullptr},
  };
  for (const auto& c : cases) {
    auto s = closestKey(c.typed, kKeys);
    if (c.suggestion == nullptr) {
      EXPECT_FALSE(s.has_value()) << c.typed << " -> " << *s;
    } else {
      ASSERT_TRUE(s.has_value()) << c.typed;
      EXPECT_EQ(*s, c.suggestion) << c.typed;
    }
  }
}

}  // namespace
}  // namespace fabricmon
