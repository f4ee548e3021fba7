// The vendor dialects (collectors/ethtool_dialects/): each driver's stat names, taken from the
// driver sources cited in docs/metrics.md, land on the same families as mlx5; and the
// ethtool_pfc collector picks the dialect by the interface's driver. The fixtures in
// tests/fixtures/ethtool/dialects/ are `ethtool -S` texts built from those sources.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "collectors/error_tracker.hpp"
#include "collectors/ethtool_dialects/dialect.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/ethtool_source.hpp"
#include "collectors/sources/ethtool_text.hpp"
#include "collectors/sources/sysfs.hpp"
#include "collectors/topology_discovery.hpp"
#include "config/config.hpp"
#include "sim/simulator.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;
const fs::path kDialectFixtures = fs::path(FABRICMON_ETHTOOL_FIXTURES) / "dialects";

using fabricmon::testing::TempDir;

// ---- the tables, one row per name the dialect maps ----

struct Case {
  const char* driver;
  const char* stat;
  const char* family;  // "" = the dialect maps nothing
  Labels labels;
  double scale;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.driver << ": " << c.stat; }

class DialectMapTest : public ::testing::TestWithParam<Case> {};

TEST_P(DialectMapTest, Maps) {
  const Case& c = GetParam();
  const ethtool::Dialect* d = ethtool::dialectForDriver(c.driver);
  ASSERT_NE(d, nullptr);
  const ethtool::StatMapping m = d->map(c.stat);
  if (std::string_view(c.family).empty()) {
    EXPECT_EQ(m.family, nullptr) << m.family->name;
    return;
  }
  ASSERT_NE(m.family, nullptr);
  EXPECT_EQ(m.family->name, c.family);
  EXPECT_EQ(m.labels, c.labels);
  EXPECT_DOUBLE_EQ(m.scale, c.scale);
}

constexpr const char* kRx = "fabricmon_pfc_pause_frames_received_total";
constexpr const char* kTx = "fabricmon_pfc_pause_frames_transmitted_total";
constexpr const char* kSeconds = "fabricmon_pfc_pause_seconds_total";
constexpr const char* kTransitions = "fabricmon_pfc_pause_transitions_total";
constexpr const char* kGlobalRx = "fabricmon_global_pause_frames_received_total";
constexpr const char* kGlobalTx = "fabricmon_global_pause_frames_transmitted_total";
constexpr const char* kGlobalSeconds = "fabricmon_global_pause_seconds_total";

INSTANTIATE_TEST_SUITE_P(
    BnxtEn, DialectMapTest,
    ::testing::Values(
        Case{"bnxt_en", "rx_pfc_ena_frames_pri3", kRx, {{"priority", "3"}}, 1},
        Case{"bnxt_en", "tx_pfc_ena_frames_pri0", kTx, {{"priority", "0"}}, 1},
        Case{"bnxt_en", "pfc_pri3_rx_duration_us", kSeconds, {{"priority", "3"}, {"direction", "rx"}}, 1e-6},
        Case{"bnxt_en", "pfc_pri7_tx_duration_us", kSeconds, {{"priority", "7"}, {"direction", "tx"}}, 1e-6},
        Case{"bnxt_en", "pfc_pri5_rx_transitions", kTransitions, {{"priority", "5"}}, 1},
        Case{"bnxt_en", "rx_bytes_pri1", "fabricmon_priority_receive_bytes_total", {{"priority", "1"}}, 1},
        Case{"bnxt_en", "rx_packets_pri1", "fabricmon_priority_receive_packets_total", {{"priority", "1"}}, 1},
        Case{"bnxt_en", "tx_bytes_pri6", "fabricmon_priority_transmit_bytes_total", {{"priority", "6"}}, 1},
        Case{"bnxt_en", "tx_packets_pri6", "fabricmon_priority_transmit_packets_total", {{"priority", "6"}}, 1},
        Case{"bnxt_en", "rx_pause_frames", kGlobalRx, {}, 1},
        Case{"bnxt_en", "tx_pause_frames", kGlobalTx, {}, 1},
        // Deliberately not mapped (bnxt_en.cpp says why), and near misses.
        Case{"bnxt_en", "pfc_pri3_tx_transitions", "", {}, 1},
        Case{"bnxt_en", "rx_discard_packets_cos3", "", {}, 1},
        Case{"bnxt_en", "rx_bytes_cos3", "", {}, 1},
        Case{"bnxt_en", "rx_pfc_frames", "", {}, 1},
        Case{"bnxt_en", "rx_pfc_ena_frames_pri8", "", {}, 1},
        Case{"bnxt_en", "rx_pfc_ena_frames_pri33", "", {}, 1},
        Case{"bnxt_en", "rx_prio3_pause", "", {}, 1}));

