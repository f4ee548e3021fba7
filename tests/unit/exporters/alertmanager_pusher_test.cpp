// The Alertmanager push queue (exporters/alertmanager_pusher.hpp) with a fake sender and an
// injected clock: what is sent when, retry with backoff, resend, endsAt on clear, the bound.
#include "exporters/alertmanager_pusher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>
#include <regex>
#include <sstream>

namespace fabricmon {
namespace {

using namespace std::chrono_literals;
using Clock = AlertmanagerPusher::Clock;
using WallClock = AlertmanagerPusher::WallClock;

Finding storm(const std::string& interface, WallClock::time_point since) {
  Finding f;
  f.rule = "pause_storm";
  f.severity = Severity::kCritical;
  f.labels = {{"interface", interface}, {"priority", "3"}, {"reason", "storm"}, {"device", ""}};
  f.since = since;
  f.summary = interface + " paused";
  f.evidence = {{"rx_pause_fraction", 0.995}};
  return f;
}

struct Fake {
  std::vector<std::pair<std::string, std::string>> posts;  // url, body
  bool fail = false;
  AlertmanagerPusher::Sender sender() {
    return [this](const std::string& url, const std::string& body) -> Status {
      posts.emplace_back(url, body);
      if (fail) return Error{"connection refused", ECONNREFUSED};
      return {};
    };
  }
};

AlertmanagerTarget target(std::vector<std::string> urls = {"http://am1"}) {
  AlertmanagerTarget t;
  t.urls = std::move(urls);
  t.resendInterval = 60s;
  t.instance = "gpu01:19110";
  t.generatorUrl = "http://gpu01:19110/";
  return t;
}

size_t count(const std::string& s, const std::string& needle) {
  size_t n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

TEST(AlertmanagerAlerts, NamesAndLabelsMatchTheShippedPrometheusAlert) {
  const auto wall = WallClock::time_point(1700000000s);
  const PushedAlert a = alertFor(storm("eth0", wall), "fabricmon", "gpu01:19110");
  const Labels want = {{"alertname", "FabricmonPauseStorm"}, {"instance", "gpu01:19110"}, {"interface", "eth0"},
                       {"job", "fabricmon"},  {"priority", "3"}, {"reason", "storm"},
                       {"rule", "pause_storm"}, {"severity", "critical"}};
  EXPECT_EQ(a.labels, want);  // sorted, the empty device label dropped as Prometheus drops it
  const std::string body = renderAlertsJson(std::vector<AlertToSend>{{&a, wall + 5s}}, "http://gpu01:19110/");
  EXPECT_NE(body.find("\"startsAt\":\"2023-11-14T22:13:20.000Z\""), std::string::npos) << body;
  EXPECT_NE(body.find("\"endsAt\":\"2023-11-14T22:13:25.000Z\""), std::string::npos) << body;
  EXPECT_NE(body.find("runbook.md#pause-storm"), std::string::npos) << body;
}

TEST(AlertmanagerAlerts, TheJobsAFindingHitAreAnAnnotationNotALabel) {
  const auto wall = WallClock::time_point(1700000000s);
  Finding f = storm("eth0", wall);
  EXPECT_EQ(alertFor(f, "fabricmon", "gpu01:19110").annotations.size(), 3u);  // none without jobs
  f.jobs = {"4711 (alice)", "4712 (bob)"};
  const PushedAlert a = alertFor(f, "fabricmon", "gpu01:19110");
  const Labels jobs{{"jobs", "4711 (alice), 4712 (bob)"}};
  EXPECT_NE(std::find(a.annotations.begin(), a.annotations.end(), jobs[0]), a.annotations.end());
  // A label would make every new job a new alert to Alertmanager.
  for (const auto& [name, value] : a.labels) EXPECT_NE(name, "jobs");
}

// Every watchdog alert of deploy/prometheus/fabricmon.rules.yml is named as alertNameFor names the
// rule, so a pushed alert and Prometheus' alert are the same alert to Alertmanager.
TEST(AlertmanagerAlerts, EveryWatchdogAlertOfTheRulesFileHasThePushedName) {
  std::ifstream in(FABRICMON_SOURCE_DIR "/deploy/prometheus/fabricmon.rules.yml");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  static const std::regex kAlert(R"re(- alert: (\w+)\s+expr: fabricmon_watchdog_active\{rule="(\w+)"\})re");
  size_t seen = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), kAlert), end; it != end; ++it) {
    EXPECT_EQ(alertNameFor((*it)[2].str()), (*it)[1].str());
    ++seen;
  }
  EXPECT_GE(seen, 7u);
}

