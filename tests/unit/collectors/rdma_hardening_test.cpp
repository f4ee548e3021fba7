// Issue 16: values checked against their domain, a file is the file at its path, absent is not an
// error, and kept descriptors are capped. Each test fails on the code before the fix.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "collectors/sources/dcb_source.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/dir_handles.hpp"
#include "collectors/sources/parse.hpp"
#include "collectors/sources/sysfs.hpp"
#include "collectors/topology_discovery.hpp"
#include "rdma_test_support.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;
using testing::Poll;
using testing::TempTree;

// ---- parse: the domain of every value ----

TEST(ParseDomain, RateIsFinitePositiveAndInGbPerSecond) {
  struct Row {
    const char* text;
    std::optional<double> bytes;
  };
  const Row rows[] = {
      {"400 Gb/sec (4X NDR)", 5e10},
      {"2.5 Gb/sec (1X SDR)", 2.5e9 / 8},
      {"10 Gb/sec (4X)", 10e9 / 8},  // kernels before the speed names printed only the width
      {"25 Gb/sec", 25e9 / 8},
      {"200 Gb/sec (4X HDR)\n", 2.5e10},
      {"nan Gb/sec", std::nullopt},
      {"NaN Gb/sec", std::nullopt},
      {"inf Gb/sec", std::nullopt},
      {"-inf Gb/sec", std::nullopt},
      {"1e300 Gb/sec", std::nullopt},
      {"1e2 Gb/sec", std::nullopt},
      {"400 Mb/sec", std::nullopt},  // the kernel never prints Mb/sec (rate_show)
      {"400 Tb/sec", std::nullopt},
      {"0 Gb/sec (4X)", std::nullopt},
      {"-400 Gb/sec", std::nullopt},
      {"400 Gb/secx", std::nullopt},
      {"400 Gb/sec junk", std::nullopt},
      {"1.2.3 Gb/sec", std::nullopt},
      {"999999999 Gb/sec", std::nullopt},
      {"fast", std::nullopt},
      {"", std::nullopt},
  };
  for (const auto& r : rows) {
    auto v = parseRateBytesPerSecond(r.text);
    if (r.bytes) {
      ASSERT_TRUE(v.ok()) << r.text << ": " << v.error().message;
      EXPECT_DOUBLE_EQ(*v, *r.bytes) << r.text;
    } else {
      EXPECT_FALSE(v.ok()) << r.text << " gave " << (v.ok() ? *v : 0.0);
    }
  }
}

TEST(ParseDomain, PortStatesAreTheKernelsOnly) {
  EXPECT_EQ(parsePortState("4: ACTIVE").value(), 4u);
  EXPECT_EQ(parsePortState("1: DOWN").value(), 1u);
  EXPECT_EQ(parsePortState("5: ACTIVE_DEFER").value(), 5u);
  EXPECT_EQ(parsePortState("4").value(), 4u);
  EXPECT_FALSE(parsePortState("6: ACTIVE").ok());
  EXPECT_FALSE(parsePortState("-1: DOWN").ok());
  EXPECT_FALSE(parsePortState("99").ok());
  EXPECT_EQ(parsePhysState("5: LinkUp").value(), 5u);
  EXPECT_EQ(parsePhysState("7: Phy Test").value(), 7u);
  EXPECT_EQ(parsePhysState("3: Disabled").value(), 3u);
  EXPECT_FALSE(parsePhysState("8: LinkUp").ok());
  EXPECT_FALSE(parsePhysState("garbage").ok());
}

TEST(ParseDomain, OperstateIsAnRfc2863NameAndSwitchesAreZeroOrOne) {
  EXPECT_EQ(parseOperstateUp("up").value(), 1.0);
  for (const char* s : {"down", "unknown", "lowerlayerdown", "dormant", "notpresent", "testing"}) {
    EXPECT_EQ(parseOperstateUp(s).value(), 0.0) << s;
  }
  for (const char* s : {"upx", "UP", "", "1", "up up"}) EXPECT_FALSE(parseOperstateUp(s).ok()) << s;
  EXPECT_EQ(parseSwitch("0\n").value(), 0.0);
  EXPECT_EQ(parseSwitch("1").value(), 1.0);
  for (const char* s : {"-5", "2", "01", "1.0", "", "yes"}) EXPECT_FALSE(parseSwitch(s).ok()) << s;
}

