#pragma once
// nic_unresponsive: its settings (defaults and config keys, `watchdog.rules.nic_unresponsive`) and
// its RuleDef. docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct NicUnresponsiveRule {
  bool enabled = true;
  /// A read of the NIC's kernel interface that has waited this long fires. A firmware command
  /// answers in microseconds to milliseconds; the drivers give up on one after 60 s (mlx5) or
  /// their own timeout, and only then log it.
  Duration waitLimit = 10s;
  /// A finding clears once no read waited past the limit for this long: a NIC that answers one
  /// command between two hangs is not well.
  Duration clearAfter = 5min;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    // Reads are reported once they waited kReadWaitReported (1 s): a lower limit could not act.
    b.durationBetween("wait_limit", waitLimit, std::chrono::seconds(1), Duration::max(), false);
    // The pipeline keeps a returned read's series an hour (daemon/read_waits.hpp, kHold).
    b.durationBetween("clear_after", clearAfter, std::chrono::seconds(1), std::chrono::hours(1), false);
  }

  bool operator==(const NicUnresponsiveRule&) const = default;
};

namespace watchdog {
extern const RuleDef kNicUnresponsiveRule;
}  // namespace watchdog

}  // namespace fabricmon
