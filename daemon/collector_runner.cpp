#include "daemon/collector_runner.hpp"

#include <spdlog/spdlog.h>

#include <mutex>

#include "collectors/error_tracker.hpp"
#include "model/series_clash.hpp"

namespace fabricmon {

// Owned jointly by the runner and its worker thread (see PeriodicTask).
struct CollectorRunner::State {
  std::unique_ptr<Collector> collector;
  std::string name;
  Duration interval;
  std::shared_ptr<Store> store;
  std::shared_ptr<const TopologyHolder> topology;
  std::function<void()> onPublish;
  ErrorTracker errors;
  std::atomic<bool> cancelled{false};
  CollectStatus lastStatus = CollectStatus::kOk;
  /// The series of the previous run, shared by the next batch while they stay the same (SampleWriter).
  SeriesRosterPtr lastRoster;
  uint64_t lastFingerprint = 0;  ///< seriesFingerprint of lastRoster's series

  mutable std::mutex healthMutex;
  CollectorHealth health;
  /// The read this collector's thread is in (written by that thread, read by health()).
  ReadWatch watch;

  State(std::unique_ptr<Collector> c, Duration i, std::shared_ptr<Store> s,
        std::shared_ptr<const TopologyHolder> t, std::function<void()> p)
      : collector(std::move(c)),
        name(collector->name()),
        interval(i),
        store(std::move(s)),
        topology(std::move(t)),
        onPublish(std::move(p)),
        errors(name) {
    health.name = name;
    health.interval = interval;
  }

  void runOnce() {
    const auto started = std::chrono::steady_clock::now();
    setCurrentReadWatch(&watch);
    auto batch = std::make_shared<Batch>();
    batch->collector = name;
    batch->monotonic = started;
    batch->wall = std::chrono::system_clock::now();
    // The writer reserves as many samples as the last run had: a collector's series change rarely,
    // so the batch is allocated once at its final size, instead of doubling through a few
    // reallocations and keeping up to half of its capacity unused for as long as it is the latest
    // (docs/benchmarks.md, "Memory per component").
    CollectOutput out(*batch, errors, lastRoster);
    const TopologyPtr topo = topology->get();
    batch->topologyGeneration = topo->generation;
    CollectStatus status;
    try {
      status = collector->collect(*topo, out);
    } catch (const std::exception& e) {
      spdlog::error("collector {} threw: {}", name, e.what());
      status = CollectStatus::kFailed;
    } catch (...) {
      spdlog::error("collector {} threw an unknown exception", name);
      status = CollectStatus::kFailed;
    }
    errors.sweep();
    lastRoster = out.finish();
    // The same series in the same order have the same fingerprint: computed only when they change.
    if (!out.sameSeries() || lastFingerprint == 0) lastFingerprint = seriesFingerprint(batch->samples);
    batch->seriesFingerprint = lastFingerprint;
    const auto finished = std::chrono::steady_clock::now();
    if (cancelled.load()) return;

    if (status != lastStatus) {
      if (status == CollectStatus::kFailed) spdlog::warn("collector {}: run failed", name);
      if (lastStatus == CollectStatus::kFailed) spdlog::info("collector {}: runs again", name);
      if (status == CollectStatus::kNoData) spdlog::debug("collector {}: no hardware", name);
      lastStatus = status;
    }
    {
      std::lock_guard lock(healthMutex);
      health.durationSeconds = std::chrono::duration<double>(finished - started).count();
      health.lastFinished = finished;
      health.errorsTotal += out.errorCount() + (status == CollectStatus::kFailed ? 1 : 0);
      health.up = status != CollectStatus::kFailed;
      if (health.up) {
        health.lastSuccess = finished;
        health.lastSuccessUnixSeconds =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      }
    }
    // A failed run keeps the previous batch until it goes stale; a run that found no hardware
    // publishes an empty batch so that series of vanished hardware leave the next snapshot.
    if (cancelled.load()) return;  // stopped while this run was finishing
    if (status != CollectStatus::kFailed) store->publish(std::move(batch));
    if (onPublish) onPublish();
  }
};

CollectorRunner::CollectorRunner(boost::asio::io_context& loop, std::unique_ptr<Collector> collector,
                                 Duration interval, std::shared_ptr<Store> store,
                                 std::shared_ptr<const TopologyHolder> topology,
                                 std::function<void()> onPublish)
    : state_(std::make_shared<State>(std::move(collector), interval, std::move(store),
                                     std::move(topology), std::move(onPublish))),
      task_(loop, "collector " + state_->name, interval, [s = state_] { s->runOnce(); }) {}

CollectorRunner::~CollectorRunner() {
  requestStop();
  join(PeriodicTask::Clock::now());
}

void CollectorRunner::start() { task_.start(); }

void CollectorRunner::requestStop() {
  state_->cancelled.store(true);
  task_.requestStop();
}

bool CollectorRunner::join(PeriodicTask::Clock::time_point deadline) { return task_.join(deadline); }

const std::string& CollectorRunner::name() const { return state_->name; }

CollectorHealth CollectorRunner::health() const {
  CollectorHealth h;
  {
    std::lock_guard lock(state_->healthMutex);
    h = state_->health;
  }
  h.runningSince = task_.runningSince();
  if (h.runningSince != PeriodicTask::Clock::time_point{}) {
    // A run in progress for longer than twice its interval (at least 2 s) is stuck: report the
    // collector down at once rather than waiting for its values to go stale.
    const auto limit = std::max<Duration>(2 * state_->interval, std::chrono::seconds(2));
    if (std::chrono::steady_clock::now() - h.runningSince > limit) {
      h.stuck = true;
      h.up = false;
    }
    if (auto w = state_->watch.waiting(); w && std::chrono::steady_clock::now() - w->since >= kReadWaitReported) {
      h.waiting = std::move(w);
    }
  }
  return h;
}

}  // namespace fabricmon
