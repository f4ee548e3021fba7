#include "collectors/topology_discovery.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "rdma_test_support.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;
using testing::TempTree;

TopologyPtr scanOk(TopologyDiscovery& d) {
  auto t = d.scan();
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? *t : nullptr;
}

std::vector<std::string> deviceNames(const Topology& t) {
  std::vector<std::string> out;
  for (const auto& d : t.devices) out.push_back(d.name);
  return out;
}

TEST(TopologyDiscovery, NoInfinibandDirectoryIsAnEmptyTopology) {
  TempTree tree;
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), {}, {});
  auto t = scanOk(d);
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->devices.empty());
  EXPECT_TRUE(t->netdevs.empty());
  EXPECT_EQ(t->generation, 1u);
}

TEST(TopologyDiscovery, ListsDevicesPortsAndLinkLayerOfTheProcfsCapture) {
  TempTree tree;
  tree.unpack("realdata/procfs_fixtures_sys_class_infiniband.ttar");
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), {}, {});
  auto t = scanOk(d);
  ASSERT_TRUE(t);
  EXPECT_EQ(deviceNames(*t), (std::vector<std::string>{"hfi1_0", "mlx4_0", "mlx5_0"}));
  const RdmaDevice* mlx4 = t->device("mlx4_0");
  ASSERT_NE(mlx4, nullptr);
  ASSERT_EQ(mlx4->ports.size(), 2u);
  EXPECT_EQ(mlx4->ports[0].number, 1u);
  EXPECT_EQ(mlx4->ports[1].number, 2u);
  EXPECT_EQ(mlx4->ports[1].linkLayer, "InfiniBand");
  EXPECT_TRUE(mlx4->ports[0].netdevs.empty());
  EXPECT_EQ(mlx4->pciAddress, "");  // the capture has no device link
  EXPECT_NE(mlx4->identity, 0u);
}

struct FilterCase {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::vector<std::string> expected;
};

class TopologyFilter : public ::testing::TestWithParam<FilterCase> {};

TEST_P(TopologyFilter, IncludeAndExcludeMatchWholeNamesAndExcludeWins) {
  TempTree tree;
  tree.unpack("realdata/procfs_fixtures_sys_class_infiniband.ttar");
  const auto& c = GetParam();
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), DevicesConfig{c.include, c.exclude}, {});
  auto t = scanOk(d);
  ASSERT_TRUE(t);
  EXPECT_EQ(deviceNames(*t), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TopologyFilter,
    ::testing::Values(FilterCase{{}, {}, {"hfi1_0", "mlx4_0", "mlx5_0"}},
                      FilterCase{{"mlx.*"}, {}, {"mlx4_0", "mlx5_0"}},
                      FilterCase{{"mlx.*"}, {"mlx4_0"}, {"mlx5_0"}},
                      FilterCase{{"mlx4_0"}, {"mlx4.*"}, {}},
                      FilterCase{{}, {"hfi1_0"}, {"mlx4_0", "mlx5_0"}},
                      FilterCase{{"mlx"}, {}, {}},  // whole-name match: "mlx" alone matches nothing
                      FilterCase{{"hfi1_0", "mlx5_0"}, {}, {"hfi1_0", "mlx5_0"}}));

TEST(TopologyDiscovery, InvalidRegexFailsTheScanInsteadOfThrowing) {
  TempTree tree;
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), DevicesConfig{{"mlx5_[0"}, {}}, {});
  auto t = d.scan();
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("devices.include"), std::string::npos);
}

