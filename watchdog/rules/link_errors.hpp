#pragma once
// link_errors: its settings (defaults and config keys, `watchdog.rules.link_errors`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {


struct LinkErrorsRule {
  bool enabled = true;
  // Per-hour limits, from infiniband-diags etc/error_thresholds (10 per check).
  double symbolErrorsPerHour = 10;
  double linkErrorRecoveryPerHour = 10;
  double receiveErrorsPerHour = 10;
  double localLinkIntegrityErrorsPerHour = 10;
  double berLimit = 1e-12;           ///< post-FEC bit error rate target
  Duration berWindow = 10min;
  Duration window = 60min;           ///< sliding window of the per-hour limits (limit scaled to it)

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.number("symbol_errors_per_hour", symbolErrorsPerHour, kNonNegative);
    b.number("link_error_recovery_per_hour", linkErrorRecoveryPerHour, kNonNegative);
    b.number("receive_errors_per_hour", receiveErrorsPerHour, kNonNegative);
    b.number("local_link_integrity_errors_per_hour", localLinkIntegrityErrorsPerHour, kNonNegative);
    b.number("ber_limit", berLimit, kProbability);
    b.window("ber_window", berWindow);
    b.window("window", window);
  }

  bool operator==(const LinkErrorsRule&) const = default;
};

namespace watchdog {
extern const RuleDef kLinkErrorsRule;
}  // namespace watchdog

}  // namespace fabricmon
