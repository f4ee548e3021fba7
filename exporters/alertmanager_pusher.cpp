#include "exporters/alertmanager_pusher.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

#include "model/thread_name.hpp"

namespace fabricmon {

const FamilyDef AlertmanagerPusher::kSentFamily{
    "fabricmon_alertmanager_notifications_sent_total",
    "Batches of alerts Alertmanager accepted (POST /api/v2/alerts answered 2xx), by Alertmanager "
    "URL.",
    MetricType::kCounter, "batches", "alertmanager"};
const FamilyDef AlertmanagerPusher::kFailedFamily{
    "fabricmon_alertmanager_notifications_failed_total",
    "Batches of alerts that did not reach Alertmanager (refused, timed out, TLS or auth failure, "
    "non-2xx answer), by Alertmanager URL; each is retried with backoff.",
    MetricType::kCounter, "batches", "alertmanager"};
const FamilyDef AlertmanagerPusher::kDroppedFamily{
    "fabricmon_alertmanager_alerts_dropped_total",
    "Alerts given up because the push queue held its maximum number of alerts.",
    MetricType::kCounter, "alerts", ""};
const FamilyDef AlertmanagerPusher::kPendingFamily{
    "fabricmon_alertmanager_pending_alerts",
    "Alerts whose latest state (firing or resolved) some Alertmanager has not acknowledged yet.",
    MetricType::kGauge, "alerts", ""};

std::span<const FamilyDef* const> AlertmanagerPusher::families() {
  static constexpr std::array<const FamilyDef*, 4> kAll{&kSentFamily, &kFailedFamily, &kDroppedFamily,
                                                        &kPendingFamily};
  return kAll;
}

namespace {

// Alertmanager resolves an alert that is not re-sent before its endsAt; Prometheus sets it to
// 4 x max(resend delay, evaluation interval) (rules/alerting.go, sendAlerts), so do we.
constexpr int kValidForResends = 4;

}  // namespace

AlertmanagerPusher::AlertmanagerPusher(AlertmanagerTarget target, Sender sender)
    : target_(std::move(target)), sender_(std::move(sender)) {
  if (!sender_) {
    sender_ = [this](const std::string& url, const std::string& body) -> Status {
      HttpClientOptions client;
      {
        std::lock_guard lock(mutex_);
        client = target_.client;
      }
      auto r = httpRequest("POST", url + "/api/v2/alerts", client, body, "application/json",
                           size_t{1} << 20, &cancel_);
      if (!r) return r.error();
      if (r->status < 200 || r->status > 299) {
        std::string why = r->body.substr(0, 200);
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
        return Error{"POST " + url + "/api/v2/alerts: HTTP " + std::to_string(r->status) +
                         (why.empty() ? "" : ": " + why),
                     EIO};
      }
      return {};
    };
  }
  droppedSeries_ = makeSeries(kDroppedFamily, {});
  pendingSeries_ = makeSeries(kPendingFamily, {});
  resetUrls();
}

AlertmanagerPusher::~AlertmanagerPusher() { stop(); }

void AlertmanagerPusher::resetUrls() {
  ++urlsEpoch_;
  urls_.assign(target_.urls.size(), PerUrl{});
  for (size_t i = 0; i < urls_.size(); ++i) {
    urls_[i].sentSeries = makeSeries(kSentFamily, {{"alertmanager", target_.urls[i]}});
    urls_[i].failedSeries = makeSeries(kFailedFamily, {{"alertmanager", target_.urls[i]}});
  }
  for (auto& [key, e] : alerts_) e.acked.assign(urls_.size(), 0);
}

void AlertmanagerPusher::start() {
  thread_ = std::thread([this] {
    nameThisThread("alertmanager");
    run();
  });
}

void AlertmanagerPusher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cancel_.store(true);
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AlertmanagerPusher::reconfigure(AlertmanagerTarget target) {
  {
    std::lock_guard lock(mutex_);
    if (target == target_) return;
    target_ = std::move(target);
    resetUrls();
    kicked_ = true;
  }
  wake_.notify_all();
}

void AlertmanagerPusher::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    Clock::time_point next;
    try {
      next = deliver(Clock::now(), WallClock::now());
    } catch (const std::exception& e) {
      spdlog::error("alertmanager: delivery round failed: {}", e.what());
      next = Clock::now() + kMaxRetry;
    }
    lock.lock();
    wake_.wait_until(lock, next, [this] { return stopping_ || kicked_; });
    kicked_ = false;
  }
}

