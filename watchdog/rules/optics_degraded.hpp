#pragma once
// optics_degraded: its settings (defaults and config keys, `watchdog.rules.optics_degraded`) and
// its RuleDef. docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/day_baseline.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct OpticsDegradedRule {
  bool enabled = true;
  /// Rx/Tx power fires at or below the module's low warning threshold raised by this many dB
  /// (0 = the threshold itself).
  double powerMarginDb = 0.0;
  /// A power finding clears once every lane is this many dB above where it fires.
  double clearHysteresisDb = 0.5;
  /// Consecutive transceiver readings beyond a warning threshold before a value finding starts.
  unsigned forReadings = 2;
  /// The conditions stay away this long before a finding clears.
  Duration clearAfter = 5min;
  /// "rx_power_sinking" / "tx_power_sinking": a lane's power at least this many dB below its own
  /// baseline, whether or not it is still above the module's thresholds.
  double sinkDb = 3.0;
  /// The baseline: the median power of the 24 equal parts of this window before the current part.
  Duration baselineWindow = 24h;
  /// Parts of the baseline window that must hold a reading before the baseline is judged (half a
  /// day). At most the 24 parts before the current one (DayBaseline::kParts).
  unsigned baselineMinParts = 12;
  /// How long a lane's baseline stands still once the lane sank sink_db below it, so the sunk light
  /// is not learned as the lane's normal (0: learned as any reading, the finding then clears once
  /// the median follows, about half a day later). After it the new level is learned.
  Duration baselineHold = 168h;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.number("power_margin_db", powerMarginDb, kNonNegative);
    b.number("clear_hysteresis_db", clearHysteresisDb, kNonNegative);
    b.count("for_readings", forReadings, 1, kMaxConfigCount);
    b.duration("clear_after", clearAfter);
    b.number("sink_db", sinkDb, kPositive);
    // Its parts are filled by the transceiver collector's readings (every 60 s by default).
    b.partedWindow("baseline_window", baselineWindow, watchdog::DayBaseline::kParts, "transceiver");
    b.count("baseline_min_parts", baselineMinParts, 1, watchdog::DayBaseline::kParts);
    b.durationBetween("baseline_hold", baselineHold, std::chrono::seconds(1), Duration::max(), true);  // 0: none
  }

  bool operator==(const OpticsDegradedRule&) const = default;
};

namespace watchdog {
extern const RuleDef kOpticsDegradedRule;
}  // namespace watchdog

}  // namespace fabricmon
