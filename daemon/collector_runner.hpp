#pragma once
// Runs one collector on its own PeriodicTask: takes the latest topology, collects, publishes the
// batch to the store and keeps the health numbers behind fabricmon_collector_*.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "collectors/collector.hpp"
#include "collectors/sources/read_watch.hpp"
#include "daemon/periodic_task.hpp"
#include "model/store.hpp"

namespace fabricmon {

/// The latest discovery result, swapped by pointer.
class TopologyHolder {
 public:
  TopologyHolder() : current_(std::make_shared<const Topology>()) {}
  TopologyPtr get() const { return current_.load(std::memory_order_acquire); }
  void set(TopologyPtr t) { current_.store(std::move(t), std::memory_order_release); }

 private:
  std::atomic<TopologyPtr> current_;
};

/// Health of one collector as the exporter reports it.
struct CollectorHealth {
  std::string name;
  bool up = false;
  bool stuck = false;                ///< a run has been in progress for too long
  double durationSeconds = 0;        ///< length of the last finished run
  double lastSuccessUnixSeconds = 0; ///< 0 = never
  uint64_t errorsTotal = 0;          ///< failed runs + per-file read errors
  std::chrono::steady_clock::time_point lastSuccess{};  ///< monotonic, for staleness
  std::chrono::steady_clock::time_point runningSince{};
  /// When the last run ended, set before it publishes: a run is in flight while runningSince is
  /// later (the task clears runningSince only after the publish has woken the pipeline).
  std::chrono::steady_clock::time_point lastFinished{};
  Duration interval{};
  /// The read the run in progress has waited for at least kReadWaitReported: a NIC's firmware or
  /// driver that stopped answering (collectors/sources/read_watch.hpp). nullopt: none.
  std::optional<ReadWatch::Waiting> waiting;
};

/// A read that has not returned after this long is reported (CollectorHealth::waiting): a healthy
/// NIC answers a firmware command in microseconds to milliseconds.
inline constexpr Duration kReadWaitReported = std::chrono::seconds(1);

class CollectorRunner {
 public:
  CollectorRunner(boost::asio::io_context& loop, std::unique_ptr<Collector> collector,
                  Duration interval, std::shared_ptr<Store> store,
                  std::shared_ptr<const TopologyHolder> topology,
                  std::function<void()> onPublish);
  ~CollectorRunner();

  void start();
  /// See PeriodicTask. A run left behind publishes nothing.
  void requestStop();
  bool join(PeriodicTask::Clock::time_point deadline);
  CollectorHealth health() const;
  const std::string& name() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
  PeriodicTask task_;
};

}  // namespace fabricmon