void AlertmanagerPusher::update(std::span<const Finding> active, WallClock::time_point wallNow) {
  bool changed = false;
  {
    std::lock_guard lock(mutex_);
    std::vector<std::string> seen;
    seen.reserve(active.size());
    for (const Finding& f : active) {
      PushedAlert alert = alertFor(f, target_.job, target_.instance);
      std::string key = alertKey(alert.labels);
      auto it = alerts_.find(key);
      if (it == alerts_.end()) {
        if (alerts_.size() >= kMaxAlerts) {
          // Make room by forgetting the oldest resolved alert (Alertmanager resolves it on its own
          // at its endsAt); with none, this new alert is the one given up.
          auto victim = std::find_if(alerts_.begin(), alerts_.end(), [](const auto& kv) { return !kv.second.active; });
          ++dropped_;
          if (victim == alerts_.end()) continue;
          alerts_.erase(victim);
        }
        Entry e;
        e.alert = std::move(alert);
        e.version = nextVersion_++;
        e.acked.assign(urls_.size(), 0);
        it = alerts_.emplace(key, std::move(e)).first;
        changed = true;
      } else if (!it->second.active) {
        it->second.alert = std::move(alert);
        it->second.active = true;
        it->second.version = nextVersion_++;
        changed = true;
      }
      seen.push_back(std::move(key));
    }
    std::sort(seen.begin(), seen.end());
    for (auto& [key, e] : alerts_) {
      if (e.active && !std::binary_search(seen.begin(), seen.end(), key)) {
        e.active = false;
        e.endsAt = wallNow;
        e.version = nextVersion_++;
        changed = true;
      }
    }
    if (changed) kicked_ = true;
  }
  if (changed) wake_.notify_all();
}

AlertmanagerPusher::Clock::time_point AlertmanagerPusher::deliver(Clock::time_point now,
                                                                  WallClock::time_point wallNow) {
  std::unique_lock lock(mutex_);
  const auto validFor = kValidForResends * target_.resendInterval;
  for (size_t i = 0; i < urls_.size() && !stopping_; ++i) {
    if (now < urls_[i].retryAt) continue;
    // After a failure Alertmanager may have restarted and lost what it had: send everything active.
    const bool resend = now >= urls_[i].nextResend || urls_[i].failing;
    std::vector<AlertToSend> batch;
    std::vector<std::pair<std::string, uint64_t>> carried;
    for (const auto& [key, e] : alerts_) {
      const bool pending = e.acked[i] != e.version;
      if (!pending && !(resend && e.active)) continue;
      batch.push_back({&e.alert, e.active ? wallNow + validFor : e.endsAt});
      carried.emplace_back(key, e.version);
    }
    if (batch.empty()) {
      if (resend) urls_[i].nextResend = now + target_.resendInterval;
      continue;
    }
    const std::string body = renderAlertsJson(batch, target_.generatorUrl);
    const std::string url = target_.urls[i];
    const Sender sender = sender_;
    const auto epoch = urlsEpoch_;
    lock.unlock();
    const Status st = sender(url, body);
    lock.lock();
    if (stopping_) break;  // the request was abandoned for shutdown: not a failure of Alertmanager's
    if (urlsEpoch_ != epoch) break;  // reconfigured meanwhile: the next round starts afresh
    PerUrl& u = urls_[i];
    if (st) {
      ++u.sent;
      for (const auto& [key, version] : carried) {
        auto it = alerts_.find(key);
        if (it != alerts_.end() && it->second.version == version) it->second.acked[i] = version;
      }
      if (u.failing) {
        spdlog::info("alertmanager: {} accepts alerts again", url);
      }
      u.failing = false;
      u.backoff = std::chrono::milliseconds(0);
      u.retryAt = {};
      if (resend) u.nextResend = now + target_.resendInterval;
    } else {
      ++u.failed;
      if (!u.failing) {
        spdlog::warn("alertmanager: cannot deliver alerts to {}: {}; retrying with backoff (logged once "
                     "until it recovers)", url, st.error().message);
      }
      u.failing = true;
      u.backoff = u.backoff.count() == 0 ? kFirstRetry : std::min(2 * u.backoff, kMaxRetry);
      u.retryAt = now + u.backoff;
    }
  }
  // A resolved alert every Alertmanager has acknowledged is done.
  std::erase_if(alerts_, [](const auto& kv) {
    const Entry& e = kv.second;
    return !e.active && std::all_of(e.acked.begin(), e.acked.end(), [&](uint64_t v) { return v == e.version; });
  });
  Clock::time_point next = now + target_.resendInterval;
  for (size_t i = 0; i < urls_.size(); ++i) {
    const bool pending = std::any_of(alerts_.begin(), alerts_.end(),
                                     [&](const auto& kv) { return kv.second.acked[i] != kv.second.version; });
    const auto due = pending || urls_[i].failing ? std::max(urls_[i].retryAt, now) : urls_[i].nextResend;
    next = std::min(next, due);
  }
  return next;
}

BatchPtr AlertmanagerPusher::metricsBatch() const {
  auto batch = std::make_shared<Batch>();
  batch->collector = "alertmanager";
  batch->monotonic = Clock::now();
  batch->wall = WallClock::now();
  SampleWriter out(*batch);
  std::lock_guard lock(mutex_);
  for (const PerUrl& u : urls_) {
    out.add(u.sentSeries, static_cast<double>(u.sent));
    out.add(u.failedSeries, static_cast<double>(u.failed));
  }
  out.add(droppedSeries_, static_cast<double>(dropped_));
  size_t pending = 0;
  for (const auto& [key, e] : alerts_) {
    pending += std::any_of(e.acked.begin(), e.acked.end(), [&](uint64_t v) { return v != e.version; });
  }
  out.add(pendingSeries_, static_cast<double>(pending));
  out.finish();
  return batch;
}

size_t AlertmanagerPusher::alertCount() const {
  std::lock_guard lock(mutex_);
  return alerts_.size();
}

uint64_t AlertmanagerPusher::failedCount(size_t i) const {
  std::lock_guard lock(mutex_);
  return i < urls_.size() ? urls_[i].failed : 0;
}

}  // namespace fabricmon
