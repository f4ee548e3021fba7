#include "daemon/pipeline.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include "daemon/batch_pruning.hpp"
#include "exporters/findings_json.hpp"
#include "exporters/prometheus_text.hpp"
#include "model/thread_name.hpp"

namespace fabricmon {

using Clock = std::chrono::steady_clock;

constexpr auto kCoalesce = std::chrono::milliseconds(20);
constexpr auto kMaxHold = std::chrono::milliseconds(100);

Duration passHold(Duration pollInterval) {
  return std::clamp<Duration>(pollInterval / 4, kCoalesce, kMaxHold);
}

Pipeline::Pipeline(std::shared_ptr<Store> store, std::shared_ptr<Watchdog> watchdog, SelfMetrics self,
                   HealthSource health, PipelineOptions options,
                   std::shared_ptr<const TopologyHolder> topology)
    : store_(std::move(store)),
      watchdog_(std::move(watchdog)),
      self_(std::move(self)),
      healthSource_(std::move(health)),
      topology_(std::move(topology)),
      options_(options),
      exposition_([durations = self_.requestDurations()](std::span<const BatchPtr> batches) {
        std::vector<prometheus::MetricFamily> extra;
        if (durations) extra.push_back(durations->family());
        return renderPrometheusText(batches, std::move(extra));
      }) {}

Pipeline::~Pipeline() { stop(); }

void Pipeline::start() {
  runPass();
  thread_ = std::thread([this] {
    nameThisThread("pipeline");
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      wake_.wait_for(lock, options_.tick, [this] { return pending_ || stopping_; });
      if (stopping_) break;
      if (pending_) {
        holdForRunsInFlight(lock);
        if (stopping_) break;
      }
      pending_ = false;
      lock.unlock();
      // No exception may end this thread (docs/architecture.md, "Errors"): log it, and the next
      // pass tries again.
      try {
        runPass();
      } catch (const std::exception& e) {
        spdlog::error("pipeline pass failed: {}", e.what());
      } catch (...) {
        spdlog::error("pipeline pass failed with an unknown exception");
      }
      lock.lock();
    }
  });
}

// Collectors that share an interval start together and publish as each run ends, ~20 ms apart at
// 128 devices (hw_counters ~20 ms, fec ~1 ms). A pass after the first publish alone would be
// followed by a second one for the last: 1.4 passes a second, each judging every subject
// (docs/benchmarks.md, "Eleventh pass"). So the pass waits kCoalesce, then for as long as a run that
// began within the hold is still in flight -- each run that ends notifies -- and never longer than
// the hold. A stuck run began long before and is not waited for; a run cancelled by a reload ends
// without publishing, wakes nobody, and the pass waits out the hold.
void Pipeline::holdForRunsInFlight(std::unique_lock<std::mutex>& lock) {
  const auto first = Clock::now();
  const Duration hold = std::max<Duration>(options_.hold, kCoalesce);
  const auto deadline = first + hold;
  wake_.wait_until(lock, first + kCoalesce, [this] { return stopping_; });
  while (!stopping_ && Clock::now() < deadline) {
    pending_ = false;  // the next run to end sets it again
    lock.unlock();
    const bool busy = runsInFlight(Clock::now() - hold);
    lock.lock();
    if (!busy) return;
    wake_.wait_until(lock, deadline, [this] { return pending_ || stopping_; });
  }
}

bool Pipeline::runsInFlight(Clock::time_point startedSince) const {
  if (!healthSource_) return false;
  for (const CollectorHealth& h : healthSource_()) {
    // The run that has just published is still running until its task returns: it is done once
    // it has finished since it began.
    const bool running = h.runningSince != Clock::time_point{} && h.lastFinished < h.runningSince;
    if (running && h.runningSince >= startedSince) return true;
  }
  return false;
}

void Pipeline::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Pipeline::notify() {
  {
    std::lock_guard lock(mutex_);
    pending_ = true;
  }
  wake_.notify_one();
}

void Pipeline::setOptions(PipelineOptions options) {
  std::lock_guard lock(mutex_);
  options_ = options;
}

void Pipeline::setAfterPass(std::function<void()> fn) {
  std::lock_guard lock(mutex_);
  afterPass_ = std::move(fn);
}

void Pipeline::addPassHook(PassHook hook) {
  std::lock_guard lock(mutex_);
  passHooks_.push_back(std::move(hook));
}

void Pipeline::addBatchSource(std::function<BatchPtr()> source) {
  std::lock_guard lock(mutex_);
  batchSources_.push_back(std::move(source));
}

void Pipeline::setLeftBehindSource(HealthSource source) {
  std::lock_guard lock(mutex_);
  leftBehindSource_ = std::move(source);
}

std::string Pipeline::findingsJson() const {
  std::lock_guard lock(mutex_);
  return findingsJson_;
}

