// port_degraded's pcie_downtrained reason: a NIC whose PCIe link trained below what it and the
// port above it support (fabricmon_device_pcie_link_*), held for not_active_for; and ports of
// different roles are not compared with each other.
#include <gtest/gtest.h>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

void pcie(TestNode& n, double widthNow, double speedNowGts) {
  n.set("port_topology", "fabricmon_device_pcie_link_width_lanes", {{"device", "mlx5_0"}, {"which", "current"}}, widthNow);
  n.set("port_topology", "fabricmon_device_pcie_link_width_lanes", {{"device", "mlx5_0"}, {"which", "max"}}, 16);
  n.set("port_topology", "fabricmon_device_pcie_link_speed_transfers_per_second",
        {{"device", "mlx5_0"}, {"which", "current"}}, speedNowGts * 1e9);
  n.set("port_topology", "fabricmon_device_pcie_link_speed_transfers_per_second",
        {{"device", "mlx5_0"}, {"which", "max"}}, 32e9);
}

std::vector<std::string> after(double widthNow, double speedNowGts, int seconds) {
  TestNode n;
  healthyRoce(n);
  pcie(n, widthNow, speedNowGts);
  for (int i = 0; i < seconds; ++i) n.tick();
  return describe(n.findings());
}

TEST(PcieDowntrain, X8InsteadOfX16IsDegradedAfterNotActiveFor) {
  EXPECT_TRUE(after(8, 32, 10).empty());  // not yet: held for not_active_for (30 s)
  EXPECT_EQ(after(8, 32, 40), (std::vector<std::string>{"port_degraded/pcie_downtrained/mlx5_0/1/eth0"}));
}

TEST(PcieDowntrain, Gen4InsteadOfGen5IsDegradedToo) {
  EXPECT_EQ(after(16, 16, 40), (std::vector<std::string>{"port_degraded/pcie_downtrained/mlx5_0/1/eth0"}));
}

TEST(PcieDowntrain, AFullLinkIsHealthy) { EXPECT_TRUE(after(16, 32, 40).empty()); }

TEST(PortRoles, AStoragePortIsNotComparedWithTheComputePorts) {
  TestNode n;
  // Three compute ports at 400G and one storage port of the same model at 200G.
  for (int i = 0; i < 4; ++i) {
    const std::string dev = "mlx5_" + std::to_string(i), iface = "eth" + std::to_string(i);
    healthyRoce(n, dev, iface, i == 3 ? k400G / 2 : k400G);
    n.set("port_topology", "fabricmon_port_topology_info",
          {{"device", dev}, {"port", "1"}, {"interface", iface}, {"role", i == 3 ? "storage" : "compute"}}, 1);
  }
  for (int i = 0; i < 40; ++i) n.tick();
  EXPECT_TRUE(n.findings().empty()) << ::testing::PrintToString(describe(n.findings()));
}

}  // namespace
}  // namespace fabricmon::testing
