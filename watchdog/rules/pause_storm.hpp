#pragma once
// pause_storm: its settings (defaults and config keys, `watchdog.rules.pause_storm`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {


struct PauseStormRule {
  bool enabled = true;
  double pauseFraction = 0.99;       ///< SONiC PFC watchdog: paused >99 % of the interval
  unsigned forSamples = 2;           ///< consecutive polls before it fires
  Duration restoration = 2s;         ///< pause must stay below the threshold this long to clear
  double sustainedFraction = 0.10;   ///< reason=sustained_pause: 5-minute pause fraction above this
  Duration sustainedWindow = 5min;
  double clearFraction = 0.01;       ///< pause counts as stopped below this fraction (restoration)
  Duration eventHold = 60s;          ///< NIC storm-event findings stay active this long after the last event

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.number("pause_fraction", pauseFraction, kFraction);
    b.count("for_samples", forSamples, 1, kMaxConfigCount);
    b.duration("restoration", restoration);
    b.number("sustained_fraction", sustainedFraction, kFraction);
    b.window("sustained_window", sustainedWindow);
    b.number("clear_fraction", clearFraction, kFraction);
    b.duration("event_hold", eventHold);
  }

  bool operator==(const PauseStormRule&) const = default;
};

namespace watchdog {
extern const RuleDef kPauseStormRule;
}  // namespace watchdog

}  // namespace fabricmon