TEST(ParseDomain, InterfaceFlagsGiveIffUp) {
  EXPECT_EQ(parseNetdevFlagsUp("0x1003\n").value(), 1.0);  // IFF_UP|IFF_BROADCAST|IFF_MULTICAST
  EXPECT_EQ(parseNetdevFlagsUp("0x1002").value(), 0.0);    // ip link set down
  EXPECT_EQ(parseNetdevFlagsUp("0x9").value(), 1.0);       // lo
  EXPECT_EQ(parseNetdevFlagsUp("0xffffffff").value(), 1.0);
  EXPECT_EQ(parseNetdevFlagsUp("0").value(), 0.0);  // "%#x" of zero
  for (const char* s : {"", "0x", "1003", "0x1g03", "0x100000000", "-0x1", "0x 1"}) {
    EXPECT_FALSE(parseNetdevFlagsUp(s).ok()) << s;
  }
}

// ---- collectors over the bad_input fixture ----

class RdmaHardening : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.unpack("handmade/bad_input.ttar");
    sources_.sysfs = std::make_shared<SysfsRoot>(tree_.root());
    rescan();
  }
  void TearDown() override {
    CounterFile::setMaxKeptFiles(kDefaultMaxKeptFiles);
    CounterFile::setClockForTests(nullptr);
  }
  void rescan() {
    TopologyDiscovery discovery(sources_.sysfs, {}, {});
    auto t = discovery.scan();
    ASSERT_TRUE(t.ok());
    topology_ = *t;
  }
  Poll run(Collector& c) { return testing::poll(c, *topology_, tracker_); }
  static std::string key(const std::string& family) { return family + "{device=\"mlx5_9\",port=\"1\"}"; }
  fs::path port() const { return tree_.root() / "class/infiniband/mlx5_9/ports/1"; }
  fs::path counters() const { return port() / "counters"; }
  // Replaces a file the way editors and config management do: write a new one, rename it over.
  static void replaceByRename(const fs::path& file, const std::string& text) {
    const fs::path tmp = file.string() + ".new";
    std::ofstream(tmp) << text;
    fs::rename(tmp, file);
  }

  /// netdev_link over a tree of its own holding one interface, eth0: operstate up, 4 carrier
  /// changes. Call under ASSERT_NO_FATAL_FAILURE.
  struct NetdevLink {
    TempTree tree;
    Sources sources;
    TopologyPtr topology;
    std::unique_ptr<Collector> collector;
  };
  void setUpNetdevLinkOverEth0() {
    eth0_ = std::make_unique<NetdevLink>();
    eth0_->tree.write("class/net/eth0/operstate", "up\n");
    eth0_->tree.write("class/net/eth0/carrier_changes", "4\n");
    eth0_->sources.sysfs = std::make_shared<SysfsRoot>(eth0_->tree.root());
    TopologyDiscovery discovery(eth0_->sources.sysfs, {}, NetdevConfig{{"eth0"}});
    auto t = discovery.scan();
    ASSERT_TRUE(t.ok());
    eth0_->topology = *t;
    eth0_->collector = makeCollector("netdev_link", eth0_->sources, config_);
  }
  Poll pollEth0() { return testing::poll(*eth0_->collector, *eth0_->topology, tracker_); }

  TempTree tree_;
  Sources sources_;
  Config config_;
  TopologyPtr topology_;
  ErrorTracker tracker_{"test"};
  std::unique_ptr<NetdevLink> eth0_;
};

