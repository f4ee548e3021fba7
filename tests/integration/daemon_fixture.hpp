#pragma once
// Shared set-up for tests that run the built fabricmon binary over a simulated node.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/simulator.hpp"
#include "tests/support/http_get.hpp"
#include "tests/support/process.hpp"

namespace fabricmon::testing {

inline std::filesystem::path makeTempDir(const std::string& tag) {
  std::string tmpl = (std::filesystem::temp_directory_path() / ("fabricmon-" + tag + "-XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp");
  return tmpl;
}

inline void writeFile(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

/// Runs `promtool check metrics` on `text`. Returns "" when it passes with nothing to say: every
/// warning is a failure (docs/metrics.md, "Names that promtool lints").
inline std::string promtoolProblems(const std::filesystem::path& scratch, const std::string& text) {
  writeFile(scratch, text);
  std::string out;
  const int code = runCommand({"sh", "-c", "promtool check metrics < '" + scratch.string() + "' 2>&1"}, &out);
  if (code != 0) return "promtool exit " + std::to_string(code) + ": " + out;
  if (out.find_first_not_of(" \t\r\n") != std::string::npos) return "promtool: " + out;
  return "";
}

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = makeTempDir("it"); }
  void TearDown() override {
    daemon_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  /// Writes a simulated node below dir_/node.
  sim::Simulator& simulate(const std::string& scenario = "healthy") {
    sim::SimOptions o;
    o.root = dir_ / "node";
    o.scenario = scenario;
    sim_ = std::make_unique<sim::Simulator>(o);
    const auto st = sim_->init();
    EXPECT_TRUE(st.ok()) << st.error().message;
    return *sim_;
  }

  std::vector<std::string> nodeArgs() const {
    const auto node = dir_ / "node";
    return {"--sysfs-root", (node / "sys").string(), "--ethtool-dir", (node / "ethtool").string(),
            "--dcb-dir", (node / "dcb").string(), "--fec-dir", (node / "fec").string()};
  }

  /// Starts fabricmon with `args` (+ --listen 127.0.0.1:0) and waits for its port.
  int start(std::vector<std::string> args) {
    std::vector<std::string> argv{FABRICMON_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--listen");
    argv.push_back("127.0.0.1:0");
    daemon_ = std::make_unique<ChildProcess>(argv);
    const auto port = daemon_->waitForPort(std::chrono::seconds(10));
    if (!port) ADD_FAILURE() << "daemon did not start:\n" << daemon_->output();
    port_ = port.value_or(0);
    return port_;
  }

  std::string metrics() { return httpGet(port_, "/metrics").body; }

  /// Scrapes until `pred(body)` holds or `timeout` passes; returns the last body.
  template <typename Pred>
  std::string scrapeUntil(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string body;
    while (std::chrono::steady_clock::now() < deadline) {
      body = metrics();
      if (pred(body)) return body;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return body;
  }

  /// Sends SIGTERM and returns the exit code (nullopt if it took longer than `limit`).
  std::optional<int> stop(std::chrono::milliseconds limit = std::chrono::milliseconds(2000)) {
    daemon_->signal(SIGTERM);
    return daemon_->wait(limit);
  }

  std::filesystem::path dir_;
  std::unique_ptr<sim::Simulator> sim_;
  std::unique_ptr<ChildProcess> daemon_;
  int port_ = 0;
};

}  // namespace fabricmon::testing
