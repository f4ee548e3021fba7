
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "collectors/registry.hpp"
#include "collectors/topology_discovery.hpp"
#include "rdma_test_support.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;
using testing::Poll;
using testing::TempTree;

class NetdevLink : public ::testing::Test {
 protected:
  void load(std::string_view ttar, std::vector<std::string> include) {
    tree_.unpack(ttar);
    sources_.sysfs = std::make_shared<SysfsRoot>(tree_.root());
    discovery_ = std::make_unique<TopologyDiscovery>(sources_.sysfs, DevicesConfig{},
                                                     NetdevConfig{std::move(include)});
    rescan();
  }
  void rescan() {
    auto t = discovery_->scan();
    ASSERT_TRUE(t.ok());
    topology_ = *t;
  }
  Poll run(Collector& c) { return testing::poll(c, *topology_, tracker_); }

  TempTree tree_;
  Sources sources_;
  Config config_;
  std::unique_ptr<TopologyDiscovery> discovery_;
  TopologyPtr topology_;
  ErrorTracker tracker_{"test"};
};

TEST_F(NetdevLink, ProcfsEth0Capture) {
  load("realdata/procfs_fixtures_sys_class_net_eth0_incl_ecn.ttar", {"eth.*"});
  auto c = makeCollector("netdev_link", sources_, config_);
  Poll p = run(*c);
  EXPECT_EQ(p.status, CollectStatus::kOk);
  EXPECT_EQ(p.errors, 0u);
  EXPECT_EQ(p.value("fabricmon_netdev_up{interface=\"eth0\"}"), 1.0);
  EXPECT_EQ(p.value("fabricmon_netdev_carrier_changes_total{interface=\"eth0\"}"), 2.0);
  EXPECT_EQ(p.value("fabricmon_netdev_carrier_up_changes_total{interface=\"eth0\"}"), 1.0);
  EXPECT_EQ(p.value("fabricmon_netdev_carrier_down_changes_total{interface=\"eth0\"}"), 1.0);
  EXPECT_EQ(p.value("fabricmon_netdev_admin_up{interface=\"eth0\"}"), 1.0);  // flags 0x1003
  EXPECT_EQ(p.samples.size(), 5u);
}

// IFF_UP tells a port taken down on purpose from a lost link, which RoCE drivers report alike.
TEST_F(NetdevLink, AdministrativeStateFromTheInterfaceFlags) {
  load("realdata/procfs_fixtures_sys_class_net_eth0_incl_ecn.ttar", {"eth.*"});
  auto c = makeCollector("netdev_link", sources_, config_);
  run(*c);
  std::ofstream(tree_.root() / "class/net/eth0/flags", std::ios::trunc) << "0x1002\n";  // ip link set down
  Poll p = run(*c);
  EXPECT_EQ(p.value("fabricmon_netdev_admin_up{interface=\"eth0\"}"), 0.0);
  std::ofstream(tree_.root() / "class/net/eth0/flags", std::ios::trunc) << "up\n";
  p = run(*c);
  EXPECT_FALSE(p.has("fabricmon_netdev_admin_up{interface=\"eth0\"}")) << "not flags: an error, not a value";
  EXPECT_EQ(p.errors, 1u);
  EXPECT_EQ(p.unread.count("fabricmon_netdev_admin_up{interface=\"eth0\"}"), 1u);
}

TEST_F(NetdevLink, InterfacesBehindRdmaPortsAndIncludedOnes) {
  load("handmade/roce_mlx5.ttar", {"lo"});
  auto c = makeCollector("netdev_link", sources_, config_);
  Poll p = run(*c);
  struct Row {
    const char* interface;
    double up, changes, upChanges, downChanges;
  };
  const Row rows[] = {
      {"bond0", 1, 6, 3, 3},
      {"ens1f0np0", 1, 4, 2, 2},
      {"ens1f1np1", 0, 7, 3, 4},  // operstate "down"
      {"lo", 0, 0, 0, 0},         // operstate "unknown" is not up
  };
  for (const auto& r : rows) {
    const std::string l = std::string("{interface=\"") + r.interface + "\"}";
    EXPECT_EQ(p.value("fabricmon_netdev_up" + l), r.up) << r.interface;
    EXPECT_EQ(p.value("fabricmon_netdev_carrier_changes_total" + l), r.changes) << r.interface;
    EXPECT_EQ(p.value("fabricmon_netdev_carrier_up_changes_total" + l), r.upChanges) << r.interface;
    EXPECT_EQ(p.value("fabricmon_netdev_carrier_down_changes_total" + l), r.downChanges) << r.interface;
  }
  EXPECT_EQ(p.samples.size(), 16u);
}

TEST_F(NetdevLink, UnreadableValueIsSkippedOthersStillReport) {
  load("handmade/roce_mlx5.ttar", {});
  auto c = makeCollector("netdev_link", sources_, config_);
  run(*c);
  std::ofstream(tree_.root() / "class/net/ens1f1np1/carrier_changes", std::ios::trunc) << "";
  Poll p = run(*c);
  EXPECT_FALSE(p.has("fabricmon_netdev_carrier_changes_total{interface=\"ens1f1np1\"}"));
  EXPECT_EQ(p.value("fabricmon_netdev_up{interface=\"ens1f1np1\"}"), 0.0);
  EXPECT_EQ(p.errors, 1u);
}

TEST_F(NetdevLink, VanishedInterfaceDisappears) {
  load("handmade/roce_mlx5.ttar", {"lo"});
  auto c = makeCollector("netdev_link", sources_, config_);
  EXPECT_EQ(run(*c).samples.size(), 16u);
  fs::remove(tree_.root() / "class/net/lo");
  Poll p = run(*c);
  EXPECT_EQ(p.samples.size(), 12u);
  EXPECT_FALSE(p.has("fabricmon_netdev_up{interface=\"lo\"}"));
  EXPECT_EQ(p.errors, 0u);
}

TEST_F(NetdevLink, NoInterfacesIsNoData) {
  load("realdata/procfs_fixtures_sys_class_infiniband.ttar", {});
  auto c = makeCollector("netdev_link", sources_, config_);
  EXPECT_EQ(run(*c).status, CollectStatus::kNoData);
}

}  // namespace
}  // namespace fabricmon
