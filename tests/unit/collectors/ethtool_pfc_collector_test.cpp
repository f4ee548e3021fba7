// The ethtool_pfc collector over the real captures (tests/fixtures/ethtool/stats) and over
// synthetic PFC stats files written by the tests.

#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <ostream>
#include <string>
#include <vector>

#include "collectors/error_tracker.hpp"
#include "collectors/ethtool_dialects/dialect.hpp"
#include "collectors/registry.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = FABRICMON_ETHTOOL_FIXTURES;

using fabricmon::testing::TempDir;

Topology topologyOf(std::initializer_list<const char*> names) {
  Topology t;
  for (const char* n : names) t.netdevs.push_back(Netdev{n, "", "", 0});
  return t;
}

struct PollResult {
  std::vector<Sample> samples;
  SeriesRosterPtr roster;  ///< keeps the samples' series alive
  uint64_t errors = 0;
  CollectStatus status{};
  std::vector<SeriesPtr> unread;  ///< Batch::unread

  std::map<std::string, double> byKey(std::string_view ifname = {}) const {
    std::map<std::string, double> m;
    for (const auto& s : samples) {
      if (ifname.empty() || s.series->label("interface") == ifname) m[s.series->key] = s.value;
    }
    return m;
  }
  /// Every sample as (key, value), in emission order.
  std::vector<std::pair<std::string, double>> inOrder() const {
    std::vector<std::pair<std::string, double>> v;
    for (const auto& s : samples) v.emplace_back(s.series->key, s.value);
    return v;
  }
  const Sample* find(std::string_view key) const {
    for (const auto& s : samples) {
      if (s.series->key == key) return &s;
    }
    return nullptr;
  }
  /// The owning pointer of one of `samples`' series.
  const SeriesPtr& owner(const Sample* s) const { return roster->series[static_cast<size_t>(s - samples.data())]; }
};

class Harness {
 public:
  explicit Harness(fs::path dir, std::vector<std::string> include = {})
      : Harness(makeEthtoolFileSource(std::move(dir)), std::move(include)) {}
  explicit Harness(std::shared_ptr<EthtoolSource> source, std::vector<std::string> include = {})
      : tracker_("ethtool_pfc") {
    Sources sources;
    sources.ethtool = std::move(source);
    Config config;
    config.ethtool.statsInclude = std::move(include);
    collector_ = makeCollector("ethtool_pfc", sources, config);
  }
  PollResult collect(const Topology& topo) {
    PollResult run;
    Batch batch;
    CollectOutput out(batch, tracker_);
    run.status = collector_->collect(topo, out);
    run.errors = out.errorCount();
    run.roster = out.finish();
    run.samples = batch.samples;
    run.unread = batch.unread;
    tracker_.sweep();
    return run;
  }
  Collector& collector() { return *collector_; }
  ErrorTracker& tracker() { return tracker_; }

 private:
  ErrorTracker tracker_;
  std::unique_ptr<Collector> collector_;
};

// ---- the mlx5 name table (the other dialects: ethtool_dialects_test.cpp) ----

struct MapCase {
  const char* stat;
  const char* family;  // "" = no dedicated metric
  Labels labels;
  double scale;
};
void PrintTo(const MapCase& c, std::ostream* os) { *os << c.stat; }

class EthtoolStatMapTest : public ::testing::TestWithParam<MapCase> {};

TEST_P(EthtoolStatMapTest, Maps) {
  const auto& c = GetParam();
  const ethtool::StatMapping m = ethtool::mapStat("mlx5_core", c.stat);
  if (std::string_view(c.family).empty()) {
    EXPECT_EQ(m.family, nullptr) << m.family->name;
    return;
  }
  ASSERT_NE(m.family, nullptr);
  EXPECT_EQ(m.family->name, c.family);
  EXPECT_EQ(m.labels, c.labels);
  EXPECT_DOUBLE_EQ(m.scale, c.scale);
}

