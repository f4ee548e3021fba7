#pragma once
// Pushes the watchdog's findings to Alertmanager's v2 API on a thread of its own, so that a dead,
// slow or refusing Alertmanager never delays sampling, rules or /metrics (docs/deployment.md).
//
// The queue holds alerts, not events: each alert (one per finding, keyed by its label set) is
// pending for every URL that has not acknowledged its latest state. A finding that starts and
// clears during an outage is one entry whose latest state (resolved) is sent when Alertmanager is
// back; the queue is bounded by the number of alerts (kMaxAlerts), not by how long an outage lasts.
// Re-sending an alert Alertmanager already has is harmless: it merges alerts by label set.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "exporters/alertmanager_alerts.hpp"
#include "outbound/http_client.hpp"
#include "model/result.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// Where and how to push: AlertmanagerConfig with its secrets read (daemon/alertmanager_target.hpp).
struct AlertmanagerTarget {
  std::vector<std::string> urls;  ///< base URLs, no trailing slash
  HttpClientOptions client;
  std::chrono::milliseconds resendInterval{60000};
  std::string job = "fabricmon";
  std::string instance;
  std::string generatorUrl;  ///< the node's status page

  bool operator==(const AlertmanagerTarget&) const = default;
};

class AlertmanagerPusher {
 public:
  using Clock = std::chrono::steady_clock;
  using WallClock = std::chrono::system_clock;
  /// Sends one body to one base URL; an error (transport failure or non-2xx) is a failed delivery.
  using Sender = std::function<Status(const std::string& url, const std::string& body)>;

  static constexpr size_t kMaxAlerts = 1000;
  static constexpr std::chrono::milliseconds kFirstRetry{250};
  static constexpr std::chrono::milliseconds kMaxRetry{4000};

  static const FamilyDef kSentFamily;
  static const FamilyDef kFailedFamily;
  static const FamilyDef kDroppedFamily;
  static const FamilyDef kPendingFamily;
  static std::span<const FamilyDef* const> families();

  /// `sender` empty = HTTP POST to URL/api/v2/alerts with target.client.
  explicit AlertmanagerPusher(AlertmanagerTarget target, Sender sender = {});
  ~AlertmanagerPusher();
  AlertmanagerPusher(const AlertmanagerPusher&) = delete;
  AlertmanagerPusher& operator=(const AlertmanagerPusher&) = delete;

  void start();
  void stop();
  /// SIGHUP: new URLs, auth or labels. Alerts keep their state; every URL gets them all again.
  void reconfigure(AlertmanagerTarget target);

  /// The findings active now (pipeline thread). Never waits for the network: it only updates the
  /// queue under a short lock and wakes the sender.
  void update(std::span<const Finding> active, WallClock::time_point wallNow);

  /// One delivery round at `now` (the sender thread's loop body; tests call it directly).
  /// Returns when the next round is due.
  Clock::time_point deliver(Clock::time_point now, WallClock::time_point wallNow);

  /// fabricmon_alertmanager_* series as of now.
  BatchPtr metricsBatch() const;

  /// Tests: alerts held (active or pending), and notifications failed so far for URL `i`.
  size_t alertCount() const;
  uint64_t failedCount(size_t i) const;

 private:
  struct Entry {
    PushedAlert alert;
    bool active = true;
    WallClock::time_point endsAt{};
    uint64_t version = 0;           ///< bumped on every change of state
    std::vector<uint64_t> acked;    ///< per URL: the version it acknowledged (0 = none)
  };
  struct PerUrl {
    Clock::time_point retryAt{};
    Clock::time_point nextResend{};
    std::chrono::milliseconds backoff{0};
    bool failing = false;
    uint64_t sent = 0, failed = 0;
    SeriesPtr sentSeries, failedSeries;
  };
  void resetUrls();
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  AlertmanagerTarget target_;
  Sender sender_;
  std::map<std::string, Entry> alerts_;
  std::vector<PerUrl> urls_;
  uint64_t nextVersion_ = 1;
  uint64_t urlsEpoch_ = 0;  ///< bumped by resetUrls: a delivery in flight then belongs to nobody
  uint64_t dropped_ = 0;
  bool stopping_ = false;
  std::atomic<bool> cancel_{false};  // aborts a request in flight at stop()
  bool kicked_ = false;
  SeriesPtr droppedSeries_, pendingSeries_;
  std::thread thread_;
};

}  // namespace fabricmon
