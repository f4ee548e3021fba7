#include "daemon/sampler.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>

#include "collectors/sources/dir_handles.hpp"
#include "collectors/sources/sysfs.hpp"
#include "collectors/topology_discovery.hpp"
#include "exporters/textfile_writer.hpp"
#include "watchdog/input_families.hpp"
#include "window/recent_samples.hpp"

namespace fabricmon {

namespace {

Duration intervalFor(const CollectorEntry& entry, const Config& config) {
  if (const auto* c = config.collector(entry.name); c != nullptr && c->interval)
    return *c->interval;
  if (entry.ownInterval.count() > 0) return entry.ownInterval;
  return entry.cadence == Cadence::kFast ? config.poll.interval : config.poll.slowInterval;
}

PipelineOptions pipelineOptions(const Config& config) {
  return PipelineOptions{config.poll.interval, config.poll.staleAfter, passHold(config.poll.interval)};
}

// sources.max_open_files, but never more than half the soft RLIMIT_NOFILE (directory handles take at
// most half of that again): the last quarter is for HTTP connections, netlink and ioctl sockets and
// the files read whole.
size_t keptFileCap(unsigned configured) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return configured;
  return std::min<size_t>(configured, limit.rlim_cur / 2);
}

}  // namespace

std::shared_ptr<const PollDemand> pollDemand(const Config& config) {
  if (!config.poll.exportOnlyInterval) return nullptr;
  const bool window = config.window.on();
  return std::make_shared<const PollDemand>(PollDemand{
      [window](const Series& series) {
        return watchdog::ingests(series) || (window && RecentSamples::kept(series.family));
      },
      *config.poll.exportOnlyInterval});
}

Sampler::Sampler(boost::asio::io_context& io, const Config& config, SelfMetrics self,
                 const std::string& statePath, MadOverride mad)
    : io_(io),
      config_(config),
      mad_(std::move(mad)),
      watchdog_(std::make_shared<Watchdog>(config_.watchdog, config_.qos)) {
  watchdog_->useStateFile(statePath, config_.state.interval);
  pipeline_ = std::make_unique<Pipeline>(
      store_, watchdog_, std::move(self), [this] { return collectorHealth(); },
      pipelineOptions(config_), topology_);
  pipeline_->setLeftBehindSource([this] { return leftBehindHealth(); });
  waker_->attach(pipeline_.get());
  applyWindow(config_.window);
  pipeline_->addPassHook([this](const Snapshot& fresh, const std::vector<Finding>&,
                                std::chrono::system_clock::time_point) {
    if (auto recent = this->recent()) recent->ingest(fresh);
  });
  pipeline_->addBatchSource([this] {
    return RecentSamples::usageBatch(recent().get(), std::chrono::steady_clock::now());
  });
}

Sampler::~Sampler() {
  // The pipeline's thread reads this sampler's runners (collectorHealth, leftBehindHealth): it
  // stops before they are destroyed, whether or not stop() was called.
  waker_->detach();
  if (pipeline_) pipeline_->stop();
}

void Sampler::start() {
  startCollectors();
  pipeline_->start();
}

void Sampler::reconfigure(const Config& config) {
  stopCollectors(std::chrono::milliseconds(1000), /*reloading=*/true);
  config_ = config;
  watchdog_->reconfigure(config_.watchdog, config_.qos);
  applyWindow(config_.window);
  pipeline_->setOptions(pipelineOptions(config_));
  startCollectors();
}

void Sampler::stop(std::chrono::milliseconds grace) {
  stopCollectors(grace, /*reloading=*/false);
  waker_->detach();
  pipeline_->stop();
}

void Sampler::flushState(std::chrono::steady_clock::time_point deadline) {
  leftBehind_ |= !watchdog_->flushState(deadline);
}

