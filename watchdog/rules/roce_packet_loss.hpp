#pragma once
// roce_packet_loss: its settings (defaults and config keys, `watchdog.rules.roce_packet_loss`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {


struct RocePacketLossRule {
  bool enabled = true;
  Duration window = 5min;
  double localAckTimeoutCriticalPerSecond = 1.0;
  Duration criticalWindow = 10s;     ///< window of the local-ACK-timeout rate (critical)

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.window("window", window);
    b.number("local_ack_timeout_critical_per_second", localAckTimeoutCriticalPerSecond, kPositive);
    b.window("critical_window", criticalWindow);
  }

  bool operator==(const RocePacketLossRule&) const = default;
};

namespace watchdog {
extern const RuleDef kRocePacketLossRule;
}  // namespace watchdog

}  // namespace fabricmon
