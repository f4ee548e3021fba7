// nic_health_reporter (watchdog/rules/nic_health_reporter.cpp) over hand-set devlink_health series,
// one reading per 1 s tick (poll.interval), as the collector exports mlx5's reporters: fw_fatal
// per device, tx per uplink port (devlink port 65535). Time is the TestNode's clock: no sleeps.
#include "watchdog/rules/nic_health_reporter.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

constexpr const char* kHealthy = "fabricmon_nic_health_reporter_healthy";
constexpr const char* kErrors = "fabricmon_nic_health_reporter_errors_total";
constexpr const char* kAutoRecover = "fabricmon_nic_health_reporter_auto_recover";

struct Reporter {
  const char* devices;
  const char* pci;
  const char* port;
  const char* name;
};
constexpr Reporter kFwFatal{"mlx5_0", "0000:17:00.0", "", "fw_fatal"};
constexpr Reporter kTx{"mlx5_0", "0000:17:00.0", "65535", "tx"};

Labels labels(const Reporter& r) {
  return {{"device", r.devices},
          {"pci_address", r.pci},
          {"devlink_port", r.port},
          {"reporter", r.name}};
}

using Findings = std::vector<std::string>;

class NicHealthReporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    healthyRoce(n_, "mlx5_0", "eth0");
    for (const Reporter& r : {kFwFatal, kTx}) {
      state(r, true);
      errors(r, 0);
      canRecover(r);
    }
  }
  /// The kernel reports auto_recover for a reporter that has a recover op (mlx5's fw_fatal, tx).
  void canRecover(const Reporter& r) { n_.set("devlink_health", kAutoRecover, labels(r), 1); }
  void state(const Reporter& r, bool healthy) {
    n_.set("devlink_health", kHealthy, labels(r), healthy ? 1 : 0);
  }
  void errors(const Reporter& r, double n) { n_.set("devlink_health", kErrors, labels(r), n); }
  Findings run(int polls) {
    for (int i = 0; i < polls; ++i) n_.tick(1);
    auto d = describe(n_.findings());
    std::sort(d.begin(), d.end());
    return d;
  }
  const Finding* find(std::string_view reason) {
    static std::vector<Finding> keep;
    keep = n_.findings();
    for (const Finding& f : keep) {
      if (f.rule == "nic_health_reporter" && labelOf(f, "reason") == reason) return &f;
    }
    return nullptr;
  }

  TestNode n_;
};

TEST_F(NicHealthReporterTest, HealthyReportersWithoutNewErrorsAreSilent) {
  errors(kTx, 3);  // errors from before fabricmon started are history, not news
  EXPECT_EQ(run(30), Findings{});
}

TEST_F(NicHealthReporterTest, AReporterStuckInItsErrorStateIsCriticalAfterTwoReadings) {
  run(3);
  state(kFwFatal, false);
  errors(kFwFatal, 1);
  EXPECT_EQ(run(1), Findings{"nic_health_reporter/errors/mlx5_0"})
      << "one reading in error is not yet stuck";
  EXPECT_EQ(run(1), (Findings{"nic_health_reporter/error_state/mlx5_0",
                              "nic_health_reporter/errors/mlx5_0"}));
  const Finding* f = find("error_state");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_NE(f->summary.find("fw_fatal at 0000:17:00.0"), std::string::npos) << f->summary;
  // Recovered: the critical finding clears at once, the warning stays for clear_after (15 min).
  state(kFwFatal, true);
  EXPECT_EQ(run(2), Findings{"nic_health_reporter/errors/mlx5_0"});
  EXPECT_EQ(run(15 * 60), Findings{});
}

TEST_F(NicHealthReporterTest, ARecoveredErrorIsAWarningNamingThePortsReporter) {
  run(3);
  errors(kTx, 2);  // two TX timeouts, recovered within the poll: the state never showed error
  EXPECT_EQ(run(1), Findings{"nic_health_reporter/errors/mlx5_0"});
  const Finding* f = find("errors");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->summary.find("2 new errors"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("tx of devlink port 65535 at 0000:17:00.0"), std::string::npos)
      << f->summary;
  EXPECT_EQ(run(14 * 60), Findings{"nic_health_reporter/errors/mlx5_0"}) << "within clear_after";
  errors(kTx, 3);
  EXPECT_EQ(run(14 * 60), Findings{"nic_health_reporter/errors/mlx5_0"}) << "a new error holds it";
  EXPECT_EQ(run(70), Findings{});
}

TEST_F(NicHealthReporterTest, ASharedFunctionIsEachDevicesAndUnwatchedDevicesAreNot) {
  constexpr Reporter kShared{"mlx5_1,mlx5_2", "0000:3b:00.0", "", "fw_fatal"};
  constexpr Reporter kUnwatched{"mlx5_9", "0000:c1:00.0", "", "fw_fatal"};  // no port in the join
  healthyRoce(n_, "mlx5_1", "eth1");
  healthyRoce(n_, "mlx5_2", "eth2");
  state(kShared, false);
  state(kUnwatched, false);
  canRecover(kShared);
  canRecover(kUnwatched);
  EXPECT_EQ(run(3), (Findings{"nic_health_reporter/error_state/mlx5_1",
                              "nic_health_reporter/error_state/mlx5_2"}));
}

// mlx5's fw reporter has no recover op: its first error puts it in the error state until the driver
// is reloaded (net/devlink/health.c: only a recovery or the driver sets it healthy again). That
// state is history, not a NIC failing now: its new errors are the warning, and nothing holds a
// critical finding for good.
TEST_F(NicHealthReporterTest, AReporterThatCannotRecoverIsJudgedByItsErrorsNotItsState) {
  constexpr Reporter kFw{"mlx5_0", "0000:17:00.0", "", "fw"};
  state(kFw, false);  // latched before fabricmon started
  errors(kFw, 1);
  EXPECT_EQ(run(30), Findings{});
  errors(kFw, 2);  // a new firmware syndrome
  EXPECT_EQ(run(2), Findings{"nic_health_reporter/errors/mlx5_0"});
  EXPECT_EQ(run(15 * 60 + 5), Findings{}) << "the warning clears after clear_after; the latched state holds nothing";
}

TEST(NicHealthReporterSettings, TheReadingsAndTheHoldAreConfigurable) {
  WatchdogConfig config;
  config.rules.get<NicHealthReporterRule>().forReadings = 1;
  config.rules.get<NicHealthReporterRule>().clearAfter = std::chrono::seconds(30);
  TestNode n(config);
  healthyRoce(n, "mlx5_0", "eth0");
  n.set("devlink_health", kHealthy, labels(kTx), 1);
  n.set("devlink_health", kErrors, labels(kTx), 0);
  n.set("devlink_health", kAutoRecover, labels(kTx), 1);
  for (int i = 0; i < 3; ++i) n.tick(1);
  n.set("devlink_health", kHealthy, labels(kTx), 0);
  n.tick(1);
  EXPECT_EQ(describe(n.findings()), Findings{"nic_health_reporter/error_state/mlx5_0"})
      << "one reading is enough now";
  n.set("devlink_health", kHealthy, labels(kTx), 1);
  n.set("devlink_health", kErrors, labels(kTx), 1);
  n.tick(1);
  EXPECT_EQ(describe(n.findings()), Findings{"nic_health_reporter/errors/mlx5_0"});
  for (int i = 0; i < 31; ++i) n.tick(1);
  EXPECT_EQ(describe(n.findings()), Findings{});
}

}  // namespace
}  // namespace fabricmon::testing