std::vector<CollectorHealth> Sampler::collectorHealth() const {
  std::vector<CollectorHealth> health;
  std::lock_guard lock(runnersMutex_);
  health.reserve(runners_.size());
  for (const auto& r : runners_) health.push_back(r->health());
  return health;
}

std::vector<CollectorHealth> Sampler::leftBehindHealth() {
  std::vector<CollectorHealth> health;
  std::lock_guard lock(runnersMutex_);
  std::erase_if(stuckRunners_, [&](const std::unique_ptr<CollectorRunner>& r) {
    CollectorHealth h = r->health();
    if (h.runningSince == PeriodicTask::Clock::time_point{}) return true;  // its run returned
    health.push_back(std::move(h));
    return false;
  });
  return health;
}

std::shared_ptr<RecentSamples> Sampler::recent() const {
  std::lock_guard lock(recentMutex_);
  return recent_;
}

BatchPtr Sampler::latestBatch(std::string_view collector) const {
  const SnapshotPtr snap = store_->snapshot();
  if (!snap) return nullptr;
  const auto it = snap->batches.find(std::string(collector));
  return it == snap->batches.end() ? nullptr : it->second;
}

// A changed window.* starts a new, empty window (its length is the store's shape); an unchanged
// one keeps its history across a reload.
void Sampler::applyWindow(const WindowConfig& window) {
  std::lock_guard lock(recentMutex_);
  if (!window.on()) {
    recent_.reset();
    return;
  }
  if (!recent_ || recent_->length() != window.length)
    recent_ = std::make_shared<RecentSamples>(window.length);
}

void Sampler::startCollectors() {
  const size_t keptCap = keptFileCap(config_.sources.maxOpenFiles);
  CounterFile::setMaxKeptFiles(keptCap);
  // A directory handle serves every file below it that has no kept descriptor of its own
  // (collectors/sources/dir_handles.hpp): a port has ~10 counter directories, and a handle holds
  // no kernel buffer (O_PATH), so half the budget more covers a node whose files are 20x the cap.
  setMaxKeptDirs(keptCap / 2);
  // The previous configuration's sources hand over what must outlive a reload (the kernel log's
  // reader: records logged while the daemon reloads are read, not lost).
  Sources sources = makeSources(config_.sources, &sources_);
  sources_ = sources;
  if (mad_) sources.mad = mad_(sources.sysfs);
  sources.demand = pollDemand(config_);
  discovery_ = std::make_unique<TopologyDiscovery>(sources.sysfs, config_.devices, config_.netdev);
  // The first scan runs before any collector so that the first snapshot is complete.
  if (auto topo = discovery_->scan(); topo) {
    topology_->set(*topo);
    if ((*topo)->devices.empty()) {
      spdlog::warn("no RDMA devices below {}/class/infiniband; serving health metrics only",
                   config_.sources.sysfsRoot);
    } else {
      spdlog::info("found {} RDMA device(s) and {} network interface(s)", (*topo)->devices.size(),
                   (*topo)->netdevs.size());
    }
  } else {
    spdlog::warn("device discovery: {}", topo.error().message);
  }
  discoveryTask_ = std::make_unique<PeriodicTask>(
      io_, "discovery", config_.poll.discoveryInterval,
      [discovery = discovery_.get(), holder = topology_] {
        auto topo = discovery->scan();
        if (!topo) {
          spdlog::debug("device discovery: {}", topo.error().message);
          return;
        }
        const auto previous = holder->get();
        if ((*topo)->generation != previous->generation) {
          spdlog::info("topology changed: {} RDMA device(s), {} network interface(s)",
                       (*topo)->devices.size(), (*topo)->netdevs.size());
          holder->set(*topo);
        }
      });

  std::vector<std::unique_ptr<CollectorRunner>> runners;
  for (const CollectorEntry* entry : collectorRegistry()) {
    const auto* c = config_.collector(entry->name);
    if (c != nullptr && !c->enabled) {
      spdlog::info("collector {} disabled by config", entry->name);
      store_->remove(std::string(entry->name));
      continue;
    }
    runners.push_back(std::make_unique<CollectorRunner>(
        io_, entry->make(sources, config_), intervalFor(*entry, config_), store_, topology_,
        [waker = waker_] { waker->notify(); }));
  }
  {
    std::lock_guard lock(runnersMutex_);
    runners_ = std::move(runners);
  }
  if (config_.textfile.path) {
    // The write fsyncs, so it runs on a thread of its own, never on the loop. The payload is
    // rendered here if no scrape has rendered this snapshot yet (and shared with scrapes if one
    // has).
    textfileTask_ =
        std::make_unique<PeriodicTask>(io_, "textfile", config_.textfile.interval,
                                       [path = *config_.textfile.path, pipeline = pipeline_.get(),
                                        failing = std::make_shared<bool>(false)] {
                                         const auto payload = pipeline->payload();
                                         if (!payload) return;
                                         const Status st = writeTextfile(path, payload->text);
                                         if (!st && !*failing)
                                           spdlog::warn("textfile: {}", st.error().message);
                                         if (st && *failing)
                                           spdlog::info("textfile: {} is written again", path);
                                         *failing = !st.ok();
                                       });
  }
  discoveryTask_->start();
  for (auto& r : runners_) r->start();
  if (textfileTask_) textfileTask_->start();
}

