#pragma once
// Sampling: device discovery and the collectors publish into the store; the pipeline runs the
// watchdog over each pass and feeds the recent-sample window; the textfile output writes what the
// pipeline published. A reload restarts discovery and the collectors with the new settings, keeps
// the watchdog's history, and keeps the window when its shape did not change.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "collectors/registry.hpp"
#include "config/config.hpp"
#include "daemon/collector_runner.hpp"
#include "daemon/periodic_task.hpp"
#include "daemon/pipeline.hpp"
#include "model/asio.hpp"

namespace fabricmon {

class RecentSamples;
class TopologyDiscovery;

/// Wakes a pipeline for as long as it is attached (Sampler::waker_).
class PipelineWaker {
 public:
  void attach(Pipeline* pipeline) {
    std::lock_guard lock(mutex_);
    pipeline_ = pipeline;
  }
  void detach() { attach(nullptr); }
  void notify() {
    std::lock_guard lock(mutex_);
    if (pipeline_ != nullptr) pipeline_->notify();
  }

 private:
  std::mutex mutex_;
  Pipeline* pipeline_ = nullptr;
};

/// What the node reads at every poll under `config`: the watchdog's inputs and, when the window is
/// on, the window's families. Every collector of kept counter files reads the files of the other
/// series every poll.export_only_interval (collectors/poll_demand.hpp); null while that is unset
/// (every file at every poll).
std::shared_ptr<const PollDemand> pollDemand(const Config& config);

class Sampler {
 public:
  /// Replaces the configured MAD source (the demo's simulated fabric); given the sysfs root.
  using MadOverride = std::function<std::shared_ptr<MadSource>(std::shared_ptr<const SysfsRoot>)>;

  /// Timers run on `io`. The watchdog keeps its state in `statePath` ("" = nowhere). Nothing runs
  /// until start(); hooks may be added to pipeline() before that.
  Sampler(boost::asio::io_context& io, const Config& config, SelfMetrics self,
          const std::string& statePath, MadOverride mad = {});
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  Pipeline& pipeline() { return *pipeline_; }
  const Pipeline& pipeline() const { return *pipeline_; }

  /// Discovers the devices (so that the first snapshot is complete), starts the collectors and
  /// then the pipeline.
  void start();
  /// A reload: the collectors stop (1 s grace), the watchdog and the window take the new
  /// settings, the collectors start again with the new configuration.
  void reconfigure(const Config& config);
  /// Stops the collectors (a stuck one gets `grace`) and the pipeline.
  void stop(std::chrono::milliseconds grace);
  /// Writes the watchdog's state out; call after stop(). A write still running at `deadline` is
  /// left behind (leftThreadsBehind()).
  void flushState(std::chrono::steady_clock::time_point deadline);
  /// True if a collector run was left blocked when the collectors stopped.
  bool leftThreadsBehind() const { return leftBehind_; }

  std::vector<CollectorHealth> collectorHealth() const;
  /// The health of runs a reload left behind that have not returned yet (their reads still wait);
  /// forgets those that have. Not a collector of the running configuration: for the read waits only.
  std::vector<CollectorHealth> leftBehindHealth();
  /// The recent-sample window; null while window.enabled is false.
  std::shared_ptr<RecentSamples> recent() const;
  /// The latest batch of one collector (null when it has none).
  BatchPtr latestBatch(std::string_view collector) const;

 private:
  void startCollectors();
  /// `reloading`: the collectors start again, and runs left stuck are watched (stuckRunners_).
  void stopCollectors(std::chrono::milliseconds grace, bool reloading);
  /// Watches a run a reload left stuck, within kMaxStuckRunners. Under runnersMutex_.
  void keepStuckRunner(std::unique_ptr<CollectorRunner> runner);
  void applyWindow(const WindowConfig& window);

  boost::asio::io_context& io_;
  Config config_;  ///< the configuration the collectors run with
  MadOverride mad_;
  std::shared_ptr<Store> store_ = std::make_shared<Store>();
  std::shared_ptr<TopologyHolder> topology_ = std::make_shared<TopologyHolder>();
  std::shared_ptr<Watchdog> watchdog_;
  std::unique_ptr<Pipeline> pipeline_;
  /// Wakes the pipeline when a collector published. Held by every runner: a run left behind may
  /// publish after the sampler stopped (or is gone), when there is no pipeline to wake.
  std::shared_ptr<PipelineWaker> waker_ = std::make_shared<PipelineWaker>();
  Sources sources_;  ///< of the running configuration (makeSources keeps parts across a reload)
  std::unique_ptr<TopologyDiscovery> discovery_;
  std::unique_ptr<PeriodicTask> discoveryTask_;
  std::unique_ptr<PeriodicTask> textfileTask_;
  std::vector<std::unique_ptr<CollectorRunner>> runners_;
  /// Runners a reload could not stop, kept until their run returns: a read stuck in a NIC's
  /// firmware stays named (leftBehindHealth) after the reload started that collector anew.
  std::vector<std::unique_ptr<CollectorRunner>> stuckRunners_;
  static constexpr size_t kMaxStuckRunners = 32;
  /// The pipeline and HTTP threads read runners_ for health; the pipeline thread also forgets
  /// stuckRunners_ whose run returned (leftBehindHealth).
  mutable std::mutex runnersMutex_;
  /// Swapped by a reload that changes window.*, read by the pipeline and HTTP threads.
  std::shared_ptr<RecentSamples> recent_;
  mutable std::mutex recentMutex_;
  bool leftBehind_ = false;
};

}  // namespace fabricmon