TEST(AlertmanagerPusher, SendsANewFindingOnceThenOnlyOnResend) {
  Fake fake;
  AlertmanagerPusher p(target(), fake.sender());
  const auto t0 = Clock::now();
  const auto wall = WallClock::now();
  p.update(std::vector<Finding>{storm("eth0", wall)}, wall);
  EXPECT_TRUE(fake.posts.empty()) << "update() must never send";
  p.deliver(t0, wall);
  ASSERT_EQ(fake.posts.size(), 1u);
  EXPECT_EQ(fake.posts[0].first, "http://am1");
  EXPECT_EQ(count(fake.posts[0].second, "\"alertname\":\"FabricmonPauseStorm\""), 1u);
  // Unchanged and not due: nothing more.
  p.update(std::vector<Finding>{storm("eth0", wall)}, wall + 1s);
  p.deliver(t0 + 10s, wall + 10s);
  EXPECT_EQ(fake.posts.size(), 1u);
  // Due: the active alert again, its endsAt pushed out.
  p.deliver(t0 + 61s, wall + 61s);
  ASSERT_EQ(fake.posts.size(), 2u);
  EXPECT_EQ(count(fake.posts[1].second, "FabricmonPauseStorm"), 1u);
}

TEST(AlertmanagerPusher, AClearedFindingIsSentWithItsEndAndThenForgotten) {
  Fake fake;
  AlertmanagerPusher p(target(), fake.sender());
  const auto t0 = Clock::now();
  const auto wall = WallClock::time_point(1700000000s);
  p.update(std::vector<Finding>{storm("eth0", wall)}, wall);
  p.deliver(t0, wall);
  p.update(std::vector<Finding>{}, wall + 7s);
  EXPECT_EQ(p.alertCount(), 1u);
  p.deliver(t0 + 1s, wall + 8s);
  ASSERT_EQ(fake.posts.size(), 2u);
  EXPECT_NE(fake.posts[1].second.find("\"endsAt\":\"2023-11-14T22:13:27.000Z\""), std::string::npos)
      << fake.posts[1].second;
  EXPECT_EQ(p.alertCount(), 0u);
}

TEST(AlertmanagerPusher, RetriesWithGrowingBackoffAndDeliversEverythingPendingOnRecovery) {
  Fake fake;
  fake.fail = true;
  AlertmanagerPusher p(target(), fake.sender());
  const auto t0 = Clock::now();
  const auto wall = WallClock::now();
  p.update(std::vector<Finding>{storm("eth0", wall)}, wall);
  const auto retry1 = p.deliver(t0, wall);
  EXPECT_EQ(p.failedCount(0), 1u);
  EXPECT_GT(retry1, t0);
  // Before the retry is due nothing is attempted, however often the loop wakes.
  p.deliver(t0 + 1ms, wall);
  EXPECT_EQ(fake.posts.size(), 1u);
  // Attempts at each due time back off up to the cap.
  auto due = retry1;
  Clock::duration lastGap{};
  for (int i = 0; i < 6; ++i) {
    const auto next = p.deliver(due, wall);
    const auto gap = next - due;
    EXPECT_GE(gap, lastGap);
    EXPECT_LE(gap, AlertmanagerPusher::kMaxRetry + 50ms);
    lastGap = gap;
    due = next;
  }
  EXPECT_EQ(p.failedCount(0), 7u);
  // A second finding starts during the outage and the first one clears: both states arrive at once.
  p.update(std::vector<Finding>{storm("eth1", wall + 2s)}, wall + 3s);
  fake.fail = false;
  p.deliver(due, wall + 4s);
  const std::string& body = fake.posts.back().second;
  EXPECT_EQ(count(body, "\"alertname\""), 2u) << body;
  EXPECT_EQ(p.alertCount(), 1u);  // the cleared one is done; eth1 stays active
  const size_t posts = fake.posts.size();
  p.deliver(due + 1s, wall + 5s);
  EXPECT_EQ(fake.posts.size(), posts) << "nothing left to send";
}

