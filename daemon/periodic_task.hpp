#pragma once
// A job that runs every `interval` on a thread of its own, paced by a timer on the main Asio loop.
// A run that blocks (a sysfs read stuck in NIC firmware) stalls only this task: the timer skips
// ticks while a run is in progress, and stop() gives up waiting after a grace period.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "config/config.hpp"
#include "model/asio.hpp"

namespace fabricmon {

class PeriodicTask {
 public:
  using Clock = std::chrono::steady_clock;

  PeriodicTask(boost::asio::io_context& loop, std::string name, Duration interval,
               std::function<void()> work);
  ~PeriodicTask();
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  /// Starts the worker thread; the first run happens at once.
  void start();
  /// Stops the timer and asks the worker to exit after its current run, without waiting.
  void requestStop();
  /// Waits for the worker until `deadline`. Returns false if a run was still blocked then, in which
  /// case the worker thread is detached (it owns its state, so it stays safe to finish later).
  bool join(Clock::time_point deadline);
  /// requestStop() and join(now + grace).
  bool stop(std::chrono::milliseconds grace) {
    requestStop();
    return join(Clock::now() + grace);
  }
  /// When the current run started, or Clock::time_point{} when idle.
  Clock::time_point runningSince() const;
  const std::string& name() const { return name_; }
  Duration interval() const { return interval_; }
  uint64_t skippedTicks() const;

 private:
  struct Shared;
  void arm();

  std::string name_;
  Duration interval_;
  boost::asio::steady_timer timer_;
  Clock::time_point next_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace fabricmon
