// Every way a counter file can be bad: each one is one skipped value for that poll, counted as a
// per-file error; never a crash, never a wrong value, never the previous value reused.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

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

class RdmaBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.unpack("handmade/bad_input.ttar");
    sources_.sysfs = std::make_shared<SysfsRoot>(tree_.root());
    TopologyDiscovery discovery(sources_.sysfs, {}, {});
    auto t = discovery.scan();
    ASSERT_TRUE(t.ok());
    topology_ = *t;
  }
  Poll run(Collector& c) { return testing::poll(c, *topology_, tracker_); }
  static std::string key(const std::string& family) { return family + "{device=\"mlx5_9\",port=\"1\"}"; }
  static std::string generic(const std::string& counter) {
    return "fabricmon_pma_stat_total{device=\"mlx5_9\",port=\"1\",counter=\"" + counter + "\"}";
  }
  std::string counters() const { return (tree_.root() / "class/infiniband/mlx5_9/ports/1/counters").string(); }

  TempTree tree_;
  Sources sources_;
  Config config_;
  TopologyPtr topology_;
  ErrorTracker tracker_{"test"};
};

TEST_F(RdmaBadInput, EachBadFileIsOneSkippedValue) {
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll p = run(*c);
  EXPECT_EQ(p.status, CollectStatus::kOk);
  struct Row {
    std::string key;
    std::optional<double> expected;  ///< nullopt: skipped
  };
  const Row rows[] = {
      {key("fabricmon_port_transmit_bytes_total"), std::nullopt},    // empty file
      {key("fabricmon_port_receive_bytes_total"), std::nullopt},     // "N/A (no PMA)": unsupported
      {key("fabricmon_port_transmit_packets_total"), std::nullopt},  // 2^64: beyond 64 bits
      {key("fabricmon_port_receive_packets_total"), 42.0},           // no trailing newline: fine
      {key("fabricmon_port_receive_errors_total"), std::nullopt},    // a directory: EISDIR
      {key("fabricmon_port_symbol_errors_total"), 12.0},
      {key("fabricmon_port_link_downed_total"), std::nullopt},  // "-1"
      {generic("VL15_dropped"), std::nullopt},                  // "12abc"
      {key("fabricmon_port_transmit_wait_total"), 18446744073709551615.0},  // 2^64-1 is a valid u64
  };
  for (const auto& r : rows) EXPECT_EQ(p.value(r.key), r.expected) << r.key;
  // The five unreadable files' series (and a narrow counter's saturation flag) are unread, not gone:
  // the watchdog holds their history. An unsupported file is neither.
  EXPECT_EQ(p.unread, (std::set<std::string>{
                          key("fabricmon_port_transmit_bytes_total"),
                          key("fabricmon_port_transmit_packets_total"),
                          key("fabricmon_port_receive_errors_total"),
                          "fabricmon_port_pma_saturated{device=\"mlx5_9\",port=\"1\",counter=\"port_rcv_errors\"}",
                          key("fabricmon_port_link_downed_total"),
                          "fabricmon_port_pma_saturated{device=\"mlx5_9\",port=\"1\",counter=\"link_downed\"}",
                          generic("VL15_dropped"),
                          "fabricmon_port_pma_saturated{device=\"mlx5_9\",port=\"1\",counter=\"VL15_dropped\"}",
                      }));
  EXPECT_FALSE(p.has("fabricmon_port_pma_saturated{device=\"mlx5_9\",port=\"1\",counter=\"port_rcv_errors\"}"));
  EXPECT_EQ(p.value("fabricmon_port_pma_saturated{device=\"mlx5_9\",port=\"1\",counter=\"symbol_error\"}"), 0.0);
  // Five errors: "N/A (no PMA)" is i40iw saying it has no PMA, logged once as unsupported.
  EXPECT_EQ(p.errors, 5u);
  EXPECT_EQ(tracker_.failingCount(), 5u);
}

