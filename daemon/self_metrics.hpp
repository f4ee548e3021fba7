#pragma once
// fabricmon's own metrics: collector health, build info and the HTTP request-duration histogram.

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "daemon/collector_runner.hpp"
#include "exporters/request_durations.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// Builds the "self" batch from the runners' health. Series are created once per collector.
class SelfMetrics {
 public:
  SelfMetrics(std::string version, std::string revision,
              std::shared_ptr<RequestDurations> durations = nullptr);

  BatchPtr batch(std::span<const CollectorHealth> health, std::chrono::steady_clock::time_point now);
  static std::span<const FamilyDef* const> families();
  /// The HTTP server records into it; the renderer reads it when a scrape renders a snapshot.
  const std::shared_ptr<RequestDurations>& requestDurations() const { return durations_; }

 private:
  struct CollectorSeries {
    SeriesPtr up, duration, lastSuccess, errors;
  };
  const CollectorSeries& seriesFor(const std::string& collector);

  SeriesPtr buildInfo_;
  std::shared_ptr<RequestDurations> durations_;
  std::map<std::string, CollectorSeries> series_;
};

}  // namespace fabricmon
