#pragma once
// After every publish: drop stale batches, run the watchdog and publish the snapshot's batches for
// /metrics. Runs on its own thread so neither a scrape nor a collector ever waits for it. The text
// is not rendered here: the first scrape of a snapshot renders it (LazyExposition), so polling with
// nobody scraping costs no rendering and a slow render never delays sampling.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "daemon/collector_runner.hpp"
#include "daemon/read_waits.hpp"
#include "daemon/self_metrics.hpp"
#include "daemon/series_guard.hpp"
#include "exporters/payload.hpp"
#include "model/store.hpp"
#include "watchdog/watchdog.hpp"

namespace fabricmon {

struct PipelineOptions {
  Duration tick = 1s;         ///< re-evaluate at least this often (staleness, health, stuck runs)
  Duration staleAfter = 30s;  ///< a collector's batch leaves the snapshot after this without a good run
  /// After a publish, the pass waits for collector runs still in flight that began at most this
  /// long ago, and never longer than this in all (passHold; docs/architecture.md, "Threads").
  Duration hold = 20ms;
};

/// The hold for a poll interval: a quarter of it, at most 100 ms (what a pass may add to a
/// finding's latency) and at least the 20 ms the pipeline always waits for a publish's neighbours.
Duration passHold(Duration pollInterval);

class Pipeline {
 public:
  using HealthSource = std::function<std::vector<CollectorHealth>()>;

  Pipeline(std::shared_ptr<Store> store, std::shared_ptr<Watchdog> watchdog, SelfMetrics self,
           HealthSource health, PipelineOptions options,
           std::shared_ptr<const TopologyHolder> topology = nullptr);
  ~Pipeline();

  void start();
  void stop();
  /// A batch was published: re-render soon. Cheap; callable from any thread.
  void notify();
  void setOptions(PipelineOptions options);
  /// Called on the pipeline thread after each pass (systemd watchdog keep-alive).
  void setAfterPass(std::function<void()> fn);
  /// Called on the pipeline thread in each pass with the fresh snapshot and the active findings
  /// (recent-sample history, Alertmanager push). Must be cheap and never block. Set before start().
  using PassHook = std::function<void(const Snapshot& fresh, const std::vector<Finding>& findings,
                                      std::chrono::system_clock::time_point wallNow)>;
  void addPassHook(PassHook hook);
  /// A batch rendered with every snapshot (the push's own counters). Set before start().
  void addBatchSource(std::function<BatchPtr()> source);
  /// Runs a reload left behind, still in progress: only their reads that wait are used (the read
  /// waits), never their health as a collector's. Set before start().
  void setLeftBehindSource(HealthSource source);

  /// The latest snapshot rendered, at most once per pass and only when asked: call it from the
  /// HTTP or textfile threads, never from a collector. nullptr before the first pass.
  std::shared_ptr<const Payload> payload() const { return exposition_.payload(); }
  /// Where the HTTP server records request durations (rendered with the self metrics).
  std::shared_ptr<RequestDurations> requestDurations() const { return self_.requestDurations(); }
  /// Renders so far (tests: cost follows scrapes).
  uint64_t renders() const { return exposition_.renders(); }
  std::string findingsJson() const;
  /// ok, or false with a reason (the loop stalled, or a collector is stuck in a run).
  std::pair<bool, std::string> health() const;

  /// One pass, exposed for tests.
  void runPass();

 private:
  BatchPtr current(const BatchPtr& batch);
  /// Called with `lock` held after a publish woke the thread; returns with it held.
  void holdForRunsInFlight(std::unique_lock<std::mutex>& lock);
  bool runsInFlight(std::chrono::steady_clock::time_point startedSince) const;

  std::shared_ptr<Store> store_;
  std::shared_ptr<Watchdog> watchdog_;
  SelfMetrics self_;
  ReadWaits readWaits_;
  SeriesGuard seriesGuard_ = SeriesGuard::fromEnvironment();
  HealthSource healthSource_;
  HealthSource leftBehindSource_;
  std::shared_ptr<const TopologyHolder> topology_;
  /// Pruned copies of batches that predate the latest discovery, keyed by the original, so that the
  /// watchdog (which ingests each batch pointer once) sees one stable batch per collector run.
  std::map<const Batch*, std::pair<uint64_t, BatchPtr>> pruned_;

  mutable std::mutex mutex_;  // guards options_, pending_, stopping_, findingsJson_, afterPass_
  std::condition_variable wake_;
  PipelineOptions options_;
  bool pending_ = false;
  bool stopping_ = false;
  std::string findingsJson_ = "{\"findings\":[]}";
  std::function<void()> afterPass_;
  std::vector<PassHook> passHooks_;
  std::vector<std::function<BatchPtr()>> batchSources_;
  std::string unhealthyReason_;

  LazyExposition exposition_;
  std::atomic<int64_t> lastPassNs_{0};
  uint64_t generation_ = 0;
  std::thread thread_;
};

}  // namespace fabricmon
