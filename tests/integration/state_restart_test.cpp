// The state file across a restart of the real daemon (issue #22): link_ber's pre-FEC BER baseline,
// learned over a simulated node, is there again right after a restart, long before it could have
// been learned anew; without the file it is not.
#include <gtest/gtest.h>

#include <thread>

#include "tests/integration/daemon_fixture.hpp"

namespace fabricmon::testing {
namespace {

constexpr const char* kIf = "enp24s0np0";  // the simulator's first RoCE port

class StateRestartTest : public DaemonTest {
 protected:
  std::vector<std::string> args(const std::filesystem::path& state) {
    const auto cfg = dir_ / ("fabricmon-" + state.parent_path().filename().string() + ".yaml");
    // Parts of 10 s (240 s / 24); one learned part is a baseline.
    writeFile(cfg, "poll:\n  interval: 250ms\nstate:\n  path: " + state.string() +
                       "\n  interval: 10s\nwatchdog:\n  rules:\n    link_ber:\n      window: 20s\n"
                       "      baseline_window: 240s\n      baseline_min_parts: 1\n");
    std::filesystem::create_directories(state.parent_path());
    auto a = nodeArgs();
    a.insert(a.begin(), {"run", "--config", cfg.string()});
    return a;
  }
  /// Moves the simulated node on for `seconds` of real time (the daemon reads it meanwhile).
  void run(sim::Simulator& sim, double seconds) {
    for (int i = 0; i < seconds * 4; ++i) {
      ASSERT_TRUE(sim.tick(std::chrono::milliseconds(250)).ok());
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }
};

TEST_F(StateRestartTest, TheBaselineOutlivesARestart) {
  auto& sim = simulate("healthy");
  const auto state = dir_ / "state" / "state.json";
  const std::string baseline = std::string("fabricmon_link_pre_fec_ber_baseline{interface=\"") + kIf + "\"}";
  const auto hasBaseline = [&](const std::string& body) { return body.find(baseline) != std::string::npos; };

  ASSERT_NE(start(args(state)), 0);
  run(sim, 2);
  // The first part completes 10 to 20 s after the start; the gauge shows it learned.
  std::string body;
  for (int i = 0; i < 100 && !hasBaseline(body); ++i) {
    run(sim, 0.25);
    body = metrics();
  }
  ASSERT_TRUE(hasBaseline(body)) << "no baseline learned in 25 s";
  ASSERT_EQ(stop(), std::optional<int>(0));
  ASSERT_TRUE(std::filesystem::exists(state));
  std::ifstream in(state);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(saved.find("\"link_ber\""), std::string::npos) << saved;
  EXPECT_NE(saved.find(kIf), std::string::npos) << saved;
  EXPECT_FALSE(std::filesystem::exists(state.string() + ".tmp"));

  // Restarted with the file: the baseline is back within the first seconds.
  ASSERT_NE(start(args(state)), 0);
  run(sim, 1);
  EXPECT_TRUE(hasBaseline(scrapeUntil(hasBaseline, std::chrono::seconds(3)))) << daemon_->output();
  ASSERT_EQ(stop(), std::optional<int>(0));

  // Without it (a fresh state directory), the same seconds show none: it would take a part to learn.
  ASSERT_NE(start(args(dir_ / "fresh" / "state.json")), 0);
  run(sim, 1);
  EXPECT_FALSE(hasBaseline(metrics()));
  ASSERT_EQ(stop(), std::optional<int>(0));
}

TEST_F(StateRestartTest, AnUnreadableStateFileIsIgnoredWithAWarning) {
  simulate("healthy");
  const auto state = dir_ / "state" / "state.json";
  writeFile(state, "{ this is not json");
  ASSERT_NE(start(args(state)), 0);
  ASSERT_EQ(stop(), std::optional<int>(0));
  EXPECT_NE(daemon_->output().find("state file"), std::string::npos) << daemon_->output();
  EXPECT_NE(daemon_->output().find("ignored"), std::string::npos) << daemon_->output();
  // Replaced by a good one at shutdown.
  std::ifstream in(state);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(saved.find("\"version\": 1"), std::string::npos) << saved;
}

}  // namespace
}  // namespace fabricmon::testing
