#pragma once
// fabricmon's own metrics: collector health, build info and the HTTP request-duration histogram.

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "daemon/collector_runner.hpp"
#include "exporters/request_durations.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// Outcome of the last SIGHUP reload, written by the reload and read by every pipeline pass.
/// Starts as successful, as Prometheus' prometheus_config_last_reload_successful does.
class ReloadStatus {
 public:
  void succeeded() {
    lastSuccessUnix_.store(std::chrono::duration<double>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count());
    successful_.store(true);
  }
  void failed() { successful_.store(false); }
  bool successful() const { return successful_.load(); }
  /// Unix time of the last good load: the start, then every accepted reload.
  double lastSuccessUnix() const { return lastSuccessUnix_.load(); }

 private:
  std::atomic<bool> successful_{true};
  std::atomic<double> lastSuccessUnix_{
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count()};
};

/// Builds the "self" batch from the runners' health. Series are created once per collector.
class SelfMetrics {
 public:
  SelfMetrics(std::string version, std::string revision,
              std::shared_ptr<RequestDurations> durations = nullptr,
              std::shared_ptr<const ReloadStatus> reload = nullptr);

  /// `seriesConflicts`: samples dropped because another sample carried their series (SeriesGuard).
  BatchPtr batch(std::span<const CollectorHealth> health, std::chrono::steady_clock::time_point now,
                 uint64_t seriesConflicts = 0);
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
  std::shared_ptr<const ReloadStatus> reload_;
  SeriesPtr reloadSuccessful_, reloadTimestamp_;
  SeriesPtr seriesConflicts_;
  std::map<std::string, CollectorSeries> series_;
};

}  // namespace fabricmon