INSTANTIATE_TEST_SUITE_P(
    Names, EthtoolStatMapTest,
    ::testing::Values(
        MapCase{
            "rx_prio3_pause", "fabricmon_pfc_pause_frames_received_total", {{"priority", "3"}}, 1},
        MapCase{"tx_prio0_pause",
                "fabricmon_pfc_pause_frames_transmitted_total",
                {{"priority", "0"}},
                1},
        MapCase{"rx_prio3_pause_duration",
                "fabricmon_pfc_pause_seconds_total",
                {{"priority", "3"}, {"direction", "rx"}},
                1e-6},
        MapCase{"tx_prio7_pause_duration",
                "fabricmon_pfc_pause_seconds_total",
                {{"priority", "7"}, {"direction", "tx"}},
                1e-6},
        MapCase{"rx_prio5_pause_transition",
                "fabricmon_pfc_pause_transitions_total",
                {{"priority", "5"}},
                1},
        MapCase{"rx_prio1_bytes", "fabricmon_priority_receive_bytes_total", {{"priority", "1"}}, 1},
        MapCase{
            "tx_prio1_bytes", "fabricmon_priority_transmit_bytes_total", {{"priority", "1"}}, 1},
        MapCase{
            "rx_prio2_packets", "fabricmon_priority_receive_packets_total", {{"priority", "2"}}, 1},
        MapCase{"tx_prio2_packets",
                "fabricmon_priority_transmit_packets_total",
                {{"priority", "2"}},
                1},
        MapCase{"rx_prio4_discards",
                "fabricmon_priority_discards_total",
                {{"priority", "4"}, {"kind", "discards"}},
                1},
        MapCase{"rx_prio4_buf_discard",
                "fabricmon_priority_discards_total",
                {{"priority", "4"}, {"kind", "buffer"}},
                1},
        MapCase{"rx_prio4_cong_discard",
                "fabricmon_priority_discards_total",
                {{"priority", "4"}, {"kind", "congestion"}},
                1},
        MapCase{"rx_prio6_marked",
                "fabricmon_priority_ecn_marked_packets_total",
                {{"priority", "6"}},
                1},
        MapCase{"rx_global_pause", "fabricmon_global_pause_frames_received_total", {}, 1},
        MapCase{"tx_global_pause", "fabricmon_global_pause_frames_transmitted_total", {}, 1},
        MapCase{"rx_global_pause_duration",
                "fabricmon_global_pause_seconds_total",
                {{"direction", "rx"}},
                1e-6},
        MapCase{"tx_global_pause_duration",
                "fabricmon_global_pause_seconds_total",
                {{"direction", "tx"}},
                1e-6},
        MapCase{"rx_global_pause_transition", "fabricmon_global_pause_transitions_total", {}, 1},
        MapCase{
            "tx_pause_storm_warning_events", "fabricmon_pause_storm_warning_events_total", {}, 1},
        MapCase{"tx_pause_storm_error_events", "fabricmon_pause_storm_error_events_total", {}, 1},
        MapCase{"link_down_events_phy", "fabricmon_phy_link_down_events_total", {}, 1},
        MapCase{"rx_symbol_err_phy", "fabricmon_phy_symbol_errors_total", {}, 1},
        MapCase{"rx_crc_errors_phy", "fabricmon_phy_crc_errors_total", {}, 1},
        MapCase{"rx_pcs_symbol_err_phy", "fabricmon_phy_pcs_symbol_errors_total", {}, 1},
        MapCase{"rx_corrected_bits_phy", "fabricmon_phy_corrected_bit_errors_total", {}, 1},
        MapCase{"rx_bits_phy", "fabricmon_phy_received_bytes_total", {}, 1.0 / 8},
        MapCase{"rx_discards_phy", "fabricmon_phy_receive_discards_total", {}, 1},
        MapCase{"tx_discards_phy", "fabricmon_phy_transmit_discards_total", {}, 1},
        MapCase{"rx_out_of_buffer", "fabricmon_receive_out_of_buffer_total", {}, 1},
        MapCase{
            "rx_buffer_passed_thres_phy", "fabricmon_receive_buffer_passed_threshold_total", {}, 1},
        MapCase{"rx_vport_rdma_unicast_bytes",
                "fabricmon_rdma_vport_bytes_total",
                {{"direction", "rx"}},
                1},
        MapCase{"tx_vport_rdma_unicast_packets",
                "fabricmon_rdma_vport_packets_total",
                {{"direction", "tx"}},
                1},
        MapCase{"outbound_pci_stalled_rd",
                "fabricmon_pci_outbound_stalled_ratio",
                {{"direction", "rd"}},
                0.01},
        MapCase{"outbound_pci_stalled_wr",
                "fabricmon_pci_outbound_stalled_ratio",
                {{"direction", "wr"}},
                0.01},
        // Look-alikes that must not be taken for the names above.
        MapCase{"rx_prio8_pause", "", {}, 1}, MapCase{"rx_prio10_bytes", "", {}, 1},
        MapCase{"rx_prio3", "", {}, 1}, MapCase{"rx_prio3_", "", {}, 1},
        MapCase{"tx_prio3_pause_transition", "", {}, 1}, MapCase{"tx_prio3_marked", "", {}, 1},
        MapCase{"rx_prio3_pause_duration_x", "", {}, 1},
        MapCase{"outbound_pci_stalled_rd_events", "", {}, 1},
        MapCase{"rx_vport_rdma_multicast_bytes", "", {}, 1},
        MapCase{"rx_pause_ctrl_phy", "", {}, 1}, MapCase{"rx_packets", "", {}, 1}),
    [](const auto& info) { return std::string(info.param.stat); });