void Sampler::stopCollectors(std::chrono::milliseconds grace, bool reloading) {
  const auto deadline = PeriodicTask::Clock::now() + grace;
  if (discoveryTask_) discoveryTask_->requestStop();
  if (textfileTask_) textfileTask_->requestStop();
  for (auto& r : runners_) r->requestStop();
  std::vector<bool> stuck;
  for (auto& r : runners_) stuck.push_back(!r->join(deadline));
  const bool discoveryStuck = discoveryTask_ && !discoveryTask_->join(deadline);
  if (textfileTask_) leftBehind_ |= !textfileTask_->join(deadline);
  textfileTask_.reset();
  std::lock_guard lock(runnersMutex_);
  // Runs that returned since the last pass need no watching (leftBehindHealth forgets them too).
  std::erase_if(stuckRunners_, [](const std::unique_ptr<CollectorRunner>& r) {
    return r->health().runningSince == PeriodicTask::Clock::time_point{};
  });
  for (size_t i = 0; i < runners_.size(); ++i) {
    if (!stuck[i]) continue;
    leftBehind_ = true;
    // At shutdown nobody reads the waits any more: the run is simply let go (its thread stays
    // detached and owns its state).
    if (!reloading) continue;
    keepStuckRunner(std::move(runners_[i]));
  }
  runners_.clear();
  discoveryTask_.reset();
  leftBehind_ |= discoveryStuck;
  // discovery_ may still be used by a detached discovery run: keep it alive until exit.
  if (!discoveryStuck)
    discovery_.reset();
  else
    (void)discovery_.release();
}

void Sampler::keepStuckRunner(std::unique_ptr<CollectorRunner> runner) {
  // A read that never returns leaves one more run behind at every reload. Under the cap every
  // one is watched. At the cap, a run of a collector that already has an older run watched is let
  // go quietly: the older run's read started first, so it carries the longer wait (a new run
  // blocks on the same NIC). A run of a collector with none watched is let go with a warning:
  // its wait is no longer named (its thread stays detached and owns its state).
  if (stuckRunners_.size() < kMaxStuckRunners) {
    stuckRunners_.push_back(std::move(runner));
    return;
  }
  const bool olderWatched = std::any_of(stuckRunners_.begin(), stuckRunners_.end(),
                                        [&](const auto& r) { return r->name() == runner->name(); });
  if (!olderWatched) {
    spdlog::warn("{} collector runs left behind by reloads are still blocked; not watching the {} run "
                 "left behind now",
                 stuckRunners_.size(), runner->name());
  }
}

}  // namespace fabricmon