BatchPtr Pipeline::current(const BatchPtr& batch) {
  if (!topology_) return batch;
  const TopologyPtr topology = topology_->get();
  if (batch->topologyGeneration == topology->generation) return batch;
  auto& [generation, pruned] = pruned_[batch.get()];
  if (!pruned || generation != topology->generation) {
    pruned = withoutVanished(batch, *topology);
    generation = topology->generation;
  }
  return pruned;
}

void Pipeline::runPass() {
  PipelineOptions options;
  std::vector<PassHook> hooks;
  std::vector<std::function<BatchPtr()>> sources;
  HealthSource leftBehindSource;
  {
    std::lock_guard lock(mutex_);
    options = options_;
    hooks = passHooks_;
    sources = batchSources_;
    leftBehindSource = leftBehindSource_;
  }
  const auto now = Clock::now();
  const auto wallNow = std::chrono::system_clock::now();
  const std::vector<CollectorHealth> health = healthSource_();
  const SnapshotPtr snapshot = store_->snapshot();

  // Only fresh batches reach the watchdog and /metrics: a collector without a good run for
  // stale_after loses its series, so nobody alerts on numbers that stopped moving. A collector with
  // an interval of its own longer than half of stale_after (transceiver, 60 s) keeps its batch for
  // two of its intervals: one late run does not empty /metrics.
  Snapshot fresh;
  fresh.generation = snapshot->generation;
  std::string reason;
  for (const auto& h : health) {
    auto it = snapshot->batches.find(h.name);
    const auto staleAfter = std::max<Duration>(options.staleAfter, 2 * h.interval);
    if (it != snapshot->batches.end() && now - h.lastSuccess <= staleAfter) {
      fresh.batches.emplace(h.name, current(it->second));
    }
    if (h.stuck && now - h.runningSince > options.staleAfter && reason.empty()) {
      reason = fmt::format("collector {} has been stuck in one run for {:.0f} s", h.name,
                           std::chrono::duration<double>(now - h.runningSince).count());
    }
  }

  // Reads stuck in a NIC: the collector that waits cannot say so itself (daemon/read_waits.hpp),
  // nor can a run a reload left behind, whose read may have waited longest.
  {
    static const Topology kNone;
    const TopologyPtr topology = topology_ ? topology_->get() : nullptr;
    const std::vector<CollectorHealth> leftBehind = leftBehindSource ? leftBehindSource() : std::vector<CollectorHealth>{};
    fresh.batches.emplace(std::string(ReadWaits::kCollector),
                          readWaits_.batch(health, topology ? *topology : kNone, now, leftBehind));
  }

  // Forget pruned copies of batches that are no longer the latest of their collector.
  std::erase_if(pruned_, [&](const auto& entry) {
    for (const auto& [name, batch] : snapshot->batches) {
      if (batch.get() == entry.first) return false;
    }
    return true;
  });

  std::vector<BatchPtr> batches;
  batches.reserve(fresh.batches.size() + 2);
  for (const auto& [name, batch] : fresh.batches) batches.push_back(batch);
  seriesGuard_.check(batches);
  std::string findings = "{\"findings\":[]}";
  std::vector<Finding> active;
  if (watchdog_) {
    watchdog_->evaluate(fresh, now, wallNow);
    batches.push_back(watchdog_->metricsBatch());
    active = watchdog_->activeFindings();
    findings = renderFindingsJson(active);
  }
  for (const auto& hook : hooks) hook(fresh, active, wallNow);
  for (const auto& source : sources) {
    if (auto batch = source()) batches.push_back(std::move(batch));
  }
  batches.push_back(self_.batch(health, now, seriesGuard_.conflicts()));

  exposition_.publish(std::move(batches), ++generation_);
  std::function<void()> afterPass;
  {
    std::lock_guard lock(mutex_);
    findingsJson_ = std::move(findings);
    unhealthyReason_ = std::move(reason);
    afterPass = afterPass_;
  }
  lastPassNs_.store(Clock::now().time_since_epoch().count());
  if (afterPass) afterPass();
}

std::pair<bool, std::string> Pipeline::health() const {
  Duration tick;
  std::string reason;
  {
    std::lock_guard lock(mutex_);
    tick = options_.tick;
    reason = unhealthyReason_;
  }
  const auto last = Clock::time_point(Clock::duration(lastPassNs_.load()));
  const auto age = Clock::now() - last;
  if (age > 3 * tick + std::chrono::seconds(2)) {
    return {false, fmt::format("sampling loop stalled: no evaluation for {:.1f} s",
                               std::chrono::duration<double>(age).count())};
  }
  if (!reason.empty()) return {false, reason};
  return {true, "ok"};
}

}  // namespace fabricmon
