#pragma once
// ib_congestion: its settings (defaults and config keys, `watchdog.rules.ib_congestion`) and its
// RuleDef. docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct IbCongestionRule {
  bool enabled = true;
  double fraction = 0.10;       ///< waiting more than this share of the window fires it
  double clearFraction = 0.05;  ///< and it clears below this
  Duration window = 60s;        ///< the share is judged over this window
  unsigned forSamples = 2;      ///< consecutive judgements above the threshold
  /// Port time one PortXmitWait tick stands for, in bytes at the link's rate: NVIDIA Quantum
  /// switches count every 8 bytes of port time (PortSamplesControl.Tick = 7).
  double bytesPerTick = 8;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.number("fraction", fraction, kFraction);
    b.number("clear_fraction", clearFraction, kFraction);
    b.window("window", window);
    b.count("for_samples", forSamples, 1, kMaxConfigCount);
    b.number("bytes_per_tick", bytesPerTick, kPositive);
  }

  bool operator==(const IbCongestionRule&) const = default;
};

namespace watchdog {
extern const RuleDef kIbCongestionRule;
}  // namespace watchdog

}  // namespace fabricmon
