// Reload is a transaction (issue 16 item 1) and start-up errors say what failed once: the real
// binary, driven by SIGHUP, with the new listen port held by another socket.

#include <gtest/gtest.h>
#include <signal.h>

#include <regex>
#include <thread>

#include "tests/integration/daemon_fixture.hpp"
#include "tests/robustness/robustness_support.hpp"

namespace fabricmon::testing {
namespace {

class ReloadTest : public DaemonTest {
 protected:
  /// Starts the daemon with only --config (so web.listen comes from the file and can change).
  int startWithConfig(const std::filesystem::path& config) {
    std::vector<std::string> argv{FABRICMON_BINARY, "run", "--config", config.string()};
    const auto node = nodeArgs();
    argv.insert(argv.end(), node.begin(), node.end());
    daemon_ = std::make_unique<ChildProcess>(argv);
    const auto port = daemon_->waitForPort(std::chrono::seconds(10));
    if (!port) ADD_FAILURE() << "daemon did not start:\n" << daemon_->output();
    return port.value_or(0);
  }
  static size_t occurrences(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
    return n;
  }
  /// Waits until `needle` occurs `count` times in the output.
  bool waitForCount(const std::string& needle, size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      if (occurrences(daemon_->output(), needle) >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

TEST_F(ReloadTest, UnbindablePortIsRejectedTheOldEndpointServesAndALaterReloadWorks) {
  simulate();
  int portB = 0;
  const int holder = listenLocal(portB);  // another program owns the new port
  ASSERT_GE(holder, 0);
  const auto config = dir_ / "fabricmon.yaml";
  writeFile(config, "web:\n  listen: 127.0.0.1:0\n");
  const int portA = startWithConfig(config);
  ASSERT_GT(portA, 0);
  EXPECT_EQ(seriesValue(httpGet(portA, "/metrics").body, "fabricmon_config_last_reload_successful"), 1.0);

  writeFile(config, "web:\n  listen: 127.0.0.1:" + std::to_string(portB) + "\n");
  for (int i = 1; i <= 3; ++i) {
    daemon_->signal(SIGHUP);
    ASSERT_TRUE(waitForCount("reload rejected", static_cast<size_t>(i))) << daemon_->output();
    const auto r = httpGet(portA, "/metrics");
    ASSERT_EQ(r.status, 200) << "reload " << i << " took the working endpoint down\n" << daemon_->output();
    port_ = portA;
    const std::string body = scrapeUntil(
        [](const std::string& b) { return seriesValue(b, "fabricmon_config_last_reload_successful") == 0.0; });
    EXPECT_EQ(seriesValue(body, "fabricmon_config_last_reload_successful"), 0.0);
    EXPECT_FALSE(daemon_->wait(std::chrono::milliseconds(1)).has_value()) << "the daemon died";
  }
  // The reason is said once per reload, naming the address once.
  EXPECT_EQ(occurrences(daemon_->output(), "listen on 127.0.0.1:" + std::to_string(portB) + ": listen on"), 0u);

  ::close(holder);
  daemon_->signal(SIGHUP);
  ASSERT_TRUE(daemon_->waitForOutput("serving http://127.0.0.1:" + std::to_string(portB) + "/metrics",
                                     std::chrono::seconds(5)))
      << daemon_->output();
  port_ = portB;
  const std::string moved = scrapeUntil(
      [](const std::string& b) { return seriesValue(b, "fabricmon_config_last_reload_successful") == 1.0; });
  EXPECT_EQ(seriesValue(moved, "fabricmon_config_last_reload_successful"), 1.0);
  EXPECT_EQ(httpGet(portA, "/metrics", "", std::chrono::milliseconds(500)).status, 0)
      << "the old address still answers after the move";
  EXPECT_EQ(stop(), 0);
}

TEST_F(ReloadTest, BrokenWebConfigOnTheSameAddressKeepsTheEndpoint) {
  simulate();
  int port = 0;
  const int probe = listenLocal(port);
  ::close(probe);
  const auto config = dir_ / "fabricmon.yaml";
  const auto web = dir_ / "web.yml";
  writeFile(web, "");
  writeFile(config, "web:\n  listen: 127.0.0.1:" + std::to_string(port) + "\n  config_file: " + web.string() + "\n");
  ASSERT_EQ(startWithConfig(config), port);
  writeFile(web, "tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /nonexistent.key\n");
  for (int i = 1; i <= 2; ++i) {
    daemon_->signal(SIGHUP);
    ASSERT_TRUE(waitForCount("reload rejected", static_cast<size_t>(i))) << daemon_->output();
    EXPECT_EQ(httpGet(port, "/metrics").status, 200) << daemon_->output();
  }
  writeFile(web, "");
  daemon_->signal(SIGHUP);
  ASSERT_TRUE(daemon_->waitForOutput("reloading configuration", std::chrono::seconds(5)));
  EXPECT_TRUE(waitForCount("serving http://127.0.0.1:" + std::to_string(port), 2));
  port_ = port;
  const std::string body = scrapeUntil(
      [](const std::string& b) { return seriesValue(b, "fabricmon_config_last_reload_successful") == 1.0; });
  EXPECT_EQ(seriesValue(body, "fabricmon_config_last_reload_successful"), 1.0);
  EXPECT_EQ(stop(), 0);
}

TEST_F(ReloadTest, PortTakenAtStartSaysTheAddressOnce) {
  simulate();
  int port = 0;
  const int holder = listenLocal(port);
  ASSERT_GE(holder, 0);
  std::vector<std::string> argv{FABRICMON_BINARY, "run", "--listen", "127.0.0.1:" + std::to_string(port)};
  const auto node = nodeArgs();
  argv.insert(argv.end(), node.begin(), node.end());
  ChildProcess child(argv);
  const auto code = child.wait(std::chrono::seconds(10));
  ::close(holder);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 1);
  const std::string out = child.output();
  EXPECT_EQ(occurrences(out, "listen on 127.0.0.1:" + std::to_string(port)), 1u) << out;
  EXPECT_NE(out.find("EADDRINUSE"), std::string::npos) << out;
}

TEST_F(ReloadTest, SighupStormDuringScrapesNeverDropsTheEndpoint) {
  simulate();
  const auto config = dir_ / "fabricmon.yaml";
  writeFile(config, "web:\n  listen: 127.0.0.1:0\nlog:\n  level: info\n");
  const int port = startWithConfig(config);
  ASSERT_GT(port, 0);
  int failures = 0;
  // Replaced by rename, as config management does: a reload never sees a half-written file (an
  // empty one is a valid config with the default listen address).
  auto replace = [&](const std::string& text) {
    writeFile(dir_ / "next.yaml", text);
    std::filesystem::rename(dir_ / "next.yaml", config);
  };
  for (int i = 0; i < 60; ++i) {
    // Alternate a good, an invalid and an unparsable config while scraping.
    if (i % 3 == 1) replace("web:\n  listen: 127.0.0.1:0\npoll:\n  interval: -1s\n");
    if (i % 3 == 2) replace("web: [\n");
    if (i % 3 == 0) replace("web:\n  listen: 127.0.0.1:0\nlog:\n  level: info\n");
    daemon_->signal(SIGHUP);
    const auto r = httpGet(port, "/metrics");
    if (r.status != 200) {
      ++failures;
      std::printf("scrape %d: status %d %s\n", i, r.status, r.body.substr(0, 80).c_str());
    }
  }
  EXPECT_FALSE(daemon_->wait(std::chrono::milliseconds(1)).has_value()) << "the daemon died";
  // Port 0 on an unchanged listen string keeps the bound port: every scrape reaches it.
  EXPECT_EQ(failures, 0) << daemon_->output().substr(0, 4000);
  EXPECT_EQ(stop(std::chrono::seconds(5)), 0);
}

}  // namespace
}  // namespace fabricmon::testing