TEST(EthtoolPfcCollectorTest, FamiliesAreTheEthtoolGroup) {
  Harness h(kFixtures / "stats");
  std::vector<std::string> names;
  for (const FamilyDef* f : h.collector().families()) {
    names.emplace_back(f->name);
    EXPECT_EQ(f->type, f->name.ends_with("_total") ? MetricType::kCounter : MetricType::kGauge)
        << f->name;
  }
  EXPECT_EQ(names.size(), 32u);
  for (const char* must :
       {"fabricmon_pfc_pause_seconds_total", "fabricmon_ethtool_stat_total",
        "fabricmon_pci_outbound_stalled_ratio", "fabricmon_priority_discards_total"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), must), names.end()) << must;
  }
}

// ---- over the real captures ----

TEST(EthtoolPfcCollectorTest, Mlx5100GCaptureExactly) {
  Harness h(kFixtures / "stats");
  const PollResult run = h.collect(topologyOf({"cx100g"}));
  EXPECT_EQ(run.status, CollectStatus::kOk);
  EXPECT_EQ(run.errors, 0u);
  const std::map<std::string, double> want = {
      {R"(fabricmon_receive_out_of_buffer_total{interface="cx100g"})", 0},
      {R"(fabricmon_rdma_vport_packets_total{interface="cx100g",direction="rx"})", 0},
      {R"(fabricmon_rdma_vport_bytes_total{interface="cx100g",direction="rx"})", 0},
      {R"(fabricmon_rdma_vport_packets_total{interface="cx100g",direction="tx"})", 0},
      {R"(fabricmon_rdma_vport_bytes_total{interface="cx100g",direction="tx"})", 0},
      {R"(fabricmon_phy_crc_errors_total{interface="cx100g"})", 386},
      {R"(fabricmon_phy_symbol_errors_total{interface="cx100g"})", 386},
      {R"(fabricmon_phy_receive_discards_total{interface="cx100g"})", 0},
      {R"(fabricmon_phy_transmit_discards_total{interface="cx100g"})", 0},
      {R"(fabricmon_phy_link_down_events_total{interface="cx100g"})", 0},
      {R"(fabricmon_phy_pcs_symbol_errors_total{interface="cx100g"})", 386},
      {R"(fabricmon_phy_corrected_bit_errors_total{interface="cx100g"})", 17750739},
      // rx_err_lane_<N>_phy: almost every corrected bit on lane 3, a few on lane 0 (the worst lane).
      {R"(fabricmon_phy_lane_corrected_bit_errors_total{interface="cx100g",lane="0"})", 28116},
      {R"(fabricmon_phy_lane_corrected_bit_errors_total{interface="cx100g",lane="1"})", 0},
      {R"(fabricmon_phy_lane_corrected_bit_errors_total{interface="cx100g",lane="2"})", 0},
      {R"(fabricmon_phy_lane_corrected_bit_errors_total{interface="cx100g",lane="3"})", 17722623},
      {R"(fabricmon_receive_buffer_passed_threshold_total{interface="cx100g"})", 0},
      {R"(fabricmon_pci_outbound_stalled_ratio{interface="cx100g",direction="rd"})", 0},
      {R"(fabricmon_pci_outbound_stalled_ratio{interface="cx100g",direction="wr"})", 0},
      {R"(fabricmon_priority_receive_bytes_total{interface="cx100g",priority="0"})", 2027206797},
      {R"(fabricmon_priority_receive_packets_total{interface="cx100g",priority="0"})", 15005729},
      {R"(fabricmon_priority_discards_total{interface="cx100g",priority="0",kind="discards"})", 0},
      {R"(fabricmon_priority_transmit_bytes_total{interface="cx100g",priority="0"})", 865069260},
      {R"(fabricmon_priority_transmit_packets_total{interface="cx100g",priority="0"})", 7222593},
      {R"(fabricmon_pause_storm_warning_events_total{interface="cx100g"})", 0},
      {R"(fabricmon_pause_storm_error_events_total{interface="cx100g"})", 0},
      {R"(fabricmon_priority_discards_total{interface="cx100g",priority="0",kind="buffer"})", 0},
      {R"(fabricmon_priority_discards_total{interface="cx100g",priority="0",kind="congestion"})",
       0},
      {R"(fabricmon_priority_ecn_marked_packets_total{interface="cx100g",priority="0"})", 0},
  };
  EXPECT_EQ(run.byKey(), want);
}

