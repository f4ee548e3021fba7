#pragma once
// lossless_class_shared: its settings (defaults and config keys, `watchdog.rules.lossless_class_shared`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct LosslessClassSharedRule {
  bool enabled = true;
  Duration window = 60s;          ///< bytes are compared over this window
  double maxNonRdmaShare = 0.10;  ///< non-RDMA share of the lossless priority's bytes above this fires
  /// Below this rate (bytes/s) on the lossless priority there is too little traffic to judge a share.
  double minBytesPerSecond = 1e6;
  /// DSCP values besides qos.roce_dscp allowed on the lossless priority; unset = the RoCE DSCP's
  /// class-selector group (roce_dscp & ~7 .. +7), which the mlx5 default trust-dscp map puts there.
  std::optional<std::vector<unsigned>> allowedDscps;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.window("window", window);
    b.number("max_non_rdma_share", maxNonRdmaShare, kFraction);
    b.number("min_bytes_per_second", minBytesPerSecond, kNonNegative);
    // The DSCP field is 6 bits (RFC 2474).
    b.optionalCountList("allowed_dscps", allowedDscps, 0, 63);
  }

  bool operator==(const LosslessClassSharedRule&) const = default;
};

namespace watchdog {
extern const RuleDef kLosslessClassSharedRule;
}  // namespace watchdog

}  // namespace fabricmon