INSTANTIATE_TEST_SUITE_P(
    Ice, DialectMapTest,
    ::testing::Values(
        Case{"ice", "rx_priority_3_xoff.nic", kRx, {{"priority", "3"}}, 1},
        Case{"ice", "tx_priority_0_xoff.nic", kTx, {{"priority", "0"}}, 1},
        Case{"ice", "link_xoff_rx.nic", kGlobalRx, {}, 1},
        Case{"ice", "link_xoff_tx.nic", kGlobalTx, {}, 1},
        Case{"ice", "rx_priority_3_xon.nic", "", {}, 1},
        Case{"ice", "link_xon_rx.nic", "", {}, 1},
        Case{"ice", "rx_priority_3_xoff", "", {}, 1},
        Case{"ice", "rx_priority_9_xoff.nic", "", {}, 1},
        Case{"ice", "rx_prio3_pause", "", {}, 1}));

INSTANTIATE_TEST_SUITE_P(
    Ionic, DialectMapTest,
    ::testing::Values(
        Case{"ionic", "rx_pripause_3_1us_count", kSeconds, {{"priority", "3"}, {"direction", "rx"}}, 1e-6},
        Case{"ionic", "tx_pripause_2_1us_count", kSeconds, {{"priority", "2"}, {"direction", "tx"}}, 1e-6},
        Case{"ionic", "frames_rx_pause", kGlobalRx, {}, 1},
        Case{"ionic", "frames_tx_pause", kGlobalTx, {}, 1},
        Case{"ionic", "rx_pause_1us_count", kGlobalSeconds, {{"direction", "rx"}}, 1e-6},
        Case{"ionic", "frames_rx_pri_3", "", {}, 1},
        Case{"ionic", "frames_rx_pripause", "", {}, 1},
        Case{"ionic", "rx_pripause_8_1us_count", "", {}, 1}));

TEST(DialectSelectionTest, DriverNamesPickTheirDialect) {
  EXPECT_EQ(ethtool::dialectForDriver("mlx5_core"), &ethtool::mlx5Dialect());
  EXPECT_EQ(ethtool::dialectForDriver("bnxt_en"), &ethtool::bnxtDialect());
  EXPECT_EQ(ethtool::dialectForDriver("ice"), &ethtool::iceDialect());
  EXPECT_EQ(ethtool::dialectForDriver("ionic"), &ethtool::ionicDialect());
  EXPECT_EQ(ethtool::dialectForDriver(""), nullptr);
  EXPECT_EQ(ethtool::dialectForDriver("e1000e"), nullptr);
  ASSERT_FALSE(ethtool::dialects().empty());
  EXPECT_EQ(ethtool::dialects().front(), &ethtool::mlx5Dialect());
}

TEST(DialectSelectionTest, AKnownDriverReadsOnlyItsOwnNames) {
  EXPECT_EQ(ethtool::mapStat("bnxt_en", "rx_prio3_pause").family, nullptr);
  EXPECT_EQ(ethtool::mapStat("mlx5_core", "rx_pfc_ena_frames_pri3").family, nullptr);
  EXPECT_EQ(ethtool::mapStat("ice", "frames_rx_pause").family, nullptr);
  ASSERT_NE(ethtool::mapStat("bnxt_en", "rx_pfc_ena_frames_pri3").family, nullptr);
}