TEST(AlertmanagerPusher, EachAlertmanagerAcknowledgesOnItsOwn) {
  Fake ok, down;
  down.fail = true;
  AlertmanagerPusher p(target({"http://am1", "http://am2"}), [&](const std::string& url, const std::string& body) {
    return url == "http://am1" ? ok.sender()(url, body) : down.sender()(url, body);
  });
  const auto t0 = Clock::now();
  const auto wall = WallClock::now();
  p.update(std::vector<Finding>{storm("eth0", wall)}, wall);
  p.update(std::vector<Finding>{}, wall + 1s);  // cleared before any delivery
  p.deliver(t0, wall + 1s);
  EXPECT_EQ(ok.posts.size(), 1u);
  EXPECT_EQ(down.posts.size(), 1u);
  EXPECT_EQ(p.alertCount(), 1u) << "am2 has not acknowledged the resolution yet";
  down.fail = false;
  p.deliver(t0 + 10s, wall + 10s);
  EXPECT_EQ(ok.posts.size(), 1u) << "am1 already has it";
  EXPECT_EQ(down.posts.size(), 2u);
  EXPECT_EQ(p.alertCount(), 0u);
}

// The pipeline thread calls update() every pass: it must return while the sender thread is stuck in
// a request that never ends (a hung Alertmanager).
TEST(AlertmanagerPusher, UpdateNeverWaitsForARequestInFlight) {
  std::mutex m;
  std::condition_variable cv;
  bool inFlight = false, release = false;
  AlertmanagerPusher p(target(), [&](const std::string&, const std::string&) -> Status {
    std::unique_lock lock(m);
    inFlight = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    return {};
  });
  p.start();
  const auto wall = WallClock::now();
  p.update(std::vector<Finding>{storm("eth0", wall)}, wall);
  {
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return inFlight; })) << "the sender thread never sent";
  }
  auto updates = std::async(std::launch::async, [&] {
    for (int i = 0; i < 100; ++i) p.update(std::vector<Finding>{storm("eth" + std::to_string(i % 3), wall)}, wall);
    (void)p.metricsBatch();
  });
  EXPECT_EQ(updates.wait_for(10s), std::future_status::ready) << "update() blocked behind the request";
  {
    std::lock_guard lock(m);
    release = true;
  }
  cv.notify_all();
  p.stop();
}

TEST(AlertmanagerPusher, TheQueueIsBounded) {
  Fake fake;
  AlertmanagerPusher p(target(), fake.sender());
  const auto wall = WallClock::now();
  std::vector<Finding> many;
  for (size_t i = 0; i < AlertmanagerPusher::kMaxAlerts + 5; ++i) many.push_back(storm("eth" + std::to_string(i), wall));
  p.update(many, wall);
  EXPECT_EQ(p.alertCount(), AlertmanagerPusher::kMaxAlerts);
  const auto batch = p.metricsBatch();
  double dropped = -1;
  for (const auto& s : batch->samples) {
    if (s.series->family == &AlertmanagerPusher::kDroppedFamily) dropped = s.value;
  }
  EXPECT_EQ(dropped, 5);
}

}  // namespace
}  // namespace fabricmon