TEST(TopologyDiscovery, MapsNetdevsFromGidAttrsAndFromDeviceNet) {
  TempTree tree;
  tree.unpack("handmade/roce_mlx5.ttar");
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), {}, NetdevConfig{{"lo"}});
  auto t = scanOk(d);
  ASSERT_TRUE(t);
  ASSERT_EQ(deviceNames(*t), (std::vector<std::string>{"mlx5_1", "mlx5_bond_0"}));

  const RdmaDevice* bond = t->device("mlx5_bond_0");
  ASSERT_NE(bond, nullptr);
  EXPECT_EQ(bond->pciAddress, "0000:17:00.0");
  ASSERT_EQ(bond->ports.size(), 1u);
  EXPECT_EQ(bond->ports[0].linkLayer, "Ethernet");
  // gid_attrs/ndevs first (bond0, four GIDs, one empty slot), then the PCI function's netdev.
  EXPECT_EQ(bond->ports[0].netdevs, (std::vector<std::string>{"bond0", "ens1f0np0"}));

  const RdmaDevice* down = t->device("mlx5_1");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->ports[0].netdevs, (std::vector<std::string>{"ens1f1np1"}));  // empty ndevs = none

  ASSERT_EQ(t->netdevs.size(), 4u);
  const Netdev* bond0 = t->netdev("bond0");
  ASSERT_NE(bond0, nullptr);
  EXPECT_EQ(bond0->rdmaDevice, "mlx5_bond_0");
  EXPECT_EQ(bond0->rdmaPort, 1u);
  EXPECT_EQ(bond0->pciAddress, "");  // virtual interface
  const Netdev* pf1 = t->netdev("ens1f1np1");
  ASSERT_NE(pf1, nullptr);
  EXPECT_EQ(pf1->pciAddress, "0000:17:00.1");
  EXPECT_EQ(pf1->rdmaDevice, "mlx5_1");
  const Netdev* lo = t->netdev("lo");
  ASSERT_NE(lo, nullptr);
  EXPECT_EQ(lo->rdmaDevice, "");
  EXPECT_EQ(lo->rdmaPort, 0u);
  EXPECT_EQ(t->netdevs.front().name, "bond0");  // sorted
}

TEST(TopologyDiscovery, RoceLagWatchesEverySlaveOfItsBondUnderTheLagsDeviceAndPort) {
  TempTree tree;
  tree.unpack("handmade/roce_mlx5.ttar");
  // With the LAG active the second PF's own RDMA device is gone (mlx5_core folds both PFs into
  // mlx5_bond_0); the bonding driver lists both slaves.
  fs::remove_all(tree.root() / "class/infiniband/mlx5_1");
  tree.write("class/net/bond0/bonding/slaves", "ens1f0np0 ens1f1np1\n");
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), {}, {});
  auto t = scanOk(d);
  ASSERT_TRUE(t);
  ASSERT_EQ(deviceNames(*t), (std::vector<std::string>{"mlx5_bond_0"}));  // the LAG is one device
  std::vector<std::string> names;
  for (const auto& n : t->netdevs) {
    names.push_back(n.name);
    EXPECT_EQ(n.rdmaDevice, "mlx5_bond_0") << n.name;
    EXPECT_EQ(n.rdmaPort, 1u) << n.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"bond0", "ens1f0np0", "ens1f1np1"}));
  EXPECT_EQ(t->netdev("ens1f1np1")->pciAddress, "0000:17:00.1");

  // A slave listed but absent from class/net is not watched; no bonding/slaves = not a bond.
  tree.write("class/net/bond0/bonding/slaves", "ens1f0np0 gone0\n");
  auto t2 = scanOk(d);
  ASSERT_TRUE(t2);
  EXPECT_EQ(t2->netdev("gone0"), nullptr);
  EXPECT_EQ(t2->netdev("ens1f1np1"), nullptr);
}

TEST(TopologyDiscovery, MultiPortDeviceMapsDeviceNetByDevPort) {
  TempTree tree;
  tree.unpack("realdata/procfs_fixtures_sys_class_infiniband.ttar");
  tree.write("class/infiniband/mlx4_0/device/net/eth4/dev_port", "1\n");
  tree.write("class/infiniband/mlx4_0/device/net/eth3/dev_port", "0\n");
  tree.write("class/net/eth3/operstate", "up\n");
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), {}, {});
  auto t = scanOk(d);
  ASSERT_TRUE(t);
  const RdmaDevice* mlx4 = t->device("mlx4_0");
  ASSERT_NE(mlx4, nullptr);
  EXPECT_EQ(mlx4->ports[0].netdevs, (std::vector<std::string>{"eth3"}));
  EXPECT_EQ(mlx4->ports[1].netdevs, (std::vector<std::string>{"eth4"}));
  // Only interfaces that exist in class/net are watched.
  ASSERT_EQ(t->netdevs.size(), 1u);
  EXPECT_EQ(t->netdevs[0].name, "eth3");
}