TEST(DialectSelectionTest, AnUnknownDriverTriesEveryDialect) {
  for (const char* driver : {"", "e1000e"}) {
    SCOPED_TRACE(driver);
    EXPECT_EQ(ethtool::mapStat(driver, "rx_prio3_pause").family->name, kRx);
    EXPECT_EQ(ethtool::mapStat(driver, "rx_pfc_ena_frames_pri3").family->name, kRx);
    EXPECT_EQ(ethtool::mapStat(driver, "rx_priority_3_xoff.nic").family->name, kRx);
    EXPECT_EQ(ethtool::mapStat(driver, "rx_pripause_3_1us_count").family->name, kSeconds);
    EXPECT_EQ(ethtool::mapStat(driver, "no_such_stat").family, nullptr);
  }
}

// ---- the fixtures through the collector ----

std::string withoutHeader(const fs::path& file) {
  std::ifstream in(file);
  std::string line, out;
  while (std::getline(in, line)) {
    if (!line.starts_with("#")) out += line + "\n";
  }
  return out;
}

std::map<std::string, double> collectAs(const std::string& fixture, const std::string& driver) {
  TempDir dir;
  dir.write("eth0", withoutHeader(kDialectFixtures / fixture));
  Sources sources;
  sources.ethtool = makeEthtoolFileSource(dir.path());
  Config config;
  auto collector = makeCollector("ethtool_pfc", sources, config);
  ErrorTracker tracker("ethtool_pfc");
  Batch batch;
  CollectOutput out(batch, tracker);
  const std::vector<Sample>& samples = batch.samples;
  Topology topo;
  Netdev nd;
  nd.name = "eth0";
  nd.driver = driver;
  topo.netdevs.push_back(nd);
  EXPECT_EQ(collector->collect(topo, out), CollectStatus::kOk);
  EXPECT_EQ(out.errorCount(), 0u);
  std::map<std::string, double> m;
  for (const auto& s : samples) m[s.series->key] = s.value;
  return m;
}

TEST(DialectFixtureTest, FixturesParseWholly) {
  for (const char* f : {"bnxt_en", "ice", "ionic"}) {
    SCOPED_TRACE(f);
    auto r = parseEthtoolText(withoutHeader(kDialectFixtures / f));
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->issues.empty());
    EXPECT_GT(r->pairs().size(), 50u);
  }
}

TEST(DialectFixtureTest, BnxtEn) {
  const std::map<std::string, double> want = {
      {R"(fabricmon_global_pause_frames_received_total{interface="eth0"})", 12},
      {R"(fabricmon_global_pause_frames_transmitted_total{interface="eth0"})", 7},
      {R"(fabricmon_pfc_pause_frames_received_total{interface="eth0",priority="3"})", 1523},
      {R"(fabricmon_pfc_pause_frames_transmitted_total{interface="eth0",priority="3"})", 877},
      {R"(fabricmon_pfc_pause_seconds_total{interface="eth0",priority="3",direction="rx"})", 0.04821},
      {R"(fabricmon_pfc_pause_seconds_total{interface="eth0",priority="3",direction="tx"})", 0.020113},
      {R"(fabricmon_pfc_pause_transitions_total{interface="eth0",priority="3"})", 602},
      {R"(fabricmon_priority_receive_bytes_total{interface="eth0",priority="3"})", 366000000000},
      {R"(fabricmon_priority_receive_packets_total{interface="eth0",priority="3"})", 88000000},
      {R"(fabricmon_priority_transmit_bytes_total{interface="eth0",priority="3"})", 326000000000},
      {R"(fabricmon_priority_transmit_packets_total{interface="eth0",priority="3"})", 78000000},
      {R"(fabricmon_priority_receive_bytes_total{interface="eth0",priority="0"})", 1234567},
      // The extended port stats' PHY counters: pre-FEC BER 2931 / 2928897867560 = 1.0e-9.
      {R"(fabricmon_phy_received_bytes_total{interface="eth0"})", 2928897867560.0 / 8},
      {R"(fabricmon_phy_corrected_bit_errors_total{interface="eth0"})", 2931},
      {R"(fabricmon_phy_pcs_symbol_errors_total{interface="eth0"})", 0},
  };
  const auto got = collectAs("bnxt_en", "bnxt_en");
  for (const auto& [key, value] : want) {
    auto it = got.find(key);
    ASSERT_NE(it, got.end()) << key;
    EXPECT_DOUBLE_EQ(it->second, value) << key;
  }
  // 8 priorities of rx/tx PFC frames, rx/tx duration, rx transitions and 4 traffic counters, plus
  // the two global pause counters and the three PHY counters: nothing else is exported by default.
  EXPECT_EQ(got.size(), 8u * 9 + 2 + 3);
}