TEST_F(RdmaHardening, RateOutsideItsDomainIsAnErrorNeverNanOrInf) {
  auto c = makeCollector("rdma_port", sources_, config_);
  for (const char* text : {"nan Gb/sec", "inf Gb/sec", "1e300 Gb/sec", "400 Mb/sec"}) {
    std::ofstream(port() / "rate", std::ios::trunc) << text << "\n";
    Poll p = run(*c);
    EXPECT_FALSE(p.has(key("fabricmon_port_rate_bytes_per_second"))) << text;
    for (const auto& s : p.samples) EXPECT_TRUE(std::isfinite(s.value)) << text << ": " << s.series->key;
    EXPECT_EQ(p.errors, 2u) << text;  // rate and the fixture's bad phys_state
  }
  std::ofstream(port() / "rate", std::ios::trunc) << "400 Gb/sec (4X NDR)\n";
  EXPECT_EQ(run(*c).value(key("fabricmon_port_rate_bytes_per_second")), 5e10);
}

TEST_F(RdmaHardening, PortInfoDoesNotDependOnTheRateBeingReadable) {
  auto c = makeCollector("rdma_port", sources_, config_);
  fs::remove(port() / "rate");
  fs::create_directory(port() / "rate");  // EISDIR: unreadable
  Poll p = run(*c);
  EXPECT_EQ(p.count("fabricmon_port_info"), 1u);
  EXPECT_TRUE(p.has("fabricmon_port_info{device=\"mlx5_9\",port=\"1\",interface=\"\",link_layer=\"InfiniBand\",rate=\"\"}"))
      << "samples: " << p.samples.size();
  EXPECT_FALSE(p.has(key("fabricmon_port_rate_bytes_per_second")));
  EXPECT_EQ(p.value(key("fabricmon_port_state")), 4.0);
}

TEST_F(RdmaHardening, RateIsReadOncePerPollForItsSeriesAndThePortInfo) {
  // The port's rate series and fabricmon_port_info's rate label come from one read of the file:
  // the info keeps no descriptor of its own (docs/benchmarks.md, "Fifth pass: CPU").
  std::ofstream(port() / "rate", std::ios::trunc) << "400 Gb/sec (4X NDR)\n";
  auto c = makeCollector("rdma_port", sources_, config_);
  const size_t before = testing::openFileFdCount();
  Poll p = run(*c);
  EXPECT_EQ(p.value(key("fabricmon_port_rate_bytes_per_second")), 5e10);
  EXPECT_TRUE(p.has("fabricmon_port_info{device=\"mlx5_9\",port=\"1\",interface=\"\",link_layer=\"InfiniBand\","
                    "rate=\"400 Gb/sec (4X NDR)\"}"));
  EXPECT_EQ(testing::openFileFdCount(), before + 3);  // state, phys_state, rate
  std::ofstream(port() / "rate", std::ios::trunc) << "200 Gb/sec (4X HDR)\n";
  Poll q = run(*c);
  EXPECT_EQ(q.value(key("fabricmon_port_rate_bytes_per_second")), 2.5e10);
  EXPECT_TRUE(q.has("fabricmon_port_info{device=\"mlx5_9\",port=\"1\",interface=\"\",link_layer=\"InfiniBand\","
                    "rate=\"200 Gb/sec (4X HDR)\"}"));
  EXPECT_EQ(q.count("fabricmon_port_info"), 1u);
  EXPECT_EQ(testing::openFileFdCount(), before + 3);
}

TEST_F(RdmaHardening, UnknownStatesAreErrorsNotPlausibleNumbers) {
  auto c = makeCollector("rdma_port", sources_, config_);
  std::ofstream(port() / "state", std::ios::trunc) << "9: WEIRD\n";
  std::ofstream(port() / "phys_state", std::ios::trunc) << "42: LinkUp\n";
  Poll p = run(*c);
  EXPECT_FALSE(p.has(key("fabricmon_port_state")));
  EXPECT_FALSE(p.has(key("fabricmon_port_physical_state")));
  EXPECT_EQ(p.errors, 3u);  // state, phys_state, and the fixture's "fast" rate
}

TEST_F(RdmaHardening, NoPmaIsUnsupportedOnceNotAnErrorEveryPoll) {
  // The fixture's port_rcv_data holds i40iw's "N/A (no PMA)".
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll first = run(*c);
  EXPECT_FALSE(first.has(key("fabricmon_port_receive_bytes_total")));
  EXPECT_EQ(first.errors, 5u);  // the fixture's other five bad files
  Poll second = run(*c);
  EXPECT_EQ(second.errors, 5u);
  EXPECT_EQ(tracker_.failingCount(), 5u);
}

