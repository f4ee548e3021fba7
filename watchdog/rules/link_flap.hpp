#pragma once
// link_flap: its settings (defaults and config keys, `watchdog.rules.link_flap`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {


struct LinkFlapRule {
  bool enabled = true;
  unsigned downEvents = 3;
  Duration window = 10min;
  Duration quiet = 10min;            ///< no down event for this long clears it

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.count("down_events", downEvents, 1, kMaxConfigCount);
    b.window("window", window);
    b.duration("quiet", quiet);
  }

  bool operator==(const LinkFlapRule&) const = default;
};

namespace watchdog {
extern const RuleDef kLinkFlapRule;
}  // namespace watchdog

}  // namespace fabricmon
