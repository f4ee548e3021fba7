// Connections cannot be hoarded (issue 16 item 2): while one client keeps 500 idle connections
// open, or 200 slowloris connections trickle a header byte every 2 s, a scraper every 250 ms gets
// its /metrics (>= 99 %, p99 < 100 ms), and the daemon's descriptors and memory stay bounded.
// Also malformed and oversized requests: each gets an answer or a close, never a hang or a crash.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "tests/integration/daemon_fixture.hpp"
#include "tests/robustness/robustness_support.hpp"

namespace fabricmon::testing {
namespace {

using Clock = std::chrono::steady_clock;

struct ScrapeStats {
  int attempts = 0;
  int ok = 0;
  double p99Ms = 0;
};

// One scrape every 250 ms for `duration`.
ScrapeStats scrapeEvery250ms(int port, std::chrono::seconds duration) {
  ScrapeStats stats;
  std::vector<double> ms;
  const auto end = Clock::now() + duration;
  while (Clock::now() < end) {
    const auto t0 = Clock::now();
    const auto r = httpGet(port, "/metrics", "", std::chrono::milliseconds(2000));
    const double took = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    ++stats.attempts;
    if (r.status == 200 && r.body.find("fabricmon_build_info") != std::string::npos) ++stats.ok;
    ms.push_back(r.status == 200 ? took : 1e9);
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds(250));
  }
  std::sort(ms.begin(), ms.end());
  if (!ms.empty()) stats.p99Ms = ms[std::min(ms.size() - 1, static_cast<size_t>(0.99 * ms.size()))];
  return stats;
}

// Holds `count` connections to the port, opening a new one whenever the server closes one, and
// calls `tick(fd)` on each about every `period` (nothing, or one more header byte).
class Hoarder {
 public:
  Hoarder(int port, int count, std::chrono::milliseconds period, std::string opening, bool trickle)
      : port_(port), count_(count), period_(period), opening_(std::move(opening)), trickle_(trickle) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Hoarder() {
    stop_ = true;
    thread_.join();
    for (int fd : fds_) if (fd >= 0) ::close(fd);
  }
  int reconnects() const { return reconnects_; }

 private:
  int open() {
    const int fd = connectLocal(port_);
    if (fd >= 0 && !opening_.empty()) sendAll(fd, opening_);
    return fd;
  }
  void loop() {
    fds_.assign(count_, -1);
    auto nextTick = Clock::now() + period_;
    while (!stop_) {
      int opened = 0;
      for (int& fd : fds_) {
        if (stop_) break;
        if (fd < 0) {
          // At most kOpensPerRound new connections every 20 ms (1250/s): still every one of the
          // server's 64 slots taken back about every 50 ms. Unbounded, the hoarder made ~8000
          // connections a second, and the TIME_WAIT sockets they leave (56000 after 9 s) ran the
          // loopback out of ports for the scraper: a failure of this machine, not of the server.
          if (opened == kOpensPerRound) continue;
          fd = open();
          ++opened;
          ++reconnects_;
          continue;
        }
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 0) > 0) {  // the server closed it (or answered): take another slot
          char buf[512];
          if (::recv(fd, buf, sizeof buf, MSG_DONTWAIT) <= 0) {
            ::close(fd);
            fd = -1;
          }
        }
      }
      if (trickle_ && Clock::now() >= nextTick) {
        for (int& fd : fds_) {
          if (fd >= 0 && !sendAll(fd, "a")) {
            ::close(fd);
            fd = -1;
          }
        }
        nextTick = Clock::now() + period_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  static constexpr int kOpensPerRound = 25;
  int port_, count_;
  std::chrono::milliseconds period_;
  std::string opening_;
  bool trickle_;
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::atomic<int> reconnects_{0};
  std::thread thread_;
};

class ConnectionsTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    // 500 client sockets plus the test's own.
    raiseFileLimit(4096);
    simulate();
    ASSERT_GT(start(nodeArgs()), 0);
    // Counter files are opened at their first poll: measure once every collector has run.
    scrapeUntil([](const std::string& b) { return b.find("fabricmon_dcqcn") != std::string::npos; });
    std::this_thread::sleep_for(std::chrono::seconds(2));
    baselineFds_ = fdCount(daemon_->pid());
    baselineRss_ = rssKiB(daemon_->pid());
  }
  void expectBounded() {
    // 64 connections at most, plus a few in the middle of being closed.
    EXPECT_LT(fdCount(daemon_->pid()), baselineFds_ + 64 + 16);
    EXPECT_LT(rssKiB(daemon_->pid()), baselineRss_ + 64 * 1024);
  }
  size_t baselineFds_ = 0;
  long baselineRss_ = 0;
};