TEST_F(RdmaHardening, CounterReplacedByRenameIsReopenedWithinTwoPolls) {
  auto c = makeCollector("pma_counters", sources_, config_);
  EXPECT_EQ(run(*c).value(key("fabricmon_port_symbol_errors_total")), 12.0);
  replaceByRename(counters() / "symbol_error", "3\n");  // went down: a reset, exported as is
  std::optional<double> seen;
  for (int i = 0; i < 2 && seen != 3.0; ++i) seen = run(*c).value(key("fabricmon_port_symbol_errors_total"));
  EXPECT_EQ(seen, 3.0) << "the kept descriptor still reads the replaced inode";
  replaceByRename(counters() / "symbol_error", "40\n");
  seen.reset();
  for (int i = 0; i < 2 && seen != 40.0; ++i) seen = run(*c).value(key("fabricmon_port_symbol_errors_total"));
  EXPECT_EQ(seen, 40.0);
}

TEST_F(RdmaHardening, DeletedCounterIsAbsentAndItsErrorCounted) {
  auto c = makeCollector("pma_counters", sources_, config_);
  Poll before = run(*c);
  EXPECT_EQ(before.value(key("fabricmon_port_symbol_errors_total")), 12.0);
  fs::remove(counters() / "symbol_error");
  Poll p = run(*c);
  Poll q = run(*c);
  EXPECT_FALSE(p.has(key("fabricmon_port_symbol_errors_total")) && q.has(key("fabricmon_port_symbol_errors_total")));
  EXPECT_FALSE(q.has(key("fabricmon_port_symbol_errors_total")));
  EXPECT_EQ(q.errors, before.errors + 1);
}

TEST_F(RdmaHardening, SlowCadenceNoticesAReplacedFileEvenWithoutADirectoryChange) {
  const fs::path file = tree_.root() / "value";
  std::ofstream(file) << "1\n";
  CounterFile cf(file.string());
  EXPECT_EQ(cf.readU64().value(), 1u);
  // Replace, then put the directory's stamp back is impossible; read the file directly instead:
  // the identity check runs by itself every kIdentityCheckReads reads.
  replaceByRename(file, "2\n");
  unsigned reads = 0;
  uint64_t v = 1;
  while (v == 1 && reads < 2 * CounterFile::kIdentityCheckReads) {
    v = cf.readU64().value();
    ++reads;
  }
  EXPECT_EQ(v, 2u);
  EXPECT_LE(reads, CounterFile::kIdentityCheckReads);
}

TEST_F(RdmaHardening, KeptDescriptorsAreCappedAndReadsBeyondTheCapStillWork) {
  const size_t before = CounterFile::keptFiles();
  const size_t dirsBefore = keptDirs();
  CounterFile::setMaxKeptFiles(before + 2);
  std::vector<CounterFile> files;
  for (int i = 0; i < 6; ++i) {
    const fs::path f = tree_.root() / ("c" + std::to_string(i));
    std::ofstream(f) << i * 10 << "\n";
    files.emplace_back(f.string());
  }
  const size_t fds = testing::openFdCount();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 6; ++i) EXPECT_EQ(files[i].readU64().value(), static_cast<uint64_t>(i * 10));
  }
  EXPECT_EQ(CounterFile::keptFiles(), before + 2);
  // The four beyond the cap are opened below one handle of their directory (dir_handles.hpp).
  EXPECT_EQ(keptDirs(), dirsBefore + 1);
  EXPECT_EQ(testing::openFdCount(), fds + 2 + 1);
  // Values still follow the files beyond the cap.
  std::ofstream(tree_.root() / "c5", std::ios::trunc) << "77\n";
  EXPECT_EQ(files[5].readU64().value(), 77u);
  files.clear();
  EXPECT_EQ(CounterFile::keptFiles(), before);
  EXPECT_EQ(keptDirs(), dirsBefore);  // the handle went with the last file below it
}

