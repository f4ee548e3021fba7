// Management ports are left out of the fabric rules by default (watchdog/management_ports.hpp): a
// storm on the in-band management NIC is not a fabric finding, the same storm on a compute port is,
// and watchdog.judge_management brings the management port back.
#include <gtest/gtest.h>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

void topology(TestNode& n, const std::string& role) {
  n.set("port_topology", "fabricmon_port_topology_info",
        {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "eth0"}, {"pci_address", "0000:e1:00.0"},
         {"numa_node", "1"}, {"function", "pf"}, {"pf", ""}, {"gpus", ""}, {"role", role}, {"rail", ""}},
        1);
}

std::vector<Finding> stormOn(const std::string& role, bool judgeManagement) {
  WatchdogConfig config;
  config.judgeManagement = judgeManagement;
  TestNode n(config);
  healthyRoce(n);
  topology(n, role);
  n.tick();
  n.tick();
  for (int i = 0; i < 3; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
          {{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}}, 0.997);
    n.tick();
  }
  return n.findings();
}

TEST(ManagementPorts, AStormOnTheManagementPortIsNoFinding) {
  EXPECT_TRUE(stormOn("management", false).empty());
}

TEST(ManagementPorts, TheSameStormOnAComputePortIs) {
  const auto f = stormOn("compute", false);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "pause_storm");
}

TEST(ManagementPorts, JudgeManagementJudgesItToo) {
  const auto f = stormOn("management", true);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "pause_storm");
}

TEST(ManagementPorts, APortThatBecomesManagementLeavesTheRules) {
  TestNode n;
  healthyRoce(n);
  topology(n, "compute");
  n.tick();
  n.tick();
  for (int i = 0; i < 3; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
          {{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}}, 0.997);
    n.tick();
  }
  ASSERT_EQ(n.findings().size(), 1u);
  n.drop("port_topology", "role", "compute");
  topology(n, "management");
  for (int i = 0; i < 3; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
          {{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}}, 0.997);
    n.tick();
  }
  EXPECT_TRUE(n.findings().empty());
}

// The topology info arrives on a slow cadence, after the rules have already seen the port: the
// port leaves the rules' inputs, which is not the port vanishing from the node.
TEST(ManagementPorts, APortThatTurnsOutToBeManagementIsNotCalledVanished) {
  TestNode n;
  healthyRoce(n);
  healthyRoce(n, "mlx5_1", "eth1");
  for (int i = 0; i < 3; ++i) n.tick();
  topology(n, "management");
  for (int i = 0; i < 10; ++i) n.tick(30);
  const auto f = n.findings();
  EXPECT_TRUE(f.empty()) << f.front().rule << ": " << f.front().summary;
}

}  // namespace
}  // namespace fabricmon::testing
