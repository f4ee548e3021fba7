#include "daemon/periodic_task.hpp"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "model/thread_name.hpp"

namespace fabricmon {

// Everything the worker thread touches lives here, owned jointly by the task and the thread, so a
// detached worker never touches freed memory.
struct PeriodicTask::Shared {
  std::function<void()> work;
  std::mutex mutex;
  std::condition_variable wake;
  bool requested = false;
  bool stopping = false;
  std::atomic<int64_t> runningSinceNs{0};
  std::atomic<uint64_t> skipped{0};
  std::promise<void> exited;
  std::thread thread;
};

PeriodicTask::PeriodicTask(boost::asio::io_context& loop, std::string name, Duration interval,
                           std::function<void()> work)
    : name_(std::move(name)), interval_(interval), timer_(loop), shared_(std::make_shared<Shared>()) {
  shared_->work = std::move(work);
}

PeriodicTask::~PeriodicTask() { stop(std::chrono::milliseconds(0)); }

void PeriodicTask::start() {
  auto shared = shared_;
  // The thread is named after the task's last word: "collector hw_counters" runs as "hw_counters".
  const size_t space = name_.rfind(' ');
  std::string threadName = space == std::string::npos ? name_ : name_.substr(space + 1);
  shared->thread = std::thread([shared, threadName = std::move(threadName)] {
    nameThisThread(threadName);
    for (;;) {
      {
        std::unique_lock lock(shared->mutex);
        shared->wake.wait(lock, [&] { return shared->requested || shared->stopping; });
        if (shared->stopping) break;
        shared->requested = false;
      }
      shared->runningSinceNs.store(Clock::now().time_since_epoch().count());
      try {
        shared->work();
      } catch (const std::exception& e) {
        // No exception crosses a thread boundary (docs/architecture.md, "Errors"); work() should
        // not throw at all.
        spdlog::error("periodic task threw: {}", e.what());
      } catch (...) {
        spdlog::error("periodic task threw an unknown exception");
      }
      shared->runningSinceNs.store(0);
    }
    shared->exited.set_value();
  });
  next_ = Clock::now();
  {
    std::lock_guard lock(shared_->mutex);
    shared_->requested = true;
  }
  shared_->wake.notify_one();
  arm();
}

void PeriodicTask::arm() {
  next_ += interval_;
  const auto now = Clock::now();
  if (next_ < now) next_ = now + interval_;  // fell behind (a long run): do not fire a burst
  timer_.expires_at(next_);
  // A handler already queued when the task was stopped still runs (with success: cancel() reaches
  // only waits not yet completed), maybe after the task is gone. It holds the shared state itself
  // and touches `this` only while the task is not stopping, which a task is before it is destroyed.
  timer_.async_wait([this, shared = shared_](const boost::system::error_code& ec) {
    if (ec) return;
    {
      std::lock_guard lock(shared->mutex);
      if (shared->stopping) return;
      if (shared->requested || shared->runningSinceNs.load() != 0) {
        shared->skipped.fetch_add(1);
      } else {
        shared->requested = true;
      }
    }
    shared->wake.notify_one();
    arm();
  });
}

void PeriodicTask::requestStop() {
  timer_.cancel();
  {
    std::lock_guard lock(shared_->mutex);
    shared_->stopping = true;
  }
  shared_->wake.notify_one();
}

bool PeriodicTask::join(Clock::time_point deadline) {
  if (!shared_->thread.joinable()) return true;
  auto exited = shared_->exited.get_future();
  if (exited.wait_until(deadline) == std::future_status::ready) {
    shared_->thread.join();
    return true;
  }
  spdlog::warn("{}: a run is still blocked; leaving it behind", name_);
  shared_->thread.detach();
  return false;
}

PeriodicTask::Clock::time_point PeriodicTask::runningSince() const {
  return Clock::time_point(Clock::duration(shared_->runningSinceNs.load()));
}

uint64_t PeriodicTask::skippedTicks() const { return shared_->skipped.load(); }

}  // namespace fabricmon