TEST_F(RdmaBadInput, FifoIsAPerFileErrorNotAHang) {
  const std::string fifo = counters() + "/fifo_counter";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll p = run(*c);  // would block forever if the FIFO were opened for a blocking read
  EXPECT_FALSE(p.has(generic("fifo_counter")));
  EXPECT_EQ(p.errors, 6u);
}

TEST_F(RdmaBadInput, UnreadableFileIsAPerFileError) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: permission bits do not stop root, EACCES cannot happen";
  const std::string file = counters() + "/symbol_error";
  ASSERT_EQ(::chmod(file.c_str(), 0), 0);
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll p = run(*c);
  EXPECT_FALSE(p.has(key("fabricmon_port_symbol_errors_total")));
  EXPECT_EQ(p.errors, 6u);
}

TEST_F(RdmaBadInput, ListedButMissingFileIsAPerFileError) {
  // A directory entry whose target is gone (ENOENT at open), as when an attribute vanishes
  // between listing and reading.
  fs::create_symlink("does_not_exist", counters() + "/port_rcv_switch_relay_errors");
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll p = run(*c);
  EXPECT_FALSE(p.has(generic("port_rcv_switch_relay_errors")));
  EXPECT_EQ(p.errors, 6u);
  EXPECT_EQ(p.value(key("fabricmon_port_symbol_errors_total")), 12.0);  // the port still reports
}

TEST_F(RdmaBadInput, PreviousValueIsNeverReused) {
  auto c = makeCollector("pma_counters", sources_, config_);
  const std::string file = counters() + "/symbol_error";
  EXPECT_EQ(run(*c).value(key("fabricmon_port_symbol_errors_total")), 12.0);
  std::ofstream(file, std::ios::trunc) << "garbage\n";
  Poll bad = run(*c);
  EXPECT_FALSE(bad.has(key("fabricmon_port_symbol_errors_total")));
  EXPECT_FALSE(bad.has("fabricmon_port_pma_saturated{device=\"mlx5_9\",port=\"1\",counter=\"symbol_error\"}"));
  std::ofstream(file, std::ios::trunc) << "13\n";
  Poll good = run(*c);
  EXPECT_EQ(good.value(key("fabricmon_port_symbol_errors_total")), 13.0);
  EXPECT_EQ(good.errors, 5u);
  std::ofstream(file, std::ios::trunc) << "";
  EXPECT_FALSE(run(*c).has(key("fabricmon_port_symbol_errors_total")));
}

TEST_F(RdmaBadInput, RecoveredFileEndsItsLoggedFailure) {
  auto c = makeCollector("pma_counters", sources_, config_);
  run(*c);
  EXPECT_EQ(tracker_.failingCount(), 5u);
  std::ofstream(counters() + "/port_xmit_data", std::ios::trunc) << "10\n";
  Poll p = run(*c);
  EXPECT_EQ(p.value(key("fabricmon_port_transmit_bytes_total")), 40.0);
  EXPECT_EQ(tracker_.failingCount(), 4u);
}

TEST_F(RdmaBadInput, UnparsablePortFilesAreSkipped) {
  auto c = makeCollector("rdma_port", sources_, config_);
  Poll p = run(*c);
  EXPECT_EQ(p.value(key("fabricmon_port_state")), 4.0);
  EXPECT_FALSE(p.has(key("fabricmon_port_physical_state")));      // "garbage"
  EXPECT_FALSE(p.has(key("fabricmon_port_rate_bytes_per_second")));  // "fast"
  EXPECT_EQ(p.errors, 2u);
  // The port is still described; "fast" is no rate, so the label is empty rather than garbage.
  EXPECT_TRUE(p.has("fabricmon_port_info{device=\"mlx5_9\",port=\"1\",interface=\"\",link_layer=\"InfiniBand\",rate=\"\"}"));
  // Empty node_guid file: the label is empty, the device is still described.
  EXPECT_TRUE(p.has("fabricmon_device_info{device=\"mlx5_9\",fw_version=\"28.39.1002\",hca_type=\"MT4129\","
                    "board_id=\"MT_0000000838\",node_guid=\"\"}"));
}

}  // namespace
}  // namespace fabricmon
