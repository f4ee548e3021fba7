#pragma once
// The on-node watchdog (docs/contract.md §5, docs/rules.md): judges the sampled counters every
// poll, far faster than a Prometheus scrape could, and publishes findings, their gauges and peak
// gauges.

#include <chrono>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "config/config.hpp"
#include "model/finding.hpp"
#include "model/sample.hpp"
#include "model/store.hpp"

namespace fabricmon {

namespace watchdog {
class Engine;
}
struct PendingState;

/// Owns the rule engine. evaluate() (the pipeline's thread) and reconfigure() (a SIGHUP, on the
/// App's thread) are serialised by one lock; metricsBatch() and activeFindings() may be called from
/// any thread.
class Watchdog {
 public:
  Watchdog(WatchdogConfig config, QosConfig qos);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// SIGHUP: keeps the history, applies the new thresholds and windows; findings of a rule that is
  /// now switched off are cleared.
  void reconfigure(WatchdogConfig config, QosConfig qos);
  /// Ingests the batches of `snapshot` it has not seen yet and evaluates every enabled rule.
  /// Called right after each publish. `now` dates the peak gauges; `wallNow` is a finding's `since`.
  void evaluate(const Snapshot& snapshot, std::chrono::steady_clock::time_point now,
                std::chrono::system_clock::time_point wallNow);
  /// Collector "watchdog": fabricmon_watchdog_active, fabricmon_watchdog_transitions_total and the
  /// peak gauges, as of the last evaluate() or reconfigure().
  BatchPtr metricsBatch() const;
  /// The findings active now, ordered by rule and subject.
  std::vector<Finding> activeFindings() const;
  /// Keeps what must outlive a restart (rules' persistent memory, the recurrence history) in the
  /// state file `path` (watchdog/state_file.hpp): it is read now and taken back at the next
  /// evaluate(); from then on it is written every `interval` by evaluate() and by flushState().
  /// An unreadable file is ignored with a logged warning. "" = no state file.
  void useStateFile(std::string path, std::chrono::milliseconds interval);
  /// Writes the state file now (at shutdown, after the last evaluate()); on the evaluating thread
  /// or once it stopped. The write (which fsyncs) runs on a thread of its own that holds only the
  /// document: false when it had not finished by `deadline` (a stalled disk), in which case the
  /// previous file stays whole (a temporary file renamed over it) and the caller must end the
  /// process without waiting for that thread.
  bool flushState(std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());
  /// Every family metricsBatch() may contain.
  static std::span<const FamilyDef* const> families();

 private:
  void publish(std::chrono::steady_clock::time_point now, std::chrono::system_clock::time_point wallNow);

  void saveState();

  /// The engine is one thread's at a time: a reload re-plans the history (its rings, its pools)
  /// while the pipeline may be evaluating; unguarded, the two raced (soak_5min's daemon died in a
  /// reload that came during a pass).
  std::mutex engineMutex_;
  std::unique_ptr<watchdog::Engine> engine_;
  std::string statePath_;
  std::chrono::milliseconds stateInterval_{0};
  std::chrono::steady_clock::time_point lastSave_{}, lastNow_{};
  std::chrono::system_clock::time_point lastWall_{};
  bool evaluated_ = false;
  std::unique_ptr<PendingState> pending_;     ///< read, not yet taken back
  bool saveFailing_ = false;                       ///< log a failure once, and its recovery
  mutable std::mutex outputMutex_;  // guards the two published values below
  BatchPtr batch_;
  std::shared_ptr<const std::vector<Finding>> findings_;
};

}  // namespace fabricmon
