// The rdma_port, pma_counters and hw_counters collectors over the real captures and the hand-made trees.

#include <gtest/gtest.h>

#include <algorithm>
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

/// A tree, its topology and an error tracker: what every test here starts from.
class RdmaCollectors : public ::testing::Test {
 protected:
  void load(std::string_view ttar, NetdevConfig netdev = {}) {
    tree_.unpack(ttar);
    sources_.sysfs = std::make_shared<SysfsRoot>(tree_.root());
    discovery_ = std::make_unique<TopologyDiscovery>(sources_.sysfs, DevicesConfig{}, std::move(netdev));
    rescan();
  }
  void rescan() {
    auto t = discovery_->scan();
    ASSERT_TRUE(t.ok()) << t.error().message;
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

constexpr const char* kMlx5 = "{device=\"mlx5_0\",port=\"1\"}";

std::string portKey(const std::string& family, const char* labels = kMlx5) { return family + labels; }

TEST_F(RdmaCollectors, PmaCountersOfTheProcfsMlx5CaptureWithDataTimesFour) {
  load("realdata/procfs_fixtures_sys_class_infiniband.ttar");
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll p = run(*c);
  EXPECT_EQ(p.status, CollectStatus::kOk);
  EXPECT_EQ(p.errors, 0u);
  EXPECT_EQ(p.value(portKey("fabricmon_port_transmit_bytes_total")), 2880761508848.0 * 4);
  EXPECT_EQ(p.value(portKey("fabricmon_port_receive_bytes_total")), 18126345378.0 * 4);
  EXPECT_EQ(p.value(portKey("fabricmon_port_transmit_packets_total")), 10907922116.0);
  EXPECT_EQ(p.value(portKey("fabricmon_port_receive_packets_total")), 541889824.0);
  EXPECT_EQ(p.value(portKey("fabricmon_port_symbol_errors_total")), 0.0);
  EXPECT_EQ(p.value("fabricmon_pma_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"unicast_xmit_packets\"}"),
            10907922116.0);
  EXPECT_EQ(p.value("fabricmon_pma_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"VL15_dropped\"}"), 0.0);
  // A first-class file is not exported twice.
  EXPECT_FALSE(p.has("fabricmon_pma_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"port_xmit_data\"}"));
  EXPECT_EQ(p.value("fabricmon_port_pma_saturated{device=\"mlx5_0\",port=\"1\",counter=\"symbol_error\"}"), 0.0);
  // Data and packet counters have no known width: no saturation series.
  EXPECT_FALSE(p.has("fabricmon_port_pma_saturated{device=\"mlx5_0\",port=\"1\",counter=\"port_xmit_data\"}"));
  // mlx5_0 21 files + 13 saturation series; mlx4_0 2x17 + 2x13; hfi1_0 17 + 13.
  EXPECT_EQ(p.count("fabricmon_port_pma_saturated"), 13u * 4);
}

TEST_F(RdmaCollectors, SaturatedFlagsNarrowCountersAtTheirMaximum) {
  load("realdata/node_exporter_sys_ttar_class_infiniband.ttar");
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll p = run(*c);
  // mlx4_0 port 1 port_xmit_wait = 4294967295 = 2^32-1: the 32-bit counter is stuck at max.
  EXPECT_EQ(p.value("fabricmon_port_transmit_wait_total{device=\"mlx4_0\",port=\"1\"}"), 4294967295.0);
  EXPECT_EQ(p.value("fabricmon_port_pma_saturated{device=\"mlx4_0\",port=\"1\",counter=\"port_xmit_wait\"}"), 1.0);
  EXPECT_EQ(p.value("fabricmon_port_transmit_discards_total{device=\"mlx4_0\",port=\"1\"}"), 5.0);
  EXPECT_EQ(p.value("fabricmon_port_pma_saturated{device=\"mlx4_0\",port=\"1\",counter=\"port_xmit_discards\"}"),
            0.0);
  // i40iw0 prints "N/A (no PMA)" in all 17 files: unsupported, logged once, no series, no error.
  EXPECT_EQ(p.errors, 0u);
  EXPECT_EQ(run(*c).errors, 0u);
  for (const auto& s : p.samples) EXPECT_NE(s.series->label("device"), "i40iw0") << s.series->key;
}

TEST_F(RdmaCollectors, SaturationTableFromTheHandmadeRoceTree) {
  load("handmade/roce_mlx5.ttar");
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll p = run(*c);
  struct Row {
    const char* device;
    const char* counter;
    double saturated;
  };
  const Row rows[] = {
      {"mlx5_bond_0", "symbol_error", 1},                     // 65535 = 2^16-1
      {"mlx5_bond_0", "excessive_buffer_overrun_errors", 1},  // 15 = 2^4-1
      {"mlx5_bond_0", "local_link_integrity_errors", 0},      // 2
      {"mlx5_bond_0", "link_downed", 0},                      // 3
      {"mlx5_bond_0", "port_xmit_wait", 0},                   // 5000
      {"mlx5_1", "link_downed", 1},                           // 255 = 2^8-1
  };
  for (const auto& r : rows) {
    const std::string key = std::string("fabricmon_port_pma_saturated{device=\"") + r.device +
                            "\",port=\"1\",counter=\"" + r.counter + "\"}";
    EXPECT_EQ(p.value(key), r.saturated) << key;
  }
  EXPECT_EQ(p.value("fabricmon_port_transmit_bytes_total{device=\"mlx5_bond_0\",port=\"1\"}"), 123456789012.0 * 4);
  EXPECT_EQ(p.value("fabricmon_port_symbol_errors_total{device=\"mlx5_bond_0\",port=\"1\"}"), 65535.0);
}

TEST_F(RdmaCollectors, DriversWithoutCountersDirectoryYieldNoPmaSeriesAndNoError) {
  load("handmade/other_drivers.ttar");
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll p = run(*c);
  EXPECT_EQ(p.status, CollectStatus::kOk);
  EXPECT_EQ(p.errors, 0u);
  for (const auto& s : p.samples) {
    EXPECT_NE(s.series->label("device"), "irdma0") << s.series->key;
    EXPECT_NE(s.series->label("device"), "hfi1_0") << s.series->key;
  }
  EXPECT_EQ(p.value("fabricmon_port_transmit_bytes_total{device=\"bnxt_re0\",port=\"1\"}"), 1000.0);
}

TEST_F(RdmaCollectors, HwCountersOfTheProcfsMlx5Capture) {
  load("realdata/procfs_fixtures_sys_class_infiniband.ttar");
  auto c = makeCollector("hw_counters", sources_, config_);
  Poll p = run(*c);
  EXPECT_EQ(p.errors, 0u);
  EXPECT_EQ(p.value(portKey("fabricmon_roce_local_ack_timeouts_total")), 131.0);
  EXPECT_EQ(p.value(portKey("fabricmon_roce_out_of_sequence_total")), 1.0);
  EXPECT_EQ(p.value(portKey("fabricmon_roce_packet_sequence_errors_total")), 1.0);
  EXPECT_FALSE(p.has(portKey("fabricmon_roce_cnp_sent_total")));  // that kernel had no CC counters
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"roce_adp_retrans\"}"), 99.0);
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"rx_read_requests\"}"),
            175528982.0);
  EXPECT_FALSE(p.has("fabricmon_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"lifespan\"}"));
  EXPECT_FALSE(p.has("fabricmon_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"out_of_sequence\"}"));
  EXPECT_EQ(p.samples.size(), 24u);  // 25 files minus lifespan
}

