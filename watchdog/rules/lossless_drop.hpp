#pragma once
// lossless_drop: its settings (defaults and config keys, `watchdog.rules.lossless_drop`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {


struct LosslessDropRule {
  bool enabled = true;
  Duration clearAfter = 5min;        ///< no new drop for this long clears it

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.duration("clear_after", clearAfter);
  }

  bool operator==(const LosslessDropRule&) const = default;
};

namespace watchdog {
extern const RuleDef kLosslessDropRule;
}  // namespace watchdog

}  // namespace fabricmon