uint32_t gTestMs = 1;
uint32_t testClock() { return gTestMs; }

TEST_F(RdmaHardening, KeptSlotsGoToTheFilesReadMostOften) {
  // Two PMA-like files read every 10 s take the two slots first; three hw_counters-like files read
  // every second are refused. At their next read the slow files give their slots up.
  CounterFile::setClockForTests(&testClock);
  const size_t before = CounterFile::keptFiles();
  CounterFile::setMaxKeptFiles(before + 2);
  std::vector<CounterFile> slow, fast;
  for (int i = 0; i < 2; ++i) {
    std::ofstream(tree_.root() / ("pma" + std::to_string(i))) << i << "\n";
    slow.emplace_back((tree_.root() / ("pma" + std::to_string(i))).string());
  }
  for (int i = 0; i < 3; ++i) {
    std::ofstream(tree_.root() / ("hw" + std::to_string(i))) << 10 + i << "\n";
    fast.emplace_back((tree_.root() / ("hw" + std::to_string(i))).string());
  }
  auto readAll = [](std::vector<CounterFile>& files, int first) {
    for (size_t i = 0; i < files.size(); ++i) EXPECT_EQ(files[i].readU64().value(), static_cast<uint64_t>(first + i));
  };
  gTestMs = 1000;
  readAll(slow, 0);
  for (gTestMs = 1000; gTestMs <= 10000; gTestMs += 1000) readAll(fast, 10);
  EXPECT_TRUE(slow[0].kept() && slow[1].kept());
  EXPECT_FALSE(fast[0].kept() || fast[1].kept() || fast[2].kept());

  gTestMs = 11000;
  readAll(slow, 0);  // values still right; the descriptors go
  EXPECT_FALSE(slow[0].kept() || slow[1].kept());
  for (gTestMs = 11000; gTestMs <= 15000; gTestMs += 1000) readAll(fast, 10);
  EXPECT_EQ(fast[0].kept() + fast[1].kept() + fast[2].kept(), 2);
  EXPECT_EQ(CounterFile::keptFiles(), before + 2);

  // Files read equally often never take slots from each other: the kept ones stay kept.
  std::vector<bool> keptNow;
  for (auto& f : fast) keptNow.push_back(f.kept());
  for (gTestMs = 16000; gTestMs <= 30000; gTestMs += 1000) readAll(fast, 10);
  for (size_t i = 0; i < fast.size(); ++i) EXPECT_EQ(fast[i].kept(), keptNow[i]);
  CounterFile::setClockForTests(nullptr);
}

TEST_F(RdmaHardening, CarrierCountsMissingOnOldKernelsAreNotErrors) {
  ASSERT_NO_FATAL_FAILURE(setUpNetdevLinkOverEth0());
  for (int i = 0; i < 3; ++i) {
    Poll p = pollEth0();
    EXPECT_EQ(p.errors, 0u);
    EXPECT_EQ(p.value("fabricmon_netdev_carrier_changes_total{interface=\"eth0\"}"), 4.0);
  }
  eth0_->tree.write("class/net/eth0/operstate", "upx\n");
  Poll bad = pollEth0();
  EXPECT_FALSE(bad.has("fabricmon_netdev_up{interface=\"eth0\"}"));
  EXPECT_EQ(bad.errors, 1u);
}

TEST_F(RdmaHardening, InterfaceAttributeReplacedByRenameIsReadAnewWithinTwoPolls) {
  // netdev_link's files sit in the interface's own directory: its stamp comes from the group's
  // per-poll stat of that directory, and a file renamed over it must still be noticed.
  ASSERT_NO_FATAL_FAILURE(setUpNetdevLinkOverEth0());
  const std::string changes = "fabricmon_netdev_carrier_changes_total{interface=\"eth0\"}";
  EXPECT_EQ(pollEth0().value(changes), 4.0);
  replaceByRename(eth0_->tree.root() / "class/net/eth0/carrier_changes", "9\n");
  std::optional<double> seen;
  for (int i = 0; i < 2 && seen != 9.0; ++i) seen = pollEth0().value(changes);
  EXPECT_EQ(seen, 9.0) << "the kept descriptor still reads the replaced inode";
}