TEST_F(RdmaCollectors, HwCountersOfTheRoceLagCaptureIncludingCongestionCounters) {
  load("handmade/roce_mlx5.ttar");
  auto c = makeCollector("hw_counters", sources_, config_);
  Poll p = run(*c);
  const char* bond = "{device=\"mlx5_bond_0\",port=\"1\"}";
  EXPECT_EQ(p.value(portKey("fabricmon_roce_cnp_sent_total", bond)), 1052612505.0);
  EXPECT_EQ(p.value(portKey("fabricmon_roce_ecn_marked_packets_total", bond)), 21278189006.0);
  EXPECT_EQ(p.value(portKey("fabricmon_roce_out_of_sequence_total", bond)), 1811101.0);
  EXPECT_EQ(p.value(portKey("fabricmon_roce_cnp_handled_total", bond)), 0.0);
  EXPECT_EQ(p.value(portKey("fabricmon_roce_cnp_ignored_total", bond)), 0.0);
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"mlx5_bond_0\",port=\"1\",counter=\"resp_cqe_error\"}"),
            3293504.0);
  EXPECT_EQ(p.value("fabricmon_roce_cnp_handled_total{device=\"mlx5_1\",port=\"1\"}"), 17.0);
}

TEST_F(RdmaCollectors, HwCountersOfAnyDriverIncludingHfi1NamesWithSpacesAndCommas) {
  load("handmade/other_drivers.ttar");
  auto c = makeCollector("hw_counters", sources_, config_);
  Poll p = run(*c);
  EXPECT_EQ(p.errors, 0u);
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"hfi1_0\",port=\"1\",counter=\"RcAcks\"}"), 19918731.0);
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"hfi1_0\",port=\"1\",counter=\"DmaWait\"}"), 50646.0);
  EXPECT_FALSE(p.has("fabricmon_hw_stat_total{device=\"hfi1_0\",port=\"1\",counter=\"lifespan\"}"));
  EXPECT_EQ(p.value("fabricmon_device_hw_stat_total{device=\"hfi1_0\",counter=\"Pio Reserved 30\"}"), 2.0);
  EXPECT_EQ(p.value("fabricmon_device_hw_stat_total{device=\"hfi1_0\",counter=\"SDMAInt10,32\"}"), 5.0);
  EXPECT_EQ(p.count("fabricmon_device_hw_stat_total"), 10u);  // lifespan left out
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"irdma0\",port=\"1\",counter=\"cnpHandled\"}"), 12.0);
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"irdma0\",port=\"1\",counter=\"RxECNMrkd\"}"), 56.0);
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"bnxt_re0\",port=\"1\",counter=\"rx_cnp_pkts\"}"), 5.0);
}