TEST(EthtoolPfcCollectorTest, GlobalPauseCapturesInSeconds) {
  Harness h(kFixtures / "stats");
  const PollResult run = h.collect(topologyOf({"cxk515", "cxk65"}));
  struct Want {
    const char* key;
    double value;
  };
  for (
      const Want& w : {
          Want{R"(fabricmon_global_pause_frames_transmitted_total{interface="cxk515"})", 5745042},
          Want{R"(fabricmon_global_pause_seconds_total{interface="cxk515",direction="tx"})",
               771.103810},
          Want{R"(fabricmon_global_pause_seconds_total{interface="cxk65",direction="tx"})",
               5961.284324},
          Want{R"(fabricmon_receive_out_of_buffer_total{interface="cxk515"})", 990473555},
          Want{
              R"(fabricmon_priority_discards_total{interface="cxk515",priority="0",kind="discards"})",
              58591314012},
          Want{R"(fabricmon_phy_receive_discards_total{interface="cxk65"})", 441063206498},
          Want{R"(fabricmon_receive_buffer_passed_threshold_total{interface="cxk65"})", 1192226},
      }) {
    const Sample* s = run.find(w.key);
    ASSERT_NE(s, nullptr) << w.key;
    EXPECT_DOUBLE_EQ(s->value, w.value) << w.key;
  }
  // The poster removed zero lines: absent names give absent series, never zeros.
  EXPECT_EQ(run.find(R"(fabricmon_global_pause_frames_received_total{interface="cxk515"})"),
            nullptr);
  EXPECT_EQ(run.byKey("cxk515").size(), 10u);
}

TEST(EthtoolPfcCollectorTest, ErrorsAndMissingStatsPerInterface) {
  Harness h(kFixtures / "stats");
  // ne_bond0 is unparsable (an error), nosuch0 has no file (no stats, silent), ne_eth0 has no
  // stat of the ethtool group (nothing to export without an include list).
  const PollResult run = h.collect(topologyOf({"cx100g", "ne_bond0", "ne_eth0", "nosuch0"}));
  EXPECT_EQ(run.status, CollectStatus::kOk);
  EXPECT_EQ(run.errors, 1u);
  EXPECT_EQ(h.tracker().failingCount(), 1u);
  EXPECT_EQ(run.byKey("cx100g").size(), 29u);
  EXPECT_TRUE(run.byKey("ne_eth0").empty());
  EXPECT_TRUE(run.byKey("ne_bond0").empty());
}

TEST(EthtoolPfcCollectorTest, StatusWithoutData) {
  Harness h(kFixtures / "stats");
  EXPECT_EQ(h.collect(Topology{}).status, CollectStatus::kNoData);
  const PollResult none = h.collect(topologyOf({"nosuch0", "nosuch1"}));
  EXPECT_EQ(none.status, CollectStatus::kNoData);
  EXPECT_EQ(none.errors, 0u);
  const PollResult bad = h.collect(topologyOf({"ne_bond0", "nosuch0"}));
  EXPECT_EQ(bad.status, CollectStatus::kFailed);
  EXPECT_EQ(bad.errors, 1u);
}

// ---- include list ----

TEST(EthtoolPfcCollectorTest, IncludeListExportsOnlyWholeNameMatches) {
  Harness h(kFixtures / "stats",
            {"rx_packets", R"(rx\d+_bytes)", R"(port\..*)", "duplicate metric", "(", ".*prio.*"});
  const PollResult run = h.collect(topologyOf({"cx100g", "ne_eth0"}));
  std::map<std::string, double> generic;
  for (const auto& [key, value] : run.byKey()) {
    if (key.starts_with("fabricmon_ethtool_stat_total")) generic[key] = value;
  }
  const std::map<std::string, double> want = {
      {R"(fabricmon_ethtool_stat_total{interface="cx100g",stat="rx_packets"})", 1226},
      {R"(fabricmon_ethtool_stat_total{interface="cx100g",stat="rx0_bytes"})", 72780},
      {R"(fabricmon_ethtool_stat_total{interface="ne_eth0",stat="rx_packets"})", 1260062},
      {R"(fabricmon_ethtool_stat_total{interface="ne_eth0",stat="port.rx_dropped"})", 12028},
      {R"(fabricmon_ethtool_stat_total{interface="ne_eth0",stat="duplicate metric"})", 1},
  };
  // Not rx_packets_phy (a substring match), not rx_bytes, and never a name of the ethtool group
  // (".*prio.*" matches rx_prio0_bytes, which already is fabricmon_priority_receive_bytes_total);
  // the invalid pattern "(" is ignored.
  EXPECT_EQ(generic, want);
  EXPECT_EQ(run.byKey("cx100g").size(), 29u + 2u);
}