// A client locked out waits for a hoarder's whole hold (2 s) or its own timeout; a served one answers
// in a few ms (8-12 ms measured with two busy loops on the 2 cores).
constexpr double kScrapeP99BoundMs = 100.0;

TEST_F(ConnectionsTest, FiveHundredIdleConnectionsDoNotStarveTheScraper) {
  Hoarder hoarder(port_, 500, std::chrono::milliseconds(2000), "", false);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // let it fill every slot first
  const ScrapeStats s = scrapeEvery250ms(port_, std::chrono::seconds(10));
  RecordProperty("scrape_success", std::to_string(s.ok) + "/" + std::to_string(s.attempts));
  RecordProperty("scrape_p99_ms", std::to_string(s.p99Ms));
  std::printf("idle hoarding: %d/%d scrapes ok, p99 %.1f ms, %d hoarder reconnects\n", s.ok, s.attempts,
              s.p99Ms, hoarder.reconnects());
  EXPECT_GE(s.ok * 100, s.attempts * 99) << s.ok << "/" << s.attempts;
  EXPECT_LT(s.p99Ms, kScrapeP99BoundMs);
  expectBounded();
}

TEST_F(ConnectionsTest, TwoHundredSlowlorisConnectionsDoNotStarveTheScraper) {
  Hoarder hoarder(port_, 200, std::chrono::milliseconds(2000),
                  "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ", true);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const ScrapeStats s = scrapeEvery250ms(port_, std::chrono::seconds(10));
  std::printf("slowloris: %d/%d scrapes ok, p99 %.1f ms, %d hoarder reconnects\n", s.ok, s.attempts, s.p99Ms,
              hoarder.reconnects());
  EXPECT_GE(s.ok * 100, s.attempts * 99) << s.ok << "/" << s.attempts;
  EXPECT_LT(s.p99Ms, kScrapeP99BoundMs);
  expectBounded();
}

TEST_F(ConnectionsTest, MalformedAndOversizedRequestsGetAnAnswerOrAClose) {
  const std::string big(64 * 1024, 'a');
  const std::vector<std::string> requests = {
      "\r\n\r\n",
      "GET\r\n\r\n",
      "GET /metrics\r\n\r\n",
      "GET /metrics HTTP/9.9\r\n\r\n",
      "GARBAGE /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "GET /" + big + " HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nX: " + big + "\r\n\r\n",
      "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + big,
      "GET /metrics HTTP/1.1\r\nHost: x\r\n" + std::string(2000, '\n'),
      std::string("GET /metrics HTTP/1.1\r\nHost: \0\xff\xfe\r\n\r\n", 34),
      "GET /../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /metrics?" + std::string(7000, '%') + " HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: " + std::string(7000, ',') + "\r\n\r\n",
  };
  for (const auto& req : requests) {
    const int fd = connectLocal(port_);
    ASSERT_GE(fd, 0);
    sendAll(fd, req);
    ::shutdown(fd, SHUT_WR);
    const auto t0 = Clock::now();
    const std::string answer = recvAll(fd, std::chrono::seconds(8));
    ::close(fd);
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(7)) << "no answer and no close for: " << req.substr(0, 60);
    if (!answer.empty()) {
      EXPECT_EQ(answer.rfind("HTTP/1.1 ", 0), 0u) << answer.substr(0, 80);
    }
    EXPECT_NE(answer.find("/etc/passwd"), 0u);
  }
  EXPECT_EQ(httpGet(port_, "/metrics").status, 200) << daemon_->output();
  EXPECT_FALSE(daemon_->wait(std::chrono::milliseconds(1)).has_value());
}

}  // namespace
}  // namespace fabricmon::testing