TEST(DomainChecks, DcqcnEnableIsZeroOrOne) {
  TempTree tree;
  for (const char* role : {"roce_np", "roce_rp"}) {
    tree.write(std::string("class/net/eth0/ecn/") + role + "/enable/3", "1\n");
    tree.write(std::string("class/net/eth0/ecn/") + role + "/enable/4", "0\n");
  }
  tree.write("class/net/eth0/ecn/roce_np/min_time_between_cnps", "4\n");
  Sources sources;
  sources.sysfs = std::make_shared<SysfsRoot>(tree.root());
  auto c = makeCollector("dcqcn_config", sources, Config{});
  Topology topo;
  Netdev eth0;
  eth0.name = "eth0";
  topo.netdevs.push_back(eth0);
  ErrorTracker tracker{"dcqcn"};
  Poll good = testing::poll(*c, topo, tracker);
  EXPECT_EQ(good.errors, 0u);
  EXPECT_EQ(good.value("fabricmon_dcqcn_np_enabled{interface=\"eth0\",priority=\"3\"}"), 1.0);
  tree.write("class/net/eth0/ecn/roce_np/enable/3", "-5\n");
  tree.write("class/net/eth0/ecn/roce_rp/enable/3", "2\n");
  Poll bad = testing::poll(*c, topo, tracker);
  EXPECT_FALSE(bad.has("fabricmon_dcqcn_np_enabled{interface=\"eth0\",priority=\"3\"}"));
  EXPECT_FALSE(bad.has("fabricmon_dcqcn_rp_enabled{interface=\"eth0\",priority=\"3\"}"));
  EXPECT_EQ(bad.errors, 2u);
  EXPECT_EQ(bad.value("fabricmon_dcqcn_parameter{interface=\"eth0\",role=\"np\",parameter=\"min_time_between_cnps\"}"), 4.0);
}

TEST(DomainChecks, DcbYamlWithADuplicateKeyIsAnError) {
  TempTree tree;
  auto source = makeDcbFileSource(tree.root());
  tree.write("eth0", "pfc_enabled: [3]\ntrust: dscp\n");
  auto ok = source->read("eth0");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_TRUE(ok->has_value());
  for (const char* text : {"pfc_enabled: [3]\ntrust: dscp\ntrust: pcp\n",
                           "pfc_enabled: [3]\npfc_enabled: [4]\n",
                           "pfc_enabled: [3, 3]\n",
                           "pfc_enabled: [3]\ndscp_to_priority: {26: 3, 26: 5}\n"}) {
    tree.write("eth0", text);
    auto r = source->read("eth0");
    EXPECT_FALSE(r.ok()) << text;
  }
}

TEST(DomainChecks, FilesInClassNetAreNotInterfaces) {
  TempTree tree;
  tree.write("class/net/eth0/operstate", "up\n");
  tree.write("class/net/bonding_masters", "bond0\n");
  auto sysfs = std::make_shared<SysfsRoot>(tree.root());
  TopologyDiscovery discovery(sysfs, {}, NetdevConfig{{".*"}});
  auto t = discovery.scan();
  ASSERT_TRUE(t.ok());
  ASSERT_EQ((*t)->netdevs.size(), 1u);
  EXPECT_EQ((*t)->netdevs.front().name, "eth0");
}

