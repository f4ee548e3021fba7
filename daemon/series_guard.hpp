#pragma once
// Checks each snapshot for series carried twice (model/series_clash.hpp) and reports them: a
// logged, counted error in production (fabricmon_series_conflicts_total); with
// FABRICMON_STRICT_SERIES=1 in the environment (the test suite sets it, scripts/test) the process
// aborts, so a test that provokes a clash fails loudly instead of passing on the renderer's pick.

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>

#include "model/sample.hpp"

namespace fabricmon {

class SeriesGuard {
 public:
  explicit SeriesGuard(bool strict);
  /// Strict when FABRICMON_STRICT_SERIES=1.
  static SeriesGuard fromEnvironment();

  /// Looks at the collectors' batches of one snapshot. The full check runs only when a batch's
  /// series changed since the last call (Batch::seriesFingerprint), so a steady node pays a
  /// comparison per collector.
  void check(std::span<const BatchPtr> batches);
  /// Repeated samples seen so far (each series counted once per snapshot it clashed in).
  uint64_t conflicts() const { return conflicts_; }

 private:
  bool strict_;
  uint64_t conflicts_ = 0;
  std::map<std::string, uint64_t, std::less<>> fingerprints_;
  std::set<std::string, std::less<>> logged_;  ///< series keys already logged
};

}  // namespace fabricmon