TEST_F(RdmaCollectors, RdmaPortInfoStateAndRate) {
  load("handmade/roce_mlx5.ttar");
  auto c = makeCollector("rdma_port", sources_, config_);
  Poll p = run(*c);
  EXPECT_EQ(p.errors, 0u);
  EXPECT_EQ(p.value("fabricmon_device_info{device=\"mlx5_bond_0\",fw_version=\"28.39.1002\",hca_type=\"MT4129\","
                    "board_id=\"MT_0000000838\",node_guid=\"0a7f:bc12:45ef:d23b\"}"),
            1.0);
  // node_guid without trailing newline reads fine.
  EXPECT_TRUE(p.has("fabricmon_device_info{device=\"mlx5_1\",fw_version=\"28.39.1002\",hca_type=\"MT4129\","
                    "board_id=\"MT_0000000838\",node_guid=\"0a7f:bc12:45ef:d23c\"}"));
  EXPECT_EQ(p.value("fabricmon_port_info{device=\"mlx5_bond_0\",port=\"1\",interface=\"bond0\","
                    "link_layer=\"Ethernet\",rate=\"400 Gb/sec (4X NDR)\"}"),
            1.0);
  EXPECT_TRUE(p.has("fabricmon_port_info{device=\"mlx5_1\",port=\"1\",interface=\"ens1f1np1\","
                    "link_layer=\"Ethernet\",rate=\"400 Gb/sec (4X NDR)\"}"));
  EXPECT_EQ(p.value("fabricmon_port_state{device=\"mlx5_bond_0\",port=\"1\"}"), 4.0);
  EXPECT_EQ(p.value("fabricmon_port_physical_state{device=\"mlx5_bond_0\",port=\"1\"}"), 5.0);
  EXPECT_EQ(p.value("fabricmon_port_state{device=\"mlx5_1\",port=\"1\"}"), 1.0);
  EXPECT_EQ(p.value("fabricmon_port_physical_state{device=\"mlx5_1\",port=\"1\"}"), 3.0);
  EXPECT_EQ(p.value("fabricmon_port_rate_bytes_per_second{device=\"mlx5_bond_0\",port=\"1\"}"), 5e10);
}

TEST_F(RdmaCollectors, IrdmaHasEmptyBoardIdAndHcaType) {
  load("handmade/other_drivers.ttar");
  auto c = makeCollector("rdma_port", sources_, config_);
  Poll p = run(*c);
  EXPECT_TRUE(p.has("fabricmon_device_info{device=\"irdma0\",fw_version=\"1.57\",hca_type=\"\",board_id=\"\","
                    "node_guid=\"6a05:caff:fe32:1c60\"}"));
  EXPECT_TRUE(p.has("fabricmon_port_info{device=\"irdma0\",port=\"1\",interface=\"\",link_layer=\"Ethernet\","
                    "rate=\"100 Gb/sec (4X EDR)\"}"));
}

TEST_F(RdmaCollectors, PortInfoFollowsARateChangeWithoutRediscovery) {
  load("handmade/roce_mlx5.ttar");
  auto c = makeCollector("rdma_port", sources_, config_);
  run(*c);
  tree_.write("class/infiniband/mlx5_bond_0/ports/1/rate", "200 Gb/sec (4X HDR)\n");
  Poll p = run(*c);
  EXPECT_EQ(p.value("fabricmon_port_rate_bytes_per_second{device=\"mlx5_bond_0\",port=\"1\"}"), 2.5e10);
  EXPECT_TRUE(p.has("fabricmon_port_info{device=\"mlx5_bond_0\",port=\"1\",interface=\"bond0\","
                    "link_layer=\"Ethernet\",rate=\"200 Gb/sec (4X HDR)\"}"));
  EXPECT_EQ(p.count("fabricmon_port_info"), 2u);
}

