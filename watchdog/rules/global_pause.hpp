#pragma once
// global_pause: its settings (defaults and config keys, `watchdog.rules.global_pause`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct GlobalPauseRule {
  bool enabled = true;
  Duration window = 60s;   ///< pause frames within this window; quiet this long clears it
  unsigned minFrames = 1;  ///< frames in the window that make a finding

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.window("window", window);
    b.count("min_frames", minFrames, 1, kMaxConfigCount);
  }

  bool operator==(const GlobalPauseRule&) const = default;
};

namespace watchdog {
extern const RuleDef kGlobalPauseRule;
}  // namespace watchdog

}  // namespace fabricmon