// EFA has no PMA (no ports/1/counters); its hw_counters count the port's bytes
// (drivers/infiniband/hw/efa/efa_verbs.c).
TEST(PortBytes, EfaHwCountersBecomeThePortByteMetrics) {
  TempTree tree;
  const std::string dev = "class/infiniband/efa_0/";
  tree.write(dev + "ports/1/state", "4: ACTIVE\n");
  tree.write(dev + "ports/1/link_layer", "Unspecified\n");
  tree.write(dev + "ports/1/hw_counters/tx_bytes", "1000\n");
  tree.write(dev + "ports/1/hw_counters/rx_bytes", "2000\n");
  tree.write(dev + "ports/1/hw_counters/tx_pkts", "10\n");
  Sources sources;
  sources.sysfs = std::make_shared<SysfsRoot>(tree.root());
  TopologyDiscovery discovery(sources.sysfs, {}, {});
  auto t = discovery.scan();
  ASSERT_TRUE(t.ok());
  ASSERT_EQ((*t)->devices.size(), 1u);
  auto c = makeCollector("hw_counters", sources, Config{});
  ErrorTracker tracker{"hw"};
  Poll p = testing::poll(*c, **t, tracker);
  EXPECT_EQ(p.value("fabricmon_port_transmit_bytes_total{device=\"efa_0\",port=\"1\"}"), 1000.0);
  EXPECT_EQ(p.value("fabricmon_port_receive_bytes_total{device=\"efa_0\",port=\"1\"}"), 2000.0);
  EXPECT_EQ(p.count("fabricmon_port_transmit_bytes_total"), 1u);
}

// The promotion is decided per direction: a PMA with port_rcv_data but no port_xmit_data keeps
// the receive bytes (×4) and takes the driver's tx_bytes for the transmit side only. rx_bytes
// counts the RDMA engine's bytes, another quantity: it stays a generic hw counter.
TEST(PortBytes, PromotedPerDirectionWhereThatDirectionHasNoPma) {
  TempTree tree;
  const std::string dev = "class/infiniband/efa_0/";
  tree.write(dev + "ports/1/state", "4: ACTIVE\n");
  tree.write(dev + "ports/1/link_layer", "Unspecified\n");
  tree.write(dev + "ports/1/counters/port_rcv_data", "100\n");
  tree.write(dev + "ports/1/hw_counters/tx_bytes", "1000\n");
  tree.write(dev + "ports/1/hw_counters/rx_bytes", "14\n");
  Sources sources;
  sources.sysfs = std::make_shared<SysfsRoot>(tree.root());
  TopologyDiscovery discovery(sources.sysfs, {}, {});
  auto t = discovery.scan();
  ASSERT_TRUE(t.ok());
  ErrorTracker tracker{"test"};
  Poll hw = testing::poll(*makeCollector("hw_counters", sources, Config{}), **t, tracker);
  Poll pma = testing::poll(*makeCollector("pma_counters", sources, Config{}), **t, tracker);
  EXPECT_EQ(hw.value("fabricmon_port_transmit_bytes_total{device=\"efa_0\",port=\"1\"}"), 1000.0);
  EXPECT_FALSE(hw.has("fabricmon_port_receive_bytes_total{device=\"efa_0\",port=\"1\"}"));
  EXPECT_EQ(hw.value("fabricmon_hw_stat_total{device=\"efa_0\",port=\"1\",counter=\"rx_bytes\"}"), 14.0);
  EXPECT_EQ(pma.value("fabricmon_port_receive_bytes_total{device=\"efa_0\",port=\"1\"}"), 400.0);
  EXPECT_FALSE(pma.has("fabricmon_port_transmit_bytes_total{device=\"efa_0\",port=\"1\"}"));
}

// A PMA file that exists and cannot be parsed is an error of that file: the driver's byte count
// does not quietly stand in for it.
TEST(PortBytes, AnUnreadablePmaFileStaysAnErrorAndIsNotReplaced) {
  TempTree tree;
  const std::string dev = "class/infiniband/efa_0/";
  tree.write(dev + "ports/1/state", "4: ACTIVE\n");
  tree.write(dev + "ports/1/link_layer", "Unspecified\n");
  tree.write(dev + "ports/1/counters/port_rcv_data", "not a number\n");
  tree.write(dev + "ports/1/hw_counters/rx_bytes", "14\n");
  tree.write(dev + "ports/1/hw_counters/tx_bytes", "15\n");
  Sources sources;
  sources.sysfs = std::make_shared<SysfsRoot>(tree.root());
  TopologyDiscovery discovery(sources.sysfs, {}, {});
  auto t = discovery.scan();
  ASSERT_TRUE(t.ok());
  ErrorTracker hwTracker{"hw"};
  ErrorTracker pmaTracker{"pma"};
  Poll hw = testing::poll(*makeCollector("hw_counters", sources, Config{}), **t, hwTracker);
  Poll pma = testing::poll(*makeCollector("pma_counters", sources, Config{}), **t, pmaTracker);
  EXPECT_EQ(hw.count("fabricmon_port_receive_bytes_total"), 0u) << "the hw counter does not stand in";
  EXPECT_EQ(hw.value("fabricmon_port_transmit_bytes_total{device=\"efa_0\",port=\"1\"}"), 15.0)
      << "no PMA transmit file: the driver's count is the port's";
  EXPECT_EQ(pma.count("fabricmon_port_receive_bytes_total"), 0u);
  EXPECT_EQ(pma.errors, 1u) << "the unparsable PMA file is an error of that file";
}