TEST_F(RdmaCollectors, FilesStayOpenAndAreRereadInPlace) {
  load("realdata/procfs_fixtures_sys_class_infiniband.ttar");
  const size_t before = testing::openFileFdCount();
  auto c = makeCollector("hw_counters", sources_, config_);
  run(*c);
  EXPECT_EQ(testing::openFileFdCount(), before + 24);  // one descriptor per counter file
  tree_.write("class/infiniband/mlx5_0/ports/1/hw_counters/local_ack_timeout_err", "132\n");
  Poll p = run(*c);
  EXPECT_EQ(testing::openFileFdCount(), before + 24);  // no reopen
  EXPECT_EQ(p.value(portKey("fabricmon_roce_local_ack_timeouts_total")), 132.0);
  // The series objects are built once and shared between runs.
  Poll again = run(*c);
  ASSERT_EQ(again.samples.size(), p.samples.size());
  for (size_t i = 0; i < p.samples.size(); ++i) EXPECT_EQ(again.samples[i].series, p.samples[i].series);
  c.reset();
  EXPECT_EQ(testing::openFileFdCount(), before);
}

TEST_F(RdmaCollectors, VanishedDeviceDisappearsAndItsFilesAreClosed) {
  load("handmade/roce_mlx5.ttar");
  auto c = makeCollector("hw_counters", sources_, config_);
  const size_t before = testing::openFileFdCount();
  Poll first = run(*c);
  EXPECT_EQ(first.value("fabricmon_roce_cnp_handled_total{device=\"mlx5_1\",port=\"1\"}"), 17.0);
  EXPECT_EQ(testing::openFileFdCount(), before + 29 + 2);  // mlx5_bond_0: 29 counters, mlx5_1: 2 (lifespan skipped)

  fs::remove(tree_.root() / "class/infiniband/mlx5_1");
  fs::remove_all(tree_.root() / "devices/pci0000:16/0000:17:00.1/infiniband/mlx5_1");
  Poll gone = run(*c);  // before discovery notices
  EXPECT_EQ(gone.errors, 0u);
  EXPECT_EQ(testing::openFileFdCount(), before + 29);
  for (const auto& s : gone.samples) EXPECT_NE(s.series->label("device"), "mlx5_1") << s.series->key;
  EXPECT_EQ(gone.samples.size(), 29u);

  rescan();
  EXPECT_EQ(run(*c).samples.size(), 29u);
}

TEST_F(RdmaCollectors, RecreatedDeviceIsReopenedAndNewValuesAreRead) {
  load("handmade/roce_mlx5.ttar");
  auto c = makeCollector("hw_counters", sources_, config_);
  const uint64_t generation = topology_->generation;
  EXPECT_EQ(run(*c).value("fabricmon_roce_cnp_handled_total{device=\"mlx5_1\",port=\"1\"}"), 17.0);

  // Re-create like a driver reload: a new directory (new inode) in place of the old one.
  const fs::path ib = tree_.root() / "devices/pci0000:16/0000:17:00.1/infiniband";
  fs::copy(ib / "mlx5_1", ib / "mlx5_1.new", fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  {
    std::ofstream(ib / "mlx5_1.new/ports/1/hw_counters/rp_cnp_handled") << "3\n";
  }
  fs::rename(ib / "mlx5_1", ib / "mlx5_1.old");  // the old descriptors would still read 17
  fs::rename(ib / "mlx5_1.new", ib / "mlx5_1");
  Poll p = run(*c);
  EXPECT_EQ(p.value("fabricmon_roce_cnp_handled_total{device=\"mlx5_1\",port=\"1\"}"), 3.0);

  rescan();
  EXPECT_GT(topology_->generation, generation);
  EXPECT_EQ(run(*c).value("fabricmon_roce_cnp_handled_total{device=\"mlx5_1\",port=\"1\"}"), 3.0);
}

TEST_F(RdmaCollectors, NoDevicesIsNoData) {
  tree_.write("class/net/lo/operstate", "unknown\n");
  load("handmade/bad_input.ttar");
  fs::remove_all(tree_.root() / "class/infiniband/mlx5_9");
  rescan();
  for (std::string_view name : {"rdma_port", "pma_counters", "hw_counters"}) {
    auto c = makeCollector(name, sources_, config_);
    Poll p = run(*c);
    EXPECT_EQ(p.status, CollectStatus::kNoData) << c->name();
    EXPECT_TRUE(p.samples.empty());
  }
}

TEST_F(RdmaCollectors, EveryEmittedFamilyIsDeclared) {
  load("handmade/roce_mlx5.ttar", NetdevConfig{{"lo"}});
  for (std::string_view name : {"rdma_port", "pma_counters", "hw_counters"}) {
    auto c = makeCollector(name, sources_, config_);
    const auto families = c->families();
    for (const auto& s : run(*c).samples) {
      EXPECT_NE(std::find(families.begin(), families.end(), s.series->family), families.end()) << s.series->key;
    }
  }
}

}  // namespace
}  // namespace fabricmon