TEST(DialectFixtureTest, Ice) {
  const std::map<std::string, double> want = {
      {R"(fabricmon_global_pause_frames_received_total{interface="eth0"})", 9},
      {R"(fabricmon_global_pause_frames_transmitted_total{interface="eth0"})", 4},
      {R"(fabricmon_pfc_pause_frames_received_total{interface="eth0",priority="3"})", 1417},
      {R"(fabricmon_pfc_pause_frames_transmitted_total{interface="eth0",priority="3"})", 655},
      {R"(fabricmon_phy_transmitted_bytes_total{interface="eth0"})", 18223456789},
  };
  const auto got = collectAs("ice", "ice");
  for (const auto& [key, value] : want) {
    auto it = got.find(key);
    ASSERT_NE(it, got.end()) << key;
    EXPECT_DOUBLE_EQ(it->second, value) << key;
  }
  EXPECT_EQ(got.size(), 8u * 2 + 2 + 1);
  // No duration counter in ice: the family is absent, not zero.
  for (const auto& [key, value] : got) EXPECT_EQ(key.find("pause_seconds"), std::string::npos) << key;
}

TEST(DialectFixtureTest, Ionic) {
  const std::map<std::string, double> want = {
      {R"(fabricmon_global_pause_frames_received_total{interface="eth0"})", 5},
      {R"(fabricmon_global_pause_frames_transmitted_total{interface="eth0"})", 6},
      {R"(fabricmon_global_pause_seconds_total{interface="eth0",direction="rx"})", 0.0015},
      {R"(fabricmon_pfc_pause_seconds_total{interface="eth0",priority="3",direction="rx"})", 0.25},
      {R"(fabricmon_pfc_pause_seconds_total{interface="eth0",priority="3",direction="tx"})", 0.0615},
  };
  const auto got = collectAs("ionic", "ionic");
  for (const auto& [key, value] : want) {
    auto it = got.find(key);
    ASSERT_NE(it, got.end()) << key;
    EXPECT_DOUBLE_EQ(it->second, value) << key;
  }
  EXPECT_EQ(got.size(), 8u * 2 + 3);
}

TEST(DialectFixtureTest, WithoutADriverLinkTheNamesStillMap) {
  // Fixtures and older trees have no device/driver link: every dialect is tried.
  EXPECT_EQ(collectAs("bnxt_en", ""), collectAs("bnxt_en", "bnxt_en"));
  EXPECT_EQ(collectAs("ice", ""), collectAs("ice", "ice"));
}

TEST(DialectFixtureTest, TheWrongDriverMapsNothing) {
  EXPECT_TRUE(collectAs("bnxt_en", "mlx5_core").empty());
}

