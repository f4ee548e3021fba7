// A NIC whose firmware stopped answering, as the daemon meets it on a real kernel: the reads of one
// port's hw_counters hang in the kernel (a FUSE file system, tests/integration/stall_fs.py, mounted
// over the simulated port's directory: a read waits in request_wait_answer, uninterruptible, as a
// sysfs show() waits for mlx5_cmd_exec). The daemon must name that port while the read hangs
// (fabricmon_nic_read_wait_seconds, nic_unresponsive) and go back to 0 once the read returns, and a
// reload while the read hangs must leave that read behind (docs/architecture.md, "Threads"), not wait
// for it, forget it or die when it finally returns.
// Skipped, with the reason, where FUSE cannot be mounted (no /dev/fuse, no privilege, no fusepy).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <thread>

#include "tests/integration/daemon_fixture.hpp"

namespace fabricmon::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kPython = "/usr/bin/python3";  // Debian's, where python3-fusepy installs

class WedgedNicTest : public DaemonTest {
 protected:
  void SetUp() override {
    if (::access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "no usable /dev/fuse";
    std::string out;
    if (runCommand({kPython, "-c", "import fusepy"}, &out) != 0) GTEST_SKIP() << "no python3-fusepy: " << out;
    DaemonTest::SetUp();
    simulate("healthy");
    const auto node = dir_ / "node" / "sys";
    counters_ = std::filesystem::canonical(node / "class/infiniband/mlx5_0/ports/1/hw_counters");
    backing_ = dir_ / "backing";
    std::filesystem::create_directories(backing_);
    for (const auto& e : std::filesystem::directory_iterator(counters_)) {
      std::filesystem::rename(e.path(), backing_ / e.path().filename());
    }
    flag_ = dir_ / "stall";
    fs_ = std::make_unique<ChildProcess>(std::vector<std::string>{
        kPython, std::string(FABRICMON_SOURCE_DIR) + "/tests/integration/stall_fs.py", backing_.string(),
        counters_.string(), flag_.string()});
    if (!fs_->waitForOutput("ready", 30s)) GTEST_SKIP() << "cannot mount FUSE here: " << fs_->output();
    mounted_ = true;
    writeFile(dir_ / "wedged.yaml",
              "poll:\n  interval: 1s\n"
              "watchdog:\n  rules:\n    nic_unresponsive:\n      wait_limit: 3s\n      clear_after: 20s\n");
    ASSERT_NE(start([&] {
                auto a = nodeArgs();
                a.insert(a.begin(), {"--config", (dir_ / "wedged.yaml").string()});
                return a;
              }()),
              0);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove(flag_, ec);  // lets a hanging read return before anything stops
    if (daemon_) stop(10s);
    if (mounted_) runCommand({"umount", "-l", counters_.string()});
    if (fs_) {
      fs_->signal(SIGTERM);
      fs_->wait(5s);
    }
    DaemonTest::TearDown();
  }
  std::string findings() { return httpGet(port_, "/api/v1/findings").body; }
  std::string waitUntilFinding(const std::string& rule) {
    std::string f;
    for (int i = 0; i < 50 && f.find(rule) == std::string::npos; ++i) {
      f = findings();
      if (f.find(rule) == std::string::npos) std::this_thread::sleep_for(200ms);
    }
    return f;
  }
  /// The wait series of hw_counters on mlx5_0 port 1 (NaN when absent).
  double waitSeconds(const std::string& body) {
    for (size_t at = body.find("fabricmon_nic_read_wait_seconds{"); at != std::string::npos;
         at = body.find("fabricmon_nic_read_wait_seconds{", at + 1)) {
      const std::string line = body.substr(at, body.find('\n', at) - at);
      if (line.find("collector=\"hw_counters\"") == std::string::npos) continue;
      if (line.find("device=\"mlx5_0\"") == std::string::npos || line.find("port=\"1\"") == std::string::npos) continue;
      if (line.find("pci_address=\"\"") != std::string::npos) return -1;  // attributed without its function
      return std::stod(line.substr(line.rfind(' ') + 1));
    }
    return NAN;
  }

  std::filesystem::path counters_, backing_, flag_;
  std::unique_ptr<ChildProcess> fs_;
  bool mounted_ = false;
};

TEST_F(WedgedNicTest, AHangingCounterReadNamesItsPortUntilItReturns) {
  const std::string healthy = scrapeUntil(
      [](const std::string& b) { return b.find("fabricmon_roce_cnp_sent_total{device=\"mlx5_0\",port=\"1\"}") != std::string::npos; },
      20s);
  ASSERT_NE(healthy.find("fabricmon_roce_cnp_sent_total{device=\"mlx5_0\",port=\"1\"}"), std::string::npos)
      << "the port's hw_counters are read through the mount";
  EXPECT_TRUE(std::isnan(waitSeconds(healthy))) << "nothing waits on a healthy node";
  EXPECT_EQ(findings().find("nic_unresponsive"), std::string::npos);

  std::ofstream(flag_) << "1\n";  // the firmware stops answering
  const std::string stuck = scrapeUntil([&](const std::string& b) { return waitSeconds(b) >= 3; }, 20s);
  EXPECT_GE(waitSeconds(stuck), 3) << stuck.substr(0, 2000);
  const std::string f = waitUntilFinding("nic_unresponsive");
  EXPECT_NE(f.find("\"rule\":\"nic_unresponsive\""), std::string::npos) << f;
  EXPECT_NE(f.find("\"severity\":\"critical\""), std::string::npos) << f;
  EXPECT_NE(f.find("\"device\":\"mlx5_0\""), std::string::npos) << f;
  EXPECT_NE(f.find("\"reason\":\"hw_counters\""), std::string::npos) << f;
  EXPECT_NE(f.find("/hw_counters/"), std::string::npos) << "the summary names the file: " << f;
  EXPECT_NE(stuck.find("fabricmon_watchdog_active{rule=\"nic_unresponsive\""), std::string::npos);

  std::filesystem::remove(flag_);  // the command completes
  const std::string back = scrapeUntil([&](const std::string& b) { return waitSeconds(b) == 0; }, 20s);
  EXPECT_EQ(waitSeconds(back), 0) << "returned: 0, kept for the rule's clear_after";
  EXPECT_NE(findings().find("nic_unresponsive"), std::string::npos) << "the finding holds clear_after";
  const std::string cleared = scrapeUntil(
      [&](const std::string&) { return findings().find("nic_unresponsive") == std::string::npos; }, 40s);
  EXPECT_EQ(findings().find("nic_unresponsive"), std::string::npos) << "cleared 20 s after the read returned";
}

// A reload stops every collector and starts them again; the run stuck in the firmware cannot be
// stopped. The reload must not wait for it, every other collector must go on, the port must stay
// named while reads of it hang, and the process must live on when the thread left behind returns.
TEST_F(WedgedNicTest, AReloadWhileAReadHangsLeavesTheReadBehindAndSamplingGoesOn) {
  const std::string rdmaUp = "fabricmon_collector_last_success_timestamp_seconds{collector=\"rdma_port\"}";
  const std::string cnp = "fabricmon_roce_cnp_sent_total{device=\"mlx5_0\",port=\"1\"}";
  ASSERT_NE(scrapeUntil([&](const std::string& b) { return b.find(cnp) != std::string::npos; }, 20s).find(cnp),
            std::string::npos);
  std::ofstream(flag_) << "1\n";
  scrapeUntil([&](const std::string& b) { return waitSeconds(b) >= 3; }, 20s);
  ASSERT_NE(waitUntilFinding("nic_unresponsive").find("\"rule\":\"nic_unresponsive\""), std::string::npos);
  const double waitedBefore = waitSeconds(metrics());
  ASSERT_GE(waitedBefore, 3);

  // A changed rule setting: the reload is applied, not rejected.
  writeFile(dir_ / "wedged.yaml",
            "poll:\n  interval: 1s\n"
            "watchdog:\n  rules:\n    nic_unresponsive:\n      wait_limit: 3s\n      clear_after: 25s\n");
  const auto sent = std::chrono::steady_clock::now();
  daemon_->signal(SIGHUP);
  ASSERT_TRUE(daemon_->waitForOutput("reloading configuration", 5s)) << daemon_->output();
  // The reload gives a stuck run its grace (1 s) and goes on: the other collectors run again.
  const std::string before = metrics();
  const double rdmaBefore = seriesValue(before, rdmaUp);
  ASSERT_FALSE(std::isnan(rdmaBefore)) << before.substr(0, 2000);
  const std::string moving = scrapeUntil([&](const std::string& b) { return seriesValue(b, rdmaUp) > rdmaBefore + 1; }, 10s);
  EXPECT_GT(seriesValue(moving, rdmaUp), rdmaBefore + 1) << "rdma_port samples on after the reload";
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 10s);
  EXPECT_NE(moving.find("fabricmon_port_state{device=\"mlx5_1\""), std::string::npos);

  // The read left behind still waits, and the port stays named by it: the wait counts on from the
  // first read, it does not start again with the new run's (which meets the same firmware).
  for (int i = 0; i < 3; ++i) {
    const double waited = waitSeconds(metrics());
    EXPECT_GE(waited, waitedBefore + 1) << "a pass after the reload, read " << i;
    std::this_thread::sleep_for(1s);
  }
  EXPECT_NE(findings().find("\"rule\":\"nic_unresponsive\""), std::string::npos);

  // The firmware answers: both the run left behind and the new one return. The process survives
  // the old thread's return, and the port's counters come back from the new run.
  std::filesystem::remove(flag_);
  const std::string back = scrapeUntil([&](const std::string& b) { return waitSeconds(b) == 0; }, 20s);
  EXPECT_EQ(waitSeconds(back), 0) << back.substr(0, 2000);
  std::this_thread::sleep_for(2s);
  const std::string after = metrics();
  EXPECT_NE(after.find(cnp), std::string::npos);
  EXPECT_EQ(httpGet(port_, "/healthz").status, 200) << httpGet(port_, "/healthz").body;
  EXPECT_EQ(stop(5s), std::optional<int>(0)) << daemon_->output();
}

}  // namespace
}  // namespace fabricmon::testing
