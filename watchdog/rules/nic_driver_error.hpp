#pragma once
// nic_driver_error: its settings (defaults and config keys, `watchdog.rules.nic_driver_error`) and
// its RuleDef. docs/rules.md gives the source of every default.

#include <string>
#include <string_view>

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct NicDriverErrorRule {
  bool enabled = true;
  /// A finding stays this long after the latest matching record. Drivers log a fatal error once
  /// and then fall silent (a wedged NIC logs nothing more), so the finding must outlive the record
  /// by long enough for a one-minute scrape, an alert's `for` and a human to see it.
  Duration quietPeriod = 15min;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.window("quiet_period", quietPeriod);
  }

  bool operator==(const NicDriverErrorRule&) const = default;
};

namespace watchdog {
extern const RuleDef kNicDriverErrorRule;
/// The reason of the finding that the kernel log lost records (no device: the log is the node's).
inline constexpr std::string_view kKernelLogLostReason = "kernel_log_lost";

/// The record's text as a finding shows it: at most `limit` bytes, control and non-ASCII bytes as
/// \xNN, quotes and backslashes escaped, cut on a whole escape.
std::string findingText(std::string_view message, size_t limit = 200);
}  // namespace watchdog

}  // namespace fabricmon
