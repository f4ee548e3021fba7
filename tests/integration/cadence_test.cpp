// A pause storm through the running daemon at every NIC counter cadence and in every vendor's
// dialect: the simulator (a separate process, as on a real node the NIC is) starts a 99.8 % storm
// after a healthy baseline, on a NIC that refreshes its counters every `refresh` (0 = on every read,
// like mlx5), and the daemon polls every `poll`. The storm must be flagged within
// 2 x max(refresh, poll) + 2 s of the first refresh that shows it (docs/rules.md, "Counter refresh
// cadence"), and its peak gauge must read the true fraction.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <regex>
#include <string>
#include <thread>

#include "tests/integration/daemon_fixture.hpp"

namespace fabricmon::testing {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr double kFaultAt = 6.0;
constexpr const char* kIf = "enp24s0np0";  // the simulator's affected port (mlx5_0)

struct Cadence {
  const char* vendor;
  double refresh;  ///< seconds; < 0 = the vendor's default
  double poll;
  /// < 0: the daemon starts as soon as the node exists, at whatever phase that gives. Otherwise the
  /// daemon starts kDaemonStartsAt after the simulator and the storm `phase` polls after a whole
  /// number of polls from there (the daemon polls on a steady timer from its start; its own start-up
  /// takes some tens of ms, so the phase is that much later).
  double phase = -1;
};

constexpr double kDaemonStartsAt = 1.0;

void PrintTo(const Cadence& c, std::ostream* os) {
  *os << c.vendor << " " << c.refresh << " " << c.poll << " phase " << c.phase;
}

std::string ms(double seconds) { return std::to_string(static_cast<int>(std::lround(seconds * 1000))) + "ms"; }

/// The value of the first sample of `metric` whose label set contains every `needles` entry.
std::optional<double> sampleOf(const std::string& text, const std::string& metric,
                               const std::vector<std::string>& needles) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(metric + "{", 0) != 0) continue;
    bool all = true;
    for (const auto& n : needles) all = all && line.find(n) != std::string::npos;
    if (all) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return std::nullopt;
}

class CadenceThroughDaemon : public DaemonTest, public ::testing::WithParamInterface<Cadence> {};

