#pragma once
// nic_overheating: its settings (defaults and config keys, `watchdog.rules.nic_overheating`) and
// its RuleDef. docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct NicOverheatingRule {
  bool enabled = true;
  /// A sensor whose driver shows no warning limit of its own (`max`; mlx5 shows only `crit`) warns
  /// this many degrees below its `crit`.
  double warningMarginCelsius = 10;
  /// Consecutive readings at or above a limit before a finding starts (3 at poll.slow_interval's
  /// 10 s: half a minute).
  unsigned forReadings = 3;
  /// A finding clears once every sensor of the NIC is this many degrees below where it fired ...
  double clearHysteresisCelsius = 3;
  /// ... and stayed there this long.
  Duration clearAfter = 5min;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.number("warning_margin_celsius", warningMarginCelsius, kNonNegative);
    b.count("for_readings", forReadings, 1, kMaxConfigCount);
    b.number("clear_hysteresis_celsius", clearHysteresisCelsius, kNonNegative);
    b.duration("clear_after", clearAfter);
  }

  bool operator==(const NicOverheatingRule&) const = default;
};

namespace watchdog {
extern const RuleDef kNicOverheatingRule;
}  // namespace watchdog

}  // namespace fabricmon
