// pcie_errors (watchdog/rules/pcie_errors.cpp) over hand-set fabricmon_pcie_aer_errors_total
// series, the way the pcie_aer collector exports them: two NIC functions behind one PCIe switch
// downstream port (mlx5_0 -> eth0, mlx5_1 -> eth1), that port shared by both, the root port above.
// Time is the TestNode's clock: no sleeps.
#include <gtest/gtest.h>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

constexpr const char* kAer = "fabricmon_pcie_aer_errors_total";

struct Place {
  const char* devices;
  const char* pci;
  const char* position;
};
constexpr Place kNic0{"mlx5_0", "0000:03:00.0", "function"};
constexpr Place kNic1{"mlx5_1", "0000:03:00.1", "function"};
constexpr Place kSwitch{"mlx5_0,mlx5_1", "0000:02:00.0", "switch_port"};
constexpr Place kRoot{"mlx5_0,mlx5_1", "0000:00:01.0", "root_port"};

Labels aer(const Place& p, const char* severity, const char* error = "total") {
  return {{"device", p.devices},
          {"pci_address", p.pci},
          {"position", p.position},
          {"severity", severity},
          {"error", error}};
}

class PcieErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    healthyRoce(n_, "mlx5_0", "eth0");
    healthyRoce(n_, "mlx5_1", "eth1");
    for (const Place& p : {kNic0, kNic1, kSwitch, kRoot}) {
      for (const char* s : {"correctable", "nonfatal", "fatal"}) {
        n_.set("pcie_aer", kAer, aer(p, s), 0);
        n_.set("pcie_aer", kAer, aer(p, s, "RxErr"), 0);  // per-type series: not the rule's input
      }
    }
  }
  /// `seconds` of time at `step`-second polls.
  void run(double seconds, double step = 5) {
    for (double t = 0; t < seconds; t += step) n_.tick(step);
  }
  std::vector<std::string> active() { return describe(n_.findings()); }
  const Finding* find(const std::string& description) {
    static std::vector<Finding> keep;
    keep = n_.findings();
    for (const auto& f : keep) {
      if (describe({f}).front() == description) return &f;
    }
    return nullptr;
  }

  TestNode n_;
};

TEST_F(PcieErrorsTest, ANonFatalErrorIsCriticalAtOnceAndClearsAfterAQuietPeriod) {
  run(60);
  EXPECT_TRUE(active().empty());
  // The kernel counts one error in its type's line and in the file's total.
  n_.add("pcie_aer", kAer, aer(kNic0, "nonfatal"), 1);
  n_.add("pcie_aer", kAer, aer(kNic0, "nonfatal", "RxErr"), 1);
  n_.tick(5);
  ASSERT_EQ(active(), (std::vector<std::string>{"pcie_errors/nonfatal/mlx5_0/1/eth0"}));
  const Finding* f = find("pcie_errors/nonfatal/mlx5_0/1/eth0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_NE(f->summary.find("0000:03:00.0 (function)"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find(": 1 non-fatal PCIe AER error at"), std::string::npos) << f->summary << ": counted once";
  run(14 * 60);
  EXPECT_EQ(active().size(), 1u) << "held for clear_after (15 min)";
  run(2 * 60);
  EXPECT_TRUE(active().empty());
}

TEST_F(PcieErrorsTest, AFatalErrorOnTheSharedSwitchPortIsAFindingOfEveryPortBehindIt) {
  run(30);
  n_.add("pcie_aer", kAer, aer(kSwitch, "fatal"), 2);
  n_.tick(5);
  EXPECT_EQ(active(), (std::vector<std::string>{"pcie_errors/fatal/mlx5_0/1/eth0",
                                                "pcie_errors/fatal/mlx5_1/1/eth1"}));
  const Finding* f = find("pcie_errors/fatal/mlx5_1/1/eth1");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("0000:02:00.0 (switch_port, shared by mlx5_0,mlx5_1)"),
            std::string::npos)
      << f->summary;
}