TEST_P(CadenceThroughDaemon, StormFlaggedInTimeWithItsTruePeak) {
  const Cadence c = GetParam();
  const auto node = dir_ / "node";
  const double faultAt =
      c.phase < 0 ? kFaultAt
                  : kDaemonStartsAt + (std::ceil((kFaultAt - kDaemonStartsAt) / c.poll) + c.phase) * c.poll;
  std::vector<std::string> simArgs{FABRICSIM_BINARY, "--root",     node.string(), "--scenario", "pause-storm",
                                   "--vendor",       c.vendor,     "--interval",  "50ms",       "--fault-at",
                                   ms(faultAt)};
  if (c.refresh >= 0) {
    simArgs.push_back("--counter-refresh");
    simArgs.push_back(c.refresh == 0 ? "0" : ms(c.refresh));
  }
  ChildProcess sim(simArgs);
  ASSERT_TRUE(sim.waitForOutput("fabricmon --sysfs-root", 10s)) << sim.output();
  const auto t0 = Clock::now();  // simulated time 0: the banner follows init()
  const double refresh = c.refresh >= 0 ? c.refresh : (std::string(c.vendor) == "bnxt" ? 1.0 : 0.0);
  // The NIC shows the storm at its first refresh after the onset.
  const double shownAt = refresh > 0 ? std::ceil(faultAt / refresh - 1e-9) * refresh : faultAt;

  auto args = nodeArgs();
  args.insert(args.begin(), "run");
  args.insert(args.end(), {"--poll-interval", ms(c.poll)});
  if (c.phase >= 0) std::this_thread::sleep_until(t0 + std::chrono::duration<double>(kDaemonStartsAt));
  start(args);

  std::optional<double> flaggedAt;
  const auto deadline = t0 + std::chrono::duration<double>(faultAt + 25);
  bool framesUsed = false;
  while (Clock::now() < deadline && !flaggedAt) {
    const auto response = httpGet(port_, "/api/v1/findings");
    ASSERT_EQ(response.status, 200);
    const double at = std::chrono::duration<double>(Clock::now() - t0).count();
    if (response.body.find("\"rule\":\"pause_storm\"") != std::string::npos &&
        response.body.find("\"reason\":\"storm\"") != std::string::npos &&
        response.body.find(kIf) != std::string::npos) {
      EXPECT_GE(at, faultAt) << "flagged before the storm began: " << response.body;
      flaggedAt = at;
      framesUsed = response.body.find("\"frame_detector\":1") != std::string::npos;
    }
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(flaggedAt) << "storm never flagged\n" << daemon_->output();
  const double budget = 2 * std::max(refresh, c.poll) + 2;
  std::cout << "flagged " << (*flaggedAt - shownAt) << " s after the storm showed (budget " << budget << " s)\n";
  // +0.5 s: this test's own 100 ms polling and a loaded CI machine; the benchmark reports exact figures.
  EXPECT_LE(*flaggedAt - shownAt, budget + 0.5) << "flagged " << (*flaggedAt - shownAt) << " s after it showed";

  if (!framesUsed) {
    // The peak gauge records rates over at least a second (docs/rules.md): let it see one second of
    // nothing but storm, or two judged intervals when the NIC refreshes slower than that.
    std::this_thread::sleep_for(std::chrono::duration<double>(std::max(1.5, 2 * std::max(refresh, c.poll))));
    const std::string metrics = httpGet(port_, "/metrics").body;
    const auto peak = sampleOf(metrics, "fabricmon_pause_fraction_peak",
                               {"interface=\"" + std::string(kIf) + "\"", "priority=\"3\"", "direction=\"rx\""});
    ASSERT_TRUE(peak) << "no peak gauge";
    EXPECT_GE(*peak, 0.9);
    EXPECT_LE(*peak, 1.0);
    if (refresh >= 1) {
      const auto learned = sampleOf(metrics, "fabricmon_counter_refresh_seconds",
                                    {"collector=\"ethtool_pfc\"", "interface=\"" + std::string(kIf) + "\""});
      ASSERT_TRUE(learned);
      EXPECT_NEAR(*learned, refresh, 0.3 * refresh);
    }
  }
  EXPECT_EQ(stop(), std::optional<int>(0));
}

INSTANTIATE_TEST_SUITE_P(
    RefreshTimesPoll, CadenceThroughDaemon,
    ::testing::Values(Cadence{"mlx5", 0, 0.25}, Cadence{"mlx5", 0, 1}, Cadence{"mlx5", 0.2, 0.25},
                      Cadence{"mlx5", 0.2, 1}, Cadence{"mlx5", 1, 0.25}, Cadence{"mlx5", 1, 1},
                      Cadence{"mlx5", 2, 0.25}, Cadence{"mlx5", 2, 1}, Cadence{"bnxt", -1, 0.25},
                      Cadence{"bnxt", -1, 1}, Cadence{"ice", -1, 1},
                      // The storm at set phases of a 1 s poll (issue 27: a storm after a quiet period
                      // was flagged late at some phases); tests/unit/watchdog/cadence_test.cpp
                      // StormPhase covers every cadence at exact phases with a simulated clock.
                      Cadence{"mlx5", 0, 1, 0.05}, Cadence{"mlx5", 0, 1, 0.3}, Cadence{"mlx5", 0, 1, 0.55},
                      Cadence{"mlx5", 0, 1, 0.8}),
    [](const auto& info) {
      const Cadence& c = info.param;
      std::string name = std::string(c.vendor) + "_refresh" +
                         (c.refresh < 0 ? std::string("default") : ms(c.refresh)) + "_poll" + ms(c.poll);
      if (c.phase >= 0) name += "_phase" + std::to_string(std::lround(c.phase * 100));
      return name;
    });

}  // namespace
}  // namespace fabricmon::testing

namespace fabricmon::testing {
namespace {

// 8 x 400G ConnectX-7, 2 x 200G BlueField-3 and a 100G Broadcom front-end NIC (its own dialect):
// a normal GPU node. Nothing may be flagged — port_degraded compares each port with its own model.
class MixedNode : public DaemonTest {};

TEST_F(MixedNode, IsHealthy) {
  const auto node = dir_ / "node";
  ChildProcess sim({FABRICSIM_BINARY, "--root", node.string(), "--scenario", "healthy", "--mixed-node",
                    "--interval", "100ms"});
  ASSERT_TRUE(sim.waitForOutput("fabricmon --sysfs-root", 10s)) << sim.output();
  auto args = nodeArgs();
  args.insert(args.begin(), {"run", "--config", FABRICMON_SCENARIO_CONFIG});
  start(args);
  // port_degraded judges after not_active_for (5 s in the test windows); watch well past it.
  const auto until = Clock::now() + 12s;
  bool sawBnxt = false;
  while (Clock::now() < until) {
    const auto response = httpGet(port_, "/api/v1/findings");
    ASSERT_EQ(response.status, 200);
    EXPECT_EQ(response.body, "{\"findings\":[]}");
    if (!sawBnxt) {
      const std::string metrics = httpGet(port_, "/metrics").body;
      sawBnxt = metrics.find("fabricmon_port_info{device=\"bnxt_re0\"") != std::string::npos;
    }
    std::this_thread::sleep_for(250ms);
  }
  EXPECT_TRUE(sawBnxt) << "the Broadcom NIC is part of the node";
  EXPECT_EQ(stop(), std::optional<int>(0));
}

}  // namespace
}  // namespace fabricmon::testing
