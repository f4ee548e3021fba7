#pragma once
// dcqcn_misconfig: its settings (defaults and config keys, `watchdog.rules.dcqcn_misconfig`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {


struct DcqcnMisconfigRule {
  bool enabled = true;
  Duration window = 60s;             ///< for the counter-based checks (ECN without CNP, ...)
  double pfcWithoutEcnPauseFraction = 0.01;
  /// The counter signatures (ECN marks with no CNP sent, CNPs ignored with none handled) need at
  /// least this many marks (ignored CNPs) in the window: a few at its edge prove nothing.
  unsigned minSignaturePackets = 100;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.window("window", window);
    b.number("pfc_without_ecn_pause_fraction", pfcWithoutEcnPauseFraction, kFraction);
    b.count("min_signature_packets", minSignaturePackets, 1, kMaxConfigCount);
  }

  bool operator==(const DcqcnMisconfigRule&) const = default;
};

namespace watchdog {
extern const RuleDef kDcqcnMisconfigRule;
}  // namespace watchdog

}  // namespace fabricmon
