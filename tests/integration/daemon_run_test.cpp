// The real binary over a simulated node: serving, signals, reload, vanishing devices, bad files.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <regex>

#include "tests/integration/daemon_fixture.hpp"

namespace fabricmon::testing {
namespace {

bool has(const std::string& body, const std::string& needle) { return body.find(needle) != std::string::npos; }

class RunTest : public DaemonTest {};

TEST_F(RunTest, ServesEveryDeviceOfTheSimulatedNodeAndPassesPromtool) {
  simulate();
  auto args = nodeArgs();
  args.insert(args.end(), {"--poll-interval", "200ms"});
  ASSERT_NE(start(args), 0);
  const std::string body = scrapeUntil([](const std::string& b) {
    // Every collector publishes on its own schedule: wait for hw_counters' first good run too, so a
    // loaded machine does not catch the first snapshot before it.
    return has(b, "fabricmon_port_state{device=\"mlx5_8\"") && has(b, "fabricmon_pma_stat_total") &&
           has(b, "fabricmon_collector_up{collector=\"hw_counters\"} 1");
  });
  for (int i = 0; i <= 8; ++i) {
    const std::string dev = "mlx5_" + std::to_string(i);
    EXPECT_TRUE(has(body, "fabricmon_device_info{device=\"" + dev + "\"")) << dev;
    EXPECT_TRUE(has(body, "fabricmon_port_state{device=\"" + dev + "\",port=\"1\"} 4")) << dev;
  }
  EXPECT_TRUE(has(body, "fabricmon_build_info{"));
  EXPECT_TRUE(has(body, "fabricmon_collector_up{collector=\"hw_counters\"} 1"));

  const auto health = httpGet(port_, "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(httpGet(port_, "/").status, 200);
  EXPECT_EQ(httpGet(port_, "/api/v1/findings").status, 200);

  if (std::filesystem::exists("/usr/bin/promtool")) {
    EXPECT_EQ(promtoolProblems(dir_ / "scrape.prom", body), "");
  }
  EXPECT_EQ(stop(), std::optional<int>(0)) << daemon_->output();
}

TEST_F(RunTest, CountersFollowTheFilesWhileRunning) {
  auto& sim = simulate("congested");
  auto args = nodeArgs();
  args.insert(args.end(), {"--poll-interval", "100ms"});
  ASSERT_NE(start(args), 0);
  const std::string series = "fabricmon_roce_ecn_marked_packets_total{device=\"mlx5_0\",port=\"1\"}";
  const std::string first = scrapeUntil([&](const std::string& b) { return !std::isnan(seriesValue(b, series)); });
  const double before = seriesValue(first, series);
  ASSERT_FALSE(std::isnan(before)) << first.substr(0, 2000);
  ASSERT_TRUE(sim.tick(std::chrono::seconds(5)).ok());
  const std::string later = scrapeUntil([&](const std::string& b) { return seriesValue(b, series) > before; });
  EXPECT_GT(seriesValue(later, series), before);
}

TEST_F(RunTest, SigIntAlsoStopsCleanly) {
  simulate();
  ASSERT_NE(start(nodeArgs()), 0);
  daemon_->signal(SIGINT);
  EXPECT_EQ(daemon_->wait(std::chrono::milliseconds(2000)), std::optional<int>(0));
}

TEST_F(RunTest, NoRdmaDevicesStillServesHealthMetrics) {
  std::filesystem::create_directories(dir_ / "emptysys");
  ASSERT_NE(start({"--sysfs-root", (dir_ / "emptysys").string(), "--ethtool-dir", dir_.string(), "--dcb-dir",
                   dir_.string()}),
            0);
  const std::string up = "fabricmon_collector_up{collector=\"rdma_port\"} 1";
  const std::string body = scrapeUntil([&](const std::string& b) { return has(b, up); });
  EXPECT_TRUE(has(body, up)) << body;
  EXPECT_FALSE(has(body, "fabricmon_port_state"));
  EXPECT_TRUE(daemon_->waitForOutput("no RDMA devices", std::chrono::seconds(2)));
  EXPECT_EQ(stop(), std::optional<int>(0));
}

TEST_F(RunTest, VanishedDeviceLeavesTheNextSnapshot) {
  simulate();
  writeFile(dir_ / "fast.yaml", "poll:\n  interval: 100ms\n  discovery_interval: 200ms\n");
  auto args = nodeArgs();
  args.insert(args.end(), {"--config", (dir_ / "fast.yaml").string()});
  ASSERT_NE(start(args), 0);
  const std::string needle = "device=\"mlx5_3\"";
  ASSERT_TRUE(has(scrapeUntil([&](const std::string& b) { return has(b, needle); }), needle));
  // Remove the device as a driver unbind would: the class link and the device directory.
  const auto sys = dir_ / "node" / "sys";
  const auto target = std::filesystem::canonical(sys / "class/infiniband/mlx5_3");
  std::filesystem::remove(sys / "class/infiniband/mlx5_3");
  std::filesystem::remove_all(target);
  const std::string after = scrapeUntil([&](const std::string& b) { return !has(b, needle) && has(b, "mlx5_2"); });
  EXPECT_FALSE(has(after, needle));
  EXPECT_TRUE(has(after, "device=\"mlx5_2\""));
  EXPECT_EQ(stop(), std::optional<int>(0));
}

TEST_F(RunTest, ExportOnlyFilesWaitForTheirIntervalWhenOneIsSet) {
  simulate();
  const auto dir = dir_ / "node/sys/class/infiniband/mlx5_0/ports/1/hw_counters";
  ASSERT_TRUE(std::filesystem::exists(dir / "out_of_buffer"));
  const auto cfg = dir_ / "fabricmon.yaml";
  writeFile(cfg, "poll:\n  interval: 100ms\n  export_only_interval: 25s\n");
  auto args = nodeArgs();
  args.insert(args.end(), {"--config", cfg.string()});
  ASSERT_NE(start(args), 0);
  // No rule or window family reads out_of_buffer; the watchdog reads np_cnp_sent.
  const std::string cold = "fabricmon_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"out_of_buffer\"}";
  const std::string hot = "fabricmon_roce_cnp_sent_total{device=\"mlx5_0\",port=\"1\"}";
  scrapeUntil([&](const std::string& b) { return !std::isnan(seriesValue(b, cold)) && !std::isnan(seriesValue(b, hot)); });
  writeFile(dir / "out_of_buffer", "777000\n");  // in place: the directory does not change
  writeFile(dir / "np_cnp_sent", "888000\n");
  std::string body = scrapeUntil([&](const std::string& b) { return seriesValue(b, hot) == 888000; });
  ASSERT_EQ(seriesValue(body, hot), 888000) << "read at every poll";
  EXPECT_NE(seriesValue(body, cold), 777000) << "an export-only file waits for its interval";
  // A reload starts the collectors again, and their first poll reads every file.
  daemon_->signal(SIGHUP);
  body = scrapeUntil([&](const std::string& b) { return seriesValue(b, cold) == 777000; });
  EXPECT_EQ(seriesValue(body, cold), 777000);
  EXPECT_EQ(stop(), std::optional<int>(0));
}

TEST_F(RunTest, FifoInPlaceOfACounterIsASkippedValueNotAHang) {
  simulate();
  const auto counter = dir_ / "node/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error";
  ASSERT_TRUE(std::filesystem::exists(counter));
  std::filesystem::remove(counter);
  ASSERT_EQ(::mkfifo(counter.c_str(), 0644), 0);
  writeFile(dir_ / "fast.yaml", "poll:\n  interval: 100ms\n  slow_interval: 200ms\n  stale_after: 2s\n");
  auto args = nodeArgs();
  args.insert(args.end(), {"--config", (dir_ / "fast.yaml").string()});
  ASSERT_NE(start(args), 0);
  const std::string errors = "fabricmon_collector_errors_total{collector=\"pma_counters\"}";
  const std::string body = scrapeUntil([&](const std::string& b) { return seriesValue(b, errors) > 0; });
  EXPECT_GT(seriesValue(body, errors), 0);
  EXPECT_FALSE(has(body, "fabricmon_port_symbol_errors_total{device=\"mlx5_0\""));
  EXPECT_TRUE(has(body, "fabricmon_port_symbol_errors_total{device=\"mlx5_1\""));
  EXPECT_EQ(stop(), std::optional<int>(0));
}

TEST_F(RunTest, SighupAppliesAGoodConfigAndKeepsTheOldOneOnABadOne) {
  simulate();
  const auto cfg = dir_ / "fabricmon.yaml";
  writeFile(cfg, "poll:\n  interval: 100ms\n");
  auto args = nodeArgs();
  args.insert(args.end(), {"--config", cfg.string()});
  ASSERT_NE(start(args), 0);
  const std::string roce = "fabricmon_roce_cnp_sent_total{device=\"mlx5_0\"";
  ASSERT_TRUE(has(scrapeUntil([&](const std::string& b) { return has(b, roce); }), roce));

  writeFile(cfg, "poll:\n  interval: 100ms\ncollectors:\n  hw_counters:\n    enabled: false\n");
  daemon_->signal(SIGHUP);
  const std::string disabled = scrapeUntil([&](const std::string& b) { return !has(b, roce); });
  EXPECT_FALSE(has(disabled, roce)) << "hw_counters should be off after the reload";

  writeFile(cfg, "poll:\n  interval: [oops\n");
  daemon_->signal(SIGHUP);
  EXPECT_TRUE(daemon_->waitForOutput("reload rejected", std::chrono::seconds(3))) << daemon_->output();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::string still = metrics();
  EXPECT_TRUE(has(still, "fabricmon_port_state{device=\"mlx5_0\""));
  EXPECT_FALSE(has(still, roce)) << "the old (reloaded) config must stay in force";
  EXPECT_EQ(stop(), std::optional<int>(0));
}

TEST_F(RunTest, DemoServesTheSimulatedNodeAndRemovesItsDirectory) {
  std::vector<std::string> argv{FABRICMON_BINARY, "demo", "--scenario", "congested", "--listen", "127.0.0.1:0",
                                "--poll-interval", "200ms"};
  daemon_ = std::make_unique<ChildProcess>(argv);
  const auto port = daemon_->waitForPort(std::chrono::seconds(10));
  ASSERT_TRUE(port) << daemon_->output();
  port_ = *port;
  EXPECT_TRUE(daemon_->waitForOutput("fabricmon demo (congested scenario): http://127.0.0.1:",
                                     std::chrono::seconds(3)))
      << daemon_->output();
  const std::string body = scrapeUntil([](const std::string& b) { return has(b, "fabricmon_pfc_pause_seconds_total"); });
  EXPECT_TRUE(has(body, "fabricmon_pfc_pause_seconds_total{interface="));
  if (std::filesystem::exists("/usr/bin/promtool")) {
    EXPECT_EQ(promtoolProblems(dir_ / "demo.prom", body), "") << "the demo's exposition lints clean";
  }
  std::smatch m;
  const std::string out = daemon_->output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(simulated node in (\S+))")));
  const std::filesystem::path demoDir = m[1].str();
  EXPECT_TRUE(std::filesystem::exists(demoDir / "sys/class/infiniband"));
  EXPECT_EQ(stop(), std::optional<int>(0));
  EXPECT_FALSE(std::filesystem::exists(demoDir));
}

}  // namespace
}  // namespace fabricmon::testing
