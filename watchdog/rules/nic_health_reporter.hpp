#pragma once
// nic_health_reporter: its settings (defaults and config keys,
// `watchdog.rules.nic_health_reporter`) and its RuleDef. docs/rules.md gives the source of every
// default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct NicHealthReporterRule {
  bool enabled = true;
  /// Consecutive readings of a reporter in its error state before the critical finding starts: an
  /// auto-recovering reporter leaves the error state within its grace period's recovery (mlx5's
  /// tx/rx recover in milliseconds), so two readings in a row are a recovery that did not happen.
  unsigned forReadings = 2;
  /// The warning that a reporter's error count rose stays until no new error for this long.
  Duration clearAfter = 15min;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.count("for_readings", forReadings, 1, kMaxConfigCount);
    b.duration("clear_after", clearAfter);
  }

  bool operator==(const NicHealthReporterRule&) const = default;
};

namespace watchdog {
extern const RuleDef kNicHealthReporterRule;
}  // namespace watchdog

}  // namespace fabricmon