// ---- changing stat sets, caching, interfaces leaving ----

std::string pfcStats(unsigned prio, uint64_t pauseUs, uint64_t stalledPercent) {
  std::string p = std::to_string(prio);
  return "NIC statistics:\n"
         "     rx_prio0_bytes: 1000\n"
         "     rx_prio" +
         p +
         "_pause: 120\n"
         "     rx_prio" +
         p + "_pause_duration: " + std::to_string(pauseUs) +
         "\n"
         "     tx_prio" +
         p +
         "_pause: 7\n"
         "     tx_prio" +
         p +
         "_pause_duration: 1500\n"
         "     rx_prio" +
         p +
         "_pause_transition: 60\n"
         "     outbound_pci_stalled_wr: " +
         std::to_string(stalledPercent) + "\n";
}

TEST(EthtoolPfcCollectorTest, PfcPauseInSecondsAndStallsAsRatio) {
  TempDir dir;
  dir.write("ens1f0", pfcStats(3, 2500000, 37));
  Harness h(dir.path());
  const PollResult run = h.collect(topologyOf({"ens1f0"}));
  const std::map<std::string, double> want = {
      {R"(fabricmon_priority_receive_bytes_total{interface="ens1f0",priority="0"})", 1000},
      {R"(fabricmon_pfc_pause_frames_received_total{interface="ens1f0",priority="3"})", 120},
      {R"(fabricmon_pfc_pause_seconds_total{interface="ens1f0",priority="3",direction="rx"})", 2.5},
      {R"(fabricmon_pfc_pause_frames_transmitted_total{interface="ens1f0",priority="3"})", 7},
      {R"(fabricmon_pfc_pause_seconds_total{interface="ens1f0",priority="3",direction="tx"})",
       0.0015},
      {R"(fabricmon_pfc_pause_transitions_total{interface="ens1f0",priority="3"})", 60},
      {R"(fabricmon_pci_outbound_stalled_ratio{interface="ens1f0",direction="wr"})", 0.37},
  };
  const auto got = run.byKey();
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [key, value] : want) {
    ASSERT_TRUE(got.count(key)) << key;
    EXPECT_DOUBLE_EQ(got.at(key), value) << key;
  }
}

TEST(EthtoolPfcCollectorTest, StatSetChangeBetweenPollsKeepsUnchangedSeries) {
  TempDir dir;
  dir.write("ens1f0", pfcStats(3, 10, 0));
  Harness h(dir.path());
  const Topology topo = topologyOf({"ens1f0"});
  const PollResult first = h.collect(topo);
  const Sample* bytes1 =
      first.find(R"(fabricmon_priority_receive_bytes_total{interface="ens1f0",priority="0"})");
  ASSERT_NE(bytes1, nullptr);

  // PFC moved from priority 3 to 4: same count, other names.
  dir.write("ens1f0", pfcStats(4, 20, 0));
  const PollResult second = h.collect(topo);
  EXPECT_EQ(second.samples.size(), first.samples.size());
  EXPECT_EQ(
      second.find(R"(fabricmon_pfc_pause_frames_received_total{interface="ens1f0",priority="3"})"),
      nullptr);
  const Sample* pause4 = second.find(
      R"(fabricmon_pfc_pause_seconds_total{interface="ens1f0",priority="4",direction="rx"})");
  ASSERT_NE(pause4, nullptr);
  EXPECT_DOUBLE_EQ(pause4->value, 20e-6);
  const Sample* bytes2 =
      second.find(R"(fabricmon_priority_receive_bytes_total{interface="ens1f0",priority="0"})");
  ASSERT_NE(bytes2, nullptr);
  EXPECT_EQ(bytes2->series, bytes1->series);  // built once, reused

  // PFC off: only the always-present names remain.
  dir.write("ens1f0", "NIC statistics:\n     rx_prio0_bytes: 1001\n");
  const PollResult third = h.collect(topo);
  ASSERT_EQ(third.samples.size(), 1u);
  EXPECT_EQ(third.samples[0].series, bytes1->series);
  EXPECT_EQ(third.samples[0].value, 1001);
}

