#pragma once
// port_degraded: its settings (defaults and config keys, `watchdog.rules.port_degraded`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {


struct PortDegradedRule {
  bool enabled = true;
  std::optional<double> expectedRateGbps;  ///< unset: compare with the node's most common rate
  Duration notActiveFor = 30s;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.optionalNumber("expected_rate_gbps", expectedRateGbps, kPositive);
    b.duration("not_active_for", notActiveFor);
  }

  bool operator==(const PortDegradedRule&) const = default;
};

namespace watchdog {
extern const RuleDef kPortDegradedRule;
}  // namespace watchdog

}  // namespace fabricmon