TEST(TopologyDiscovery, GenerationGrowsOnlyWhenContentChanges) {
  TempTree tree;
  tree.unpack("handmade/roce_mlx5.ttar");
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), {}, {});
  auto first = scanOk(d);
  auto again = scanOk(d);
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first->generation, 1u);
  EXPECT_EQ(again.get(), first.get());
  EXPECT_EQ(again->generation, 1u);

  tree.write("class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/0", "ens1f1np1\n");  // same result: no change
  EXPECT_EQ(scanOk(d)->generation, 1u);
  tree.write("class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/1", "vlan100\n");
  auto changed = scanOk(d);
  EXPECT_EQ(changed->generation, 2u);
  EXPECT_EQ(changed->device("mlx5_1")->ports[0].netdevs,
            (std::vector<std::string>{"ens1f1np1", "vlan100"}));
}

TEST(TopologyDiscovery, RecreatedDeviceHasANewIdentityAndVanishedDeviceLeaves) {
  TempTree tree;
  tree.unpack("handmade/roce_mlx5.ttar");
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), {}, {});
  auto before = scanOk(d);
  const uint64_t oldId = before->device("mlx5_1")->identity;

  const fs::path ib = tree.root() / "devices/pci0000:16/0000:17:00.1/infiniband";
  fs::copy(ib / "mlx5_1", ib / "mlx5_1.new", fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove_all(ib / "mlx5_1");
  fs::rename(ib / "mlx5_1.new", ib / "mlx5_1");
  auto recreated = scanOk(d);
  EXPECT_EQ(recreated->generation, 2u);
  EXPECT_NE(recreated->device("mlx5_1")->identity, oldId);

  fs::remove(tree.root() / "class/infiniband/mlx5_1");
  auto vanished = scanOk(d);
  EXPECT_EQ(vanished->generation, 3u);
  EXPECT_EQ(vanished->device("mlx5_1"), nullptr);
  EXPECT_EQ(vanished->netdev("ens1f1np1"), nullptr);
}

}  // namespace
}  // namespace fabricmon

namespace fabricmon {
namespace {

// A pattern must match the whole name; one that selects nothing present is reported once per
// discovery (start and every reload each make one), not on every rescan.
TEST(TopologyDiscovery, IncludePatternsThatMatchNothingPresentAreReportedOnce) {
  TempTree tree;
  tree.unpack("realdata/procfs_fixtures_sys_class_infiniband.ttar");
  tree.write("class/net/eth0/operstate", "up\n");
  tree.write("class/net/rdma-x1/operstate", "up\n");
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), DevicesConfig{{"^mlx5", "mlx4_.*"}, {}},
                      NetdevConfig{{"^rdma-x", "rdma-x.*", "eth9"}});
  auto t = scanOk(d);
  ASSERT_TRUE(t);
  EXPECT_EQ(deviceNames(*t), (std::vector<std::string>{"mlx4_0"}));
  EXPECT_EQ(d.unmatchedIncludes(),
            (std::vector<std::string>{"devices.include: ^mlx5", "netdev.include: ^rdma-x", "netdev.include: eth9"}));
  tree.write("class/net/eth9/operstate", "up\n");
  scanOk(d);
  EXPECT_EQ(d.unmatchedIncludes().size(), 3u) << "reported at the first scan only";
}

TEST(TopologyDiscovery, EveryIncludePatternMatchesNothingWithoutTheDirectories) {
  TempTree tree;
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), DevicesConfig{{"mlx5_.*"}, {}},
                      NetdevConfig{{"eth.*"}});
  scanOk(d);
  EXPECT_EQ(d.unmatchedIncludes(), (std::vector<std::string>{"devices.include: mlx5_.*", "netdev.include: eth.*"}));
}

TEST(TopologyDiscovery, NoIncludeListReportsNothing) {
  TempTree tree;
  TopologyDiscovery d(std::make_shared<SysfsRoot>(tree.root()), {}, {});
  scanOk(d);
  EXPECT_TRUE(d.unmatchedIncludes().empty());
}

}  // namespace
}  // namespace fabricmon