TEST(EthtoolPfcCollectorTest, InterfaceLeavingTheTopologyIsForgotten) {
  Harness h(kFixtures / "stats");
  const char* key = R"(fabricmon_priority_receive_bytes_total{interface="cxk65",priority="0"})";
  std::weak_ptr<const Series> before;
  {
    const PollResult both = h.collect(topologyOf({"cx100g", "cxk65"}));
    ASSERT_NE(both.find(key), nullptr);
    before = both.owner(both.find(key));
  }
  const PollResult one = h.collect(topologyOf({"cx100g"}));
  EXPECT_TRUE(one.byKey("cxk65").empty());
  EXPECT_TRUE(before.expired());  // the collector's cache let go of the interface's series
  const PollResult again = h.collect(topologyOf({"cx100g", "cxk65"}));
  ASSERT_NE(again.find(key), nullptr);
}

TEST(EthtoolPfcCollectorTest, BadFilesAreOneErrorEachAndRecover) {
  TempDir dir;
  dir.write("good0", pfcStats(3, 1, 0));
  dir.write("empty0", "");
  ASSERT_EQ(::mkfifo((dir.path() / "fifo0").c_str(), 0600), 0);
  dir.write("lines0", "NIC statistics:\n     rx_prio0_bytes: 5\n     junk line\n");
  Harness h(dir.path());
  const Topology topo = topologyOf({"empty0", "fifo0", "good0", "lines0"});
  const PollResult run = h.collect(topo);
  EXPECT_EQ(run.status, CollectStatus::kOk);
  EXPECT_EQ(run.errors, 3u);  // empty0, fifo0, and the junk line of lines0
  ASSERT_NE(run.find(R"(fabricmon_priority_receive_bytes_total{interface="lines0",priority="0"})"),
            nullptr);
  EXPECT_EQ(run.byKey("good0").size(), 7u);

  dir.write("empty0", "NIC statistics:\n     rx_prio0_bytes: 9\n");
  dir.write("lines0", "NIC statistics:\n     rx_prio0_bytes: 6\n");
  const PollResult fixed = h.collect(topo);
  EXPECT_EQ(fixed.errors, 1u);  // only the FIFO is left
  EXPECT_EQ(h.tracker().failingCount(), 1u);
  EXPECT_EQ(
      fixed.find(R"(fabricmon_priority_receive_bytes_total{interface="empty0",priority="0"})")
          ->value,
      9);
}

// ---- the in-place path: positions mapped once per change of the name list ----

using StatList = std::vector<std::pair<std::string, uint64_t>>;

std::string statsText(const StatList& stats, const char* extra = "") {
  std::string t = "NIC statistics:\n";
  for (const auto& [name, value] : stats) t += "     " + name + ": " + std::to_string(value) + "\n";
  return t + extra;
}

// What a collector that never saw this interface before exports for `text`: the reference for a
// collector that went through earlier polls.
std::vector<std::pair<std::string, double>> freshPoll(const std::string& text,
                                                      std::vector<std::string> include = {}) {
  TempDir dir;
  dir.write("ens1f0", text);
  Harness h(dir.path(), std::move(include));
  return h.collect(topologyOf({"ens1f0"})).inOrder();
}

TEST(EthtoolPfcCollectorTest, SameNamesNextPollUpdatesValuesOnTheSameSeries) {
  TempDir dir;
  dir.write("ens1f0", pfcStats(3, 10, 5));
  Harness h(dir.path());
  const Topology topo = topologyOf({"ens1f0"});
  const PollResult first = h.collect(topo);
  ASSERT_EQ(first.samples.size(), 7u);
  for (uint64_t round = 1; round <= 3; ++round) {
    dir.write("ens1f0", pfcStats(3, 10 + round * 1000000, 5 + round));
    const PollResult next = h.collect(topo);
    ASSERT_EQ(next.samples.size(), first.samples.size());
    for (size_t i = 0; i < next.samples.size(); ++i) {
      EXPECT_EQ(next.samples[i].series, first.samples[i].series) << i;
    }
    EXPECT_DOUBLE_EQ(
        next.find(
                R"(fabricmon_pfc_pause_seconds_total{interface="ens1f0",priority="3",direction="rx"})")
            ->value,
        (10 + round * 1000000) * 1e-6);
    EXPECT_DOUBLE_EQ(
        next.find(R"(fabricmon_pci_outbound_stalled_ratio{interface="ens1f0",direction="wr"})")
            ->value,
        (5 + round) / 100.0);
  }
}