// counters_ext/port_xmit_data_64 is the PMA's transmit count as much as counters/port_xmit_data.
TEST(PortBytes, AnExtendedPmaCounterAlsoKeepsTheDriverBytesGeneric) {
  TempTree tree;
  const std::string dev = "class/infiniband/mlx4_0/";
  tree.write(dev + "ports/1/state", "4: ACTIVE\n");
  tree.write(dev + "ports/1/link_layer", "InfiniBand\n");
  tree.write(dev + "ports/1/counters_ext/port_xmit_data_64", "10\n");
  tree.write(dev + "ports/1/hw_counters/tx_bytes", "15\n");
  Sources sources;
  sources.sysfs = std::make_shared<SysfsRoot>(tree.root());
  TopologyDiscovery discovery(sources.sysfs, {}, {});
  auto t = discovery.scan();
  ASSERT_TRUE(t.ok());
  ErrorTracker tracker{"hw"};
  Poll hw = testing::poll(*makeCollector("hw_counters", sources, Config{}), **t, tracker);
  EXPECT_EQ(hw.count("fabricmon_port_transmit_bytes_total"), 0u);
  EXPECT_EQ(hw.value("fabricmon_hw_stat_total{device=\"mlx4_0\",port=\"1\",counter=\"tx_bytes\"}"), 15.0);
}

// mlx4 keeps its 64-bit data and packet counters in counters_ext/ (core/sysfs.c pma_group_ext).
TEST(PortBytes, CountersExtGivesTheSixtyFourBitPortCounters) {
  TempTree tree;
  const std::string port = "class/infiniband/mlx4_0/ports/1/";
  tree.write(port + "state", "4: ACTIVE\n");
  tree.write(port + "link_layer", "InfiniBand\n");
  tree.write(port + "counters/port_xmit_data", "4294967295\n");  // the 32-bit one, saturated
  tree.write(port + "counters/symbol_error", "0\n");
  tree.write(port + "counters_ext/port_xmit_data_64", "10000000000\n");
  tree.write(port + "counters_ext/port_rcv_packets_64", "77\n");
  tree.write(port + "counters_ext/port_unicast_xmit_packets", "5\n");
  Sources sources;
  sources.sysfs = std::make_shared<SysfsRoot>(tree.root());
  TopologyDiscovery discovery(sources.sysfs, {}, {});
  auto t = discovery.scan();
  ASSERT_TRUE(t.ok());
  auto c = makeCollector("pma_counters", sources, Config{});
  ErrorTracker tracker{"pma"};
  Poll p = testing::poll(*c, **t, tracker);
  EXPECT_EQ(p.value("fabricmon_port_transmit_bytes_total{device=\"mlx4_0\",port=\"1\"}"), 4e10);
  EXPECT_EQ(p.count("fabricmon_port_transmit_bytes_total"), 1u);
  EXPECT_EQ(p.value("fabricmon_port_receive_packets_total{device=\"mlx4_0\",port=\"1\"}"), 77.0);
  EXPECT_EQ(p.value("fabricmon_pma_stat_total{device=\"mlx4_0\",port=\"1\",counter=\"port_unicast_xmit_packets\"}"), 5.0);
  EXPECT_EQ(p.value("fabricmon_pma_stat_total{device=\"mlx4_0\",port=\"1\",counter=\"port_xmit_data\"}"), 4294967295.0);
}

}  // namespace
}  // namespace fabricmon