TEST_F(PcieErrorsTest, CountsFromBeforeTheStartAndCounterResetsAreNotErrors) {
  TestNode n;
  healthyRoce(n, "mlx5_0", "eth0");
  n.set("pcie_aer", kAer, aer(kNic0, "nonfatal"), 7);  // since boot, before fabricmon ran
  n.set("pcie_aer", kAer, aer(kNic0, "correctable"), 100000);
  for (int i = 0; i < 12; ++i) n.tick(5);
  EXPECT_TRUE(n.findings().empty());
  // The function re-enumerated (hot reset, driver rebind): the kernel's counts start again at 0.
  n.set("pcie_aer", kAer, aer(kNic0, "nonfatal"), 0);
  n.set("pcie_aer", kAer, aer(kNic0, "correctable"), 0);
  for (int i = 0; i < 12; ++i) n.tick(5);
  EXPECT_TRUE(n.findings().empty()) << ::testing::PrintToString(describe(n.findings()));
}

TEST_F(PcieErrorsTest, PerTypeSeriesAloneAreNotJudged) {
  run(30);
  n_.add("pcie_aer", kAer, aer(kNic0, "nonfatal", "RxErr"), 1);
  n_.tick(5);
  EXPECT_TRUE(active().empty()) << "the rule reads the files' totals only";
}

// Corrected errors: 8 per minute at one function or port (DCGM's replay limit), over 10 minutes.
TEST_F(PcieErrorsTest, CorrectedErrorsAboveTheRateWarnAndClearWhenTheyStop) {
  run(60);
  for (int i = 0; i < 6 * 12; ++i) {  // 24 per minute on the root port, for 6 minutes
    n_.add("pcie_aer", kAer, aer(kRoot, "correctable"), 2);
    n_.tick(5);
  }
  EXPECT_EQ(active(), (std::vector<std::string>{"pcie_errors/correctable/mlx5_0/1/eth0",
                                                "pcie_errors/correctable/mlx5_1/1/eth1"}));
  const Finding* f = find("pcie_errors/correctable/mlx5_0/1/eth0");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->summary.find("0000:00:01.0 (root_port"), std::string::npos) << f->summary;
  run(11 * 60);  // the errors stop: the window empties
  EXPECT_TRUE(active().empty());
}

TEST_F(PcieErrorsTest, ALowSteadyBackgroundOfCorrectedErrorsIsSilent) {
  for (int i = 0; i < 30 * 12; ++i) {  // 3 per minute on every function and port, for 30 minutes
    for (const Place& p : {kNic0, kNic1, kSwitch, kRoot}) {
      if (i % 4 == 0) n_.add("pcie_aer", kAer, aer(p, "correctable"), 1);
    }
    n_.tick(5);
  }
  EXPECT_TRUE(active().empty()) << ::testing::PrintToString(active());
}

// The same errors seen through a fast and a slow poll give the same verdict: the rule counts over
// the window's elapsed time, not per poll.
TEST(PcieErrorsCadence, TheVerdictDoesNotDependOnThePollInterval) {
  for (double step : {1.0, 5.0, 30.0}) {
    for (double perMinute : {6.0, 12.0}) {
      TestNode n;
      healthyRoce(n, "mlx5_0", "eth0");
      n.set("pcie_aer", kAer, aer(kNic0, "correctable"), 0);
      for (double t = 0; t < 60; t += step) n.tick(step);
      for (double t = 0; t < 9 * 60; t += step) {
        n.add("pcie_aer", kAer, aer(kNic0, "correctable"), perMinute * step / 60);
        n.tick(step);
      }
      const bool fired = !n.findings().empty();
      EXPECT_EQ(fired, perMinute > 8) << "step " << step << " s, " << perMinute << " per minute";
    }
  }
}

TEST(PcieErrorsManagement, AManagementPortsPathIsLeftAlone) {
  TestNode n;
  healthyRoce(n, "mlx5_0", "eth0");
  n.set("port_topology", "fabricmon_port_topology_info",
        {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "eth0"}, {"role", "management"}}, 1);
  n.set("pcie_aer", kAer, aer(kNic0, "fatal"), 0);
  for (int i = 0; i < 6; ++i) n.tick(5);
  n.add("pcie_aer", kAer, aer(kNic0, "fatal"), 1);
  n.tick(5);
  EXPECT_TRUE(n.findings().empty()) << ::testing::PrintToString(describe(n.findings()));
}

}  // namespace
}  // namespace fabricmon::testing