// Each poll's text is the previous one changed; all values differ so a stat read from the wrong
// position shows. After every poll the samples equal those of a collector that never saw the
// earlier texts.
TEST(EthtoolPfcCollectorTest, ChangedNameListsMapLikeAFreshCollector) {
  const StatList base = {
      {"rx_packets", 1},     {"rx_prio3_pause", 2},  {"rx_prio3_pause_duration", 3000000},
      {"tx_prio3_pause", 4}, {"rx_discards_phy", 5}, {"outbound_pci_stalled_rd", 60}};
  auto with = [](StatList l, size_t at, std::pair<std::string, uint64_t> s) {
    l.insert(l.begin() + static_cast<std::ptrdiff_t>(at), std::move(s));
    return l;
  };
  auto without = [](StatList l, size_t at) {
    l.erase(l.begin() + static_cast<std::ptrdiff_t>(at));
    return l;
  };
  StatList renamed = base;
  renamed[1].first = "rx_prio4_pause";
  StatList swapped = base;
  std::swap(swapped[1], swapped[3]);
  const StatList frontInserted = with(base, 0, {"rx_prio0_bytes", 7});
  const std::vector<std::pair<const char*, std::string>> steps = {
      {"base", statsText(base)},
      {"values", statsText({{"rx_packets", 11},
                            {"rx_prio3_pause", 12},
                            {"rx_prio3_pause_duration", 13000000},
                            {"tx_prio3_pause", 14},
                            {"rx_discards_phy", 15},
                            {"outbound_pci_stalled_rd", 16}})},
      {"front insert shifts every position", statsText(frontInserted)},
      {"back to base", statsText(base)},
      {"renamed at the same count", statsText(renamed)},
      {"swapped", statsText(swapped)},
      {"removed in the middle", statsText(without(base, 2))},
      {"added at the end", statsText(with(base, 6, {"tx_discards_phy", 17}))},
      {"repeated name and a bad line",
       statsText(with(base, 2, {"rx_prio3_pause", 99}), "  junk\n")},
      {"unparsable", "NIC statistics:\n"},
      {"after the error, shifted", statsText(frontInserted)},
      {"empty file", ""},
      {"after the second error, same names as before it", statsText(frontInserted)},
  };
  TempDir dir;
  Harness h(dir.path(), {"rx_packets"});
  const Topology topo = topologyOf({"ens1f0"});
  for (const auto& [what, text] : steps) {
    dir.write("ens1f0", text);
    const PollResult run = h.collect(topo);
    EXPECT_EQ(run.inOrder(), freshPoll(text, {"rx_packets"})) << what;
  }
  // The reference itself, spelled out for the renamed list.
  dir.write("ens1f0", statsText(renamed));
  const std::map<std::string, double> want = {
      {R"(fabricmon_ethtool_stat_total{interface="ens1f0",stat="rx_packets"})", 1},
      {R"(fabricmon_pfc_pause_frames_received_total{interface="ens1f0",priority="4"})", 2},
      {R"(fabricmon_pfc_pause_seconds_total{interface="ens1f0",priority="3",direction="rx"})", 3},
      {R"(fabricmon_pfc_pause_frames_transmitted_total{interface="ens1f0",priority="3"})", 4},
      {R"(fabricmon_phy_receive_discards_total{interface="ens1f0"})", 5},
      {R"(fabricmon_pci_outbound_stalled_ratio{interface="ens1f0",direction="rd"})", 0.6},
  };
  EXPECT_EQ(h.collect(topo).byKey(), want);
}

// After a failed read nothing of the earlier values is exported, and the error is reported.
TEST(EthtoolPfcCollectorTest, NoStaleValuesAfterAnError) {
  TempDir dir;
  dir.write("ens1f0", pfcStats(3, 10, 5));
  Harness h(dir.path());
  const Topology topo = topologyOf({"ens1f0"});
  ASSERT_EQ(h.collect(topo).samples.size(), 7u);
  std::set<std::string> series;
  for (const auto& [key, value] : h.collect(topo).byKey()) series.insert(key);
  for (const char* bad : {"", "garbage\n", "NIC statistics:\n     x\n"}) {
    dir.write("ens1f0", bad);
    const PollResult failed = h.collect(topo);
    EXPECT_TRUE(failed.samples.empty()) << bad;
    EXPECT_EQ(failed.errors, 1u) << bad;
    EXPECT_EQ(failed.status, CollectStatus::kFailed) << bad;
    // Unknown, not gone: the series of the last good read are unread (Batch::unread).
    std::set<std::string> unread;
    for (const SeriesPtr& u : failed.unread) unread.insert(u->key);
    EXPECT_EQ(unread, series) << bad;
  }
  fs::remove(dir.path() / "ens1f0");
  const PollResult gone = h.collect(topo);
  EXPECT_TRUE(gone.samples.empty());
  EXPECT_EQ(gone.status, CollectStatus::kNoData);
  dir.write("ens1f0", pfcStats(3, 30, 9));
  const PollResult back = h.collect(topo);
  EXPECT_EQ(back.errors, 0u);
  EXPECT_EQ(back.inOrder(), freshPoll(pfcStats(3, 30, 9)));
}

