#pragma once
// pcie_errors: its settings (defaults and config keys, `watchdog.rules.pcie_errors`) and its
// RuleDef. docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct PcieErrorsRule {
  bool enabled = true;
  /// Corrected errors per minute at any one PCI function on a port's path: NVIDIA DCGM's limit of
  /// PCIe replays (what a corrected link error costs) per GPU, DCGM_LIMIT_MAX_PCIREPLAY_RATE.
  double correctablePerMinute = 8;
  Duration window = 10min;  ///< sliding window of the corrected-error limit (limit scaled to it)
  Duration clearAfter = 15min;  ///< no new uncorrectable error for this long clears its finding

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.number("correctable_per_minute", correctablePerMinute, kNonNegative);
    b.window("window", window);
    b.duration("clear_after", clearAfter);
  }

  bool operator==(const PcieErrorsRule&) const = default;
};

namespace watchdog {
extern const RuleDef kPcieErrorsRule;
}  // namespace watchdog

}  // namespace fabricmon