TEST(DialectFixtureTest, ADriverChangeRemapsTheInterface) {
  TempDir dir;
  dir.write("eth0", withoutHeader(kDialectFixtures / "bnxt_en"));
  Sources sources;
  sources.ethtool = makeEthtoolFileSource(dir.path());
  Config config;
  auto collector = makeCollector("ethtool_pfc", sources, config);
  ErrorTracker tracker("ethtool_pfc");
  auto poll = [&](const std::string& driver) {
    Batch batch;
    CollectOutput out(batch, tracker);
    const std::vector<Sample>& samples = batch.samples;
    Topology topo;
    Netdev nd;
    nd.name = "eth0";
    nd.driver = driver;
    topo.netdevs.push_back(nd);
    collector->collect(topo, out);
    return samples.size();
  };
  EXPECT_EQ(poll("mlx5_core"), 0u);
  EXPECT_EQ(poll("bnxt_en"), 8u * 9 + 2 + 3);
}

}  // namespace
}  // namespace fabricmon

// ---- the simulator's vendors, end to end: sysfs driver link -> discovery -> dialect ----

namespace fabricmon {
namespace {

struct SimCase {
  const char* vendor;
  const char* driver;
  bool hasFrames;
  bool hasDuration;
};

TEST(DialectSimulatorTest, DiscoveryPicksTheSimulatedDriversDialect) {
  for (const SimCase& c :
       {SimCase{"mlx5", "mlx5_core", true, true}, SimCase{"bnxt", "bnxt_en", true, true},
        SimCase{"ice", "ice", true, false}, SimCase{"ionic", "ionic", false, true}}) {
    SCOPED_TRACE(c.vendor);
    TempDir dir;
    sim::SimOptions o;
    o.root = dir.path();
    o.vendor = c.vendor;
    o.scenario = "pause-storm";
    o.rocePorts = 1;
    o.infinibandPort = false;
    sim::Simulator simulator(o);
    ASSERT_TRUE(simulator.init());
    TopologyDiscovery discovery(std::make_shared<SysfsRoot>(simulator.sysfsRoot()), {}, {});
    auto topo = discovery.scan();
    ASSERT_TRUE(topo);
    ASSERT_EQ((*topo)->netdevs.size(), 1u);
    EXPECT_EQ((*topo)->netdevs[0].driver, c.driver);
    const std::string ifname = (*topo)->netdevs[0].name;

    Sources sources;
    sources.ethtool = makeEthtoolFileSource(simulator.ethtoolDir());
    auto collector = makeCollector("ethtool_pfc", sources, Config{});
    ErrorTracker tracker("ethtool_pfc");
    auto poll = [&] {
      Batch batch;
      CollectOutput out(batch, tracker);
      const std::vector<Sample>& samples = batch.samples;
      EXPECT_EQ(collector->collect(**topo, out), CollectStatus::kOk);
      std::map<std::string, double> m;
      for (const auto& s : samples) m[s.series->key] = s.value;
      return m;
    };
    const std::string frames = "fabricmon_pfc_pause_frames_received_total{interface=\"" + ifname +
                               "\",priority=\"3\"}";
    const std::string seconds = "fabricmon_pfc_pause_seconds_total{interface=\"" + ifname +
                                "\",priority=\"3\",direction=\"rx\"}";
    const auto before = poll();
    ASSERT_TRUE(simulator.tick(std::chrono::seconds(2)));
    const auto after = poll();
    EXPECT_EQ(after.count(frames), c.hasFrames ? 1u : 0u);
    if (c.hasFrames) {
      ASSERT_TRUE(before.count(frames));
      EXPECT_GT(after.at(frames), before.at(frames) + 20000);
    }
    EXPECT_EQ(after.count(seconds), c.hasDuration ? 1u : 0u);
    if (c.hasDuration) {
      EXPECT_NEAR(after.at(seconds) - before.at(seconds), 2.0, 0.01);
    }
  }
}

}  // namespace
}  // namespace fabricmon
