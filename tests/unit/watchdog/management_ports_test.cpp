// Management ports are left out of the fabric rules by default (watchdog/management_ports.hpp): a
// storm on the in-band management NIC is not a fabric finding, the same storm on a compute port is,
// and watchdog.judge_management brings the management port back.
#include <gtest/gtest.h>

#include "tests/unit/watchdog/test_node.hpp"
#include "model/families/topology.hpp"
#include "watchdog/management_ports.hpp"
#include "watchdog/rules/device_missing.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon::testing {
namespace {

void topology(TestNode& n, const std::string& role) {
  n.set("port_topology", "fabricmon_port_topology_info",
        {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "eth0"}, {"pci_address", "0000:e1:00.0"},
         {"numa_node", "1"}, {"function", "pf"}, {"pf", ""}, {"gpus", ""}, {"role", role}, {"rail", ""}},
        1);
}

std::string label(const Finding& f, const std::string& name) {
  for (const auto& [k, v] : f.labels) {
    if (k == name) return v;
  }
  return {};
}

/// eth0 paused 99.7 % of each of the next three seconds (a storm).
void pausedThreeSeconds(TestNode& n) {
  for (int i = 0; i < 3; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
          {{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}}, 0.997);
    n.tick();
  }
}

std::vector<Finding> stormOn(const std::string& role, bool judgeManagement) {
  WatchdogConfig config;
  config.judgeManagement = judgeManagement;
  TestNode n(config);
  healthyRoce(n);
  topology(n, role);
  n.tick();
  n.tick();
  pausedThreeSeconds(n);
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
  pausedThreeSeconds(n);
  ASSERT_EQ(n.findings().size(), 1u);
  n.drop("port_topology", "role", "compute");
  topology(n, "management");
  pausedThreeSeconds(n);
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

// Left alone by the rules, not forgotten: a management NIC counts towards the expected devices and
// ports, and a management NIC that goes is reported like any other (a lost NIC is worth knowing).
TEST(ManagementPorts, AManagementNicCountsAsPresentAndIsReportedWhenItVanishes) {
  WatchdogConfig config;
  auto& rule = config.rules.get<DeviceMissingRule>();
  rule.expectedDevices = {"mlx5_0", "mlx5_1"};
  rule.expectedDeviceCount = 2;
  rule.expectedPortCount = 2;
  TestNode n(config);
  healthyRoce(n, "mlx5_1", "eth1");
  healthyRoce(n);  // mlx5_0 / eth0
  topology(n, "management");
  n.set("port_topology", "fabricmon_port_topology_info",
        {{"device", "mlx5_1"}, {"port", "1"}, {"interface", "eth1"}, {"pci_address", "0000:18:00.0"},
         {"numa_node", "0"}, {"function", "pf"}, {"pf", ""}, {"gpus", "0000:19:00.0"}, {"role", "compute"},
         {"rail", "0"}},
        1);
  for (int i = 0; i < 10; ++i) n.tick(30);
  auto f = n.findings();
  EXPECT_TRUE(f.empty()) << f.front().rule << ": " << f.front().summary;

  // The management NIC goes: its series leave every collector, port_topology no longer names it.
  for (const char* c : {"rdma_port", "hw_counters", "pma_counters", "port_topology"}) n.drop(c, "device", "mlx5_0");
  for (const char* c : {"netdev_link", "ethtool_pfc", "dcb_config", "dcqcn_config"}) n.drop(c, "interface", "eth0");
  for (int i = 0; i < 4; ++i) n.tick(30);
  f = n.findings();
  ASSERT_FALSE(f.empty());
  bool vanished = false;
  for (const Finding& x : f) {
    EXPECT_EQ(x.rule, "device_missing") << x.summary;
    vanished |= label(x, "reason") == "vanished" && label(x, "device") == "mlx5_0";
  }
  EXPECT_TRUE(vanished) << "mlx5_0 (management) vanished and nobody said so";
}

}  // namespace
}  // namespace fabricmon::testing

namespace fabricmon::watchdog {
namespace {

SnapshotPtr topologySnapshot(const std::string& role) {
  auto batch = std::make_shared<Batch>();
  batch->collector = "port_topology";
  testing::addSample(
      *batch,
      makeSeries(families::topology::kPortTopologyInfo,
                 {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "eth0"}, {"pci_address", "0000:e1:00.0"},
                  {"numa_node", "1"}, {"function", "pf"}, {"pf", ""}, {"gpus", ""}, {"role", role}, {"rail", ""}}),
      1);
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->batches.emplace("port_topology", std::move(batch));
  return snapshot;
}

// A batch is told from the last one by identity, and the last one is held so that its address
// cannot come back: built here the way it would happen, the old batch released by everyone else
// and a new one of the same size made at once (malloc hands a freed block of that size straight
// back), the new batch is read.
TEST(ManagementPortsIdentity, ANewBatchAfterTheOldOneIsReleasedIsRead) {
  ManagementPorts mp;
  SnapshotPtr first = topologySnapshot("management");
  EXPECT_TRUE(mp.update(*first));
  EXPECT_EQ(mp.ports().size(), 1u);
  const Batch* oldAddress = first->batches.begin()->second.get();
  first.reset();
  SnapshotPtr second = topologySnapshot("compute");
  EXPECT_NE(second->batches.begin()->second.get(), oldAddress) << "the old batch is still held";
  EXPECT_TRUE(mp.update(*second)) << "the new batch is read";
  EXPECT_TRUE(mp.ports().empty());
  EXPECT_FALSE(mp.update(*second)) << "the same batch again is not";
}

}  // namespace
}  // namespace fabricmon::watchdog