// One interface's statistics fail while another's read: the run is good, and the failed one's series
// are unread (Batch::unread), not gone; the watchdog holds what it judged of them.
TEST(EthtoolPfcCollectorTest, AFailedInterfaceInAGoodRunReportsItsSeriesUnread) {
  TempDir dir;
  dir.write("ens1f0", pfcStats(3, 10, 5));
  dir.write("ens1f1", pfcStats(3, 20, 6));
  Harness h(dir.path());
  const Topology topo = topologyOf({"ens1f0", "ens1f1"});
  std::set<std::string> ens1f1;
  for (const auto& [key, value] : h.collect(topo).byKey("ens1f1")) ens1f1.insert(key);
  ASSERT_FALSE(ens1f1.empty());
  dir.write("ens1f1", "garbage\n");
  const PollResult r = h.collect(topo);
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_TRUE(r.byKey("ens1f1").empty());
  EXPECT_FALSE(r.byKey("ens1f0").empty());
  std::set<std::string> unread;
  for (const SeriesPtr& u : r.unread) unread.insert(u->key);
  EXPECT_EQ(unread, ens1f1);
  fs::remove(dir.path() / "ens1f1");  // no statistics at all: no data, nothing held
  EXPECT_TRUE(h.collect(topo).unread.empty());
}

// A source other than the file one: it never vouches for the names (namesUnchanged stays false),
// or it leaves a list behind on error, so the collector compares the names itself.
class ScriptedSource final : public EthtoolSource {
 public:
  struct Step {
    StatList stats;
    int errnum = 0;               // 0: success
    bool namesUnchanged = false;  // what the source claims
  };
  explicit ScriptedSource(std::vector<Step> steps) : steps_(std::move(steps)) {}

  Result<EthtoolStats> read(const std::string& ifname) override {
    EthtoolStats out;
    if (auto st = readInto(ifname, out); !st) return st.error();
    return out;
  }
  Status readInto(const std::string&, EthtoolStats& out) override {
    const Step& s = steps_.at(next_++);
    out.assign(s.stats);  // left in `out` even on error: "no usable values"
    out.issues.clear();
    out.namesUnchanged = s.namesUnchanged;
    if (s.errnum != 0) return Error{"scripted failure", s.errnum};
    return {};
  }

 private:
  std::vector<Step> steps_;
  size_t next_ = 0;
};

TEST(EthtoolPfcCollectorTest, OtherSourcesAreComparedNameByName) {
  const StatList a = {{"rx_prio3_pause", 1}, {"tx_prio3_pause", 2}, {"rx_packets", 3}};
  const StatList aValues = {{"rx_prio3_pause", 4}, {"tx_prio3_pause", 5}, {"rx_packets", 6}};
  const StatList b = {{"tx_prio3_pause", 7}, {"rx_prio3_pause", 8}, {"rx_packets", 9}};
  const StatList dup = {{"rx_prio3_pause", 10}, {"rx_prio3_pause", 11}, {"tx_prio3_pause", 12}};
  const std::vector<ScriptedSource::Step> steps = {
      {a},
      {aValues},
      {b},  // same count, swapped names, not vouched for
      {dup},
      {a},
      {b, EIO},
      // `out` held b before this call, so "unchanged" is true of the source's view, but the
      // collector last mapped a: it must not trust the claim across an error.
      {b, 0, true},
  };
  auto source = std::make_shared<ScriptedSource>(steps);
  Harness h(source);
  const Topology topo = topologyOf({"ens1f0"});
  for (size_t i = 0; i < steps.size(); ++i) {
    const PollResult run = h.collect(topo);
    if (steps[i].errnum != 0) {
      EXPECT_TRUE(run.samples.empty()) << i;
      EXPECT_EQ(run.errors, 1u) << i;
      continue;
    }
    Harness fresh(std::make_shared<ScriptedSource>(std::vector<ScriptedSource::Step>{steps[i]}));
    EXPECT_EQ(run.inOrder(), fresh.collect(topo).inOrder()) << "step " << i;
  }
  // The repeated name counts once, with its first value.
  Harness once(std::make_shared<ScriptedSource>(std::vector<ScriptedSource::Step>{{dup}}));
  const auto dupRun = once.collect(topo);
  EXPECT_EQ(dupRun.samples.size(), 2u);
  EXPECT_EQ(
      dupRun.find(R"(fabricmon_pfc_pause_frames_received_total{interface="ens1f0",priority="3"})")
          ->value,
      10);
}

}  // namespace
}  // namespace fabricmon
