#pragma once
// fabricmon's own metrics: collector health and build info.

#include <map>
#include <span>
#include <string>
#include <vector>

#include "daemon/collector_runner.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// Builds the "self" batch from the runners' health. Series are created once per collector.
class SelfMetrics {
 public:
  SelfMetrics(std::string version, std::string revision);

  BatchPtr batch(std::span<const CollectorHealth> health, std::chrono::steady_clock::time_point now);
  static std::span<const FamilyDef* const> families();

 private:
  struct CollectorSeries {
    SeriesPtr up, duration, lastSuccess, errors;
  };
  const CollectorSeries& seriesFor(const std::string& collector);

  SeriesPtr buildInfo_;
  std::map<std::string, CollectorSeries> series_;
};

}  // namespace fabricmon
