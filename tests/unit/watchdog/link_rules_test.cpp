#include <gtest/gtest.h>

#include "tests/unit/watchdog/test_node.hpp"
#include "watchdog/rules/link_errors.hpp"
#include "watchdog/rules/port_degraded.hpp"

namespace fabricmon::testing {
namespace {

const Labels kPort{{"device", "mlx5_0"}, {"port", "1"}};

// ---- link_flap ----

struct FlapCase {
  const char* name;
  const char* collector;
  const char* fam;
  Labels labels;
  double perDown;            ///< counter increments per down event
  std::vector<int> downsAt;  ///< poll numbers (1 s apart) of down events
  int polls;
  bool activeAtEnd;
};

class LinkFlapTable : public ::testing::TestWithParam<FlapCase> {};

TEST_P(LinkFlapTable, Counts) {
  const auto& c = GetParam();
  TestNode n;
  healthyRoce(n);
  n.set(c.collector, c.fam, c.labels, 0);
  for (int i = 0; i < c.polls; ++i) {
    for (int at : c.downsAt) {
      if (at == i) n.add(c.collector, c.fam, c.labels, c.perDown);
    }
    n.tick();
  }
  auto f = describe(n.findings());
  if (c.activeAtEnd) {
    EXPECT_EQ(f, std::vector<std::string>{"link_flap//mlx5_0/1/eth0"}) << c.name;
  } else {
    EXPECT_TRUE(f.empty()) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LinkFlapTable,
    ::testing::Values(
        FlapCase{"three_carrier_downs", "netdev_link", "fabricmon_netdev_carrier_down_changes_total",
                 {{"interface", "eth0"}}, 1, {10, 100, 400}, 420, true},
        FlapCase{"two_carrier_downs", "netdev_link", "fabricmon_netdev_carrier_down_changes_total",
                 {{"interface", "eth0"}}, 1, {10, 100}, 420, false},
        FlapCase{"three_downs_spread_over_more_than_the_window", "netdev_link",
                 "fabricmon_netdev_carrier_down_changes_total", {{"interface", "eth0"}}, 1, {10, 400, 700}, 720, false},
        FlapCase{"link_downed_pma", "pma_counters", "fabricmon_port_link_downed_total", kPort, 1, {5, 6, 7}, 10, true},
        FlapCase{"phy_link_down_events", "ethtool_pfc", "fabricmon_phy_link_down_events_total", {{"interface", "eth0"}},
                 1, {5, 6, 7}, 10, true},
        FlapCase{"clears_after_ten_quiet_minutes", "pma_counters", "fabricmon_port_link_downed_total", kPort, 1,
                 {5, 6, 7}, 7 + 601, false},
        FlapCase{"still_active_just_before_quiet_time", "pma_counters", "fabricmon_port_link_downed_total", kPort, 1,
                 {5, 6, 7}, 7 + 599, true}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LinkFlap, CarrierChangesCountBothEdges) {
  TestNode n;
  healthyRoce(n);
  n.drop("netdev_link", "interface", "eth0");
  n.set("netdev_link", "fabricmon_netdev_carrier_changes_total", {{"interface", "eth0"}}, 2);
  n.tick();
  n.tick();
  // Two flaps = four edges: not three down events.
  n.add("netdev_link", "fabricmon_netdev_carrier_changes_total", {{"interface", "eth0"}}, 4);
  n.tick();
  EXPECT_TRUE(n.findings().empty());
  n.add("netdev_link", "fabricmon_netdev_carrier_changes_total", {{"interface", "eth0"}}, 1);
  n.tick();
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"link_flap//mlx5_0/1/eth0"});
}

TEST(LinkFlap, CounterResetAndVanishingPortRaiseNothing) {
  TestNode n;
  healthyRoce(n);
  n.set("netdev_link", "fabricmon_netdev_carrier_down_changes_total", {{"interface", "eth0"}}, 40);
  n.tick();
  n.tick();
  // Driver reload: the counter restarts from 0 and the device reappears later.
  n.set("netdev_link", "fabricmon_netdev_carrier_down_changes_total", {{"interface", "eth0"}}, 0);
  n.tick();
  n.tick();
  EXPECT_TRUE(n.findings().empty());
  for (const char* c : {"rdma_port", "pma_counters", "hw_counters", "netdev_link", "ethtool_pfc"}) {
    n.drop(c, "device", "mlx5_0");
    n.drop(c, "interface", "eth0");
  }
  n.tick();
  n.tick();
  EXPECT_TRUE(n.findings().empty());
}

// ---- link_errors ----

struct ErrorCase {
  const char* name;
  const char* fam;
  Labels labels;
  double start;
  double perPoll;  ///< errors added each minute
  int minutes;
  const char* reason;  ///< expected finding, "" = none
};

class LinkErrorsTable : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LinkErrorsTable, PerHourLimits) {
  const auto& c = GetParam();
  TestNode n;
  healthyRoce(n);
  n.set("pma_counters", c.fam, c.labels, c.start);
  n.tick(60);
  n.tick(60);
  for (int i = 0; i < c.minutes; ++i) {
    n.add("pma_counters", c.fam, c.labels, c.perPoll);
    n.tick(60);
  }
  auto f = n.findings();
  if (std::string(c.reason).empty()) {
    EXPECT_TRUE(f.empty()) << c.name << ": " << (f.empty() ? "" : f[0].summary);
  } else {
    ASSERT_EQ(f.size(), 1u) << c.name;
    EXPECT_EQ(labelOf(f[0], "reason"), c.reason);
    EXPECT_EQ(f[0].rule, "link_errors");
  }
}

const Labels kLli{{"device", "mlx5_0"}, {"port", "1"}, {"counter", "local_link_integrity_errors"}};

INSTANTIATE_TEST_SUITE_P(
    Cases, LinkErrorsTable,
    ::testing::Values(
        ErrorCase{"symbol_errors_above", "fabricmon_port_symbol_errors_total", kPort, 0, 1, 11, "symbol_errors"},
        ErrorCase{"symbol_errors_at_limit", "fabricmon_port_symbol_errors_total", kPort, 0, 1, 10, ""},
        ErrorCase{"symbol_errors_spread_over_two_hours", "fabricmon_port_symbol_errors_total", kPort, 0, 0.15, 120, ""},
        // 16-bit PMA counter stuck at 65535: its rate is unknown, not zero and not huge.
        ErrorCase{"saturated_symbol_errors", "fabricmon_port_symbol_errors_total", kPort, 65535, 0, 30, ""},
        ErrorCase{"counter_reset_by_perfquery", "fabricmon_port_symbol_errors_total", kPort, 500, -500, 1, ""},
        ErrorCase{"link_error_recovery", "fabricmon_port_link_error_recovery_total", kPort, 0, 2, 6,
                  "link_error_recovery"},
        ErrorCase{"receive_errors", "fabricmon_port_receive_errors_total", kPort, 0, 11, 1, "receive_errors"},
        ErrorCase{"local_link_integrity", "fabricmon_pma_stat_total", kLli, 0, 3, 4, "local_link_integrity_errors"},
        ErrorCase{"local_link_integrity_saturated", "fabricmon_pma_stat_total", kLli, 15, 0, 10, ""}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LinkErrors, SaturatingCounterCountsOnlyUpToItsMaximum) {
  TestNode n;
  healthyRoce(n);
  n.set("pma_counters", "fabricmon_port_link_error_recovery_total", kPort, 250);
  n.tick(60);
  n.tick(60);
  n.set("pma_counters", "fabricmon_port_link_error_recovery_total", kPort, 255);  // +5, then stuck
  for (int i = 0; i < 20; ++i) n.tick(60);
  EXPECT_TRUE(n.findings().empty());
}

// A bnxt_en port counts no PMA symbol_error and no rx_symbol_err_phy: the symbol errors its FEC did
// not correct (rx_pcs_symbol_err, fabricmon_phy_pcs_symbol_errors_total) are its one count, judged
// by the same limits; on an mlx5 port, beside the other two, the larger of the counts wins.
TEST(LinkErrors, SymbolErrorsTheFecDidNotCorrectAreJudgedWhereTheyAreTheOnlyCount) {
  const Labels iface{{"interface", "eth0"}};
  for (const bool alongside : {false, true}) {
    SCOPED_TRACE(alongside ? "beside rx_symbol_err_phy" : "alone");
    TestNode n;
    healthyRoce(n);
    n.set("ethtool_pfc", "fabricmon_phy_pcs_symbol_errors_total", iface, 0);
    if (alongside) n.set("ethtool_pfc", "fabricmon_phy_symbol_errors_total", iface, 0);
    n.tick(60);
    n.tick(60);
    for (int i = 0; i < 10; ++i) {
      n.add("ethtool_pfc", "fabricmon_phy_pcs_symbol_errors_total", iface, 1);
      n.tick(60);
    }
    EXPECT_TRUE(n.findings().empty()) << "10 in the hour: at the limit";
    n.add("ethtool_pfc", "fabricmon_phy_pcs_symbol_errors_total", iface, 1);
    n.tick(60);
    EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"link_errors/symbol_errors/mlx5_0/1/eth0"});
  }
}

// A bnxt_en interface without bnxt_re (no RDMA port): its PHY counts alone, the same limits.
TEST(LinkErrors, AnInterfaceWithoutAnRdmaPortIsJudgedOnItsPhyCounts) {
  TestNode n;
  const Labels iface{{"interface", "eth9"}};
  n.set("ethtool_pfc", "fabricmon_phy_pcs_symbol_errors_total", iface, 0);
  n.tick(60);
  n.tick(60);
  for (int i = 0; i < 11; ++i) {
    n.add("ethtool_pfc", "fabricmon_phy_pcs_symbol_errors_total", iface, 1);
    n.tick(60);
  }
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"link_errors/symbol_errors/eth9"});
}

// Two counts of the same errors, equal: the one observed over the longer span is judged, so a
// counter that appeared later does not leave the BER without a full window (and a finding that
// cannot clear).
TEST(LinkErrors, OfEqualCountsTheLongerObservedOneJudgesTheBer) {
  WatchdogConfig cfg;
  cfg.rules.get<LinkErrorsRule>().symbolErrorsPerHour = 1e9;  // isolate the BER check
  cfg.rules.get<LinkErrorsRule>().berLimit = 1e-15;  // any error in the window: it clears at none
  TestNode n(cfg);
  healthyRoce(n, "mlx5_0", "eth0", k400G);
  const Labels iface{{"interface", "eth0"}};
  n.set("ethtool_pfc", "fabricmon_phy_symbol_errors_total", iface, 0);
  for (int i = 0; i < 700; ++i) {
    n.add("ethtool_pfc", "fabricmon_phy_symbol_errors_total", iface, 1);
    n.tick();
  }
  ASSERT_EQ(describe(n.findings()), std::vector<std::string>{"link_errors/ber/mlx5_0/1/eth0"});
  // The errors stop at 700 s; a second count of them appears at 1000 s, moving with it (not at all).
  for (int i = 700; i < 1450; ++i) {
    if (i == 1000) n.set("ethtool_pfc", "fabricmon_phy_pcs_symbol_errors_total", iface, 0);
    n.tick();
  }
  // From 1300 s both count 0 over the BER window; only rx_symbol_err_phy has observed all of it.
  EXPECT_TRUE(n.findings().empty()) << "cleared on the full window, not held until 1600 s";
}

struct BerCase {
  double errorsPerSecond;
  double rate;
  bool fires;
};
class PostFecBer : public ::testing::TestWithParam<BerCase> {};

TEST_P(PostFecBer, OverTenMinutes) {
  const auto& c = GetParam();
  WatchdogConfig cfg;
  cfg.rules.get<LinkErrorsRule>().symbolErrorsPerHour = 1e9;  // isolate the BER check
  TestNode n(cfg);
  healthyRoce(n, "mlx5_0", "eth0", c.rate);
  n.set("ethtool_pfc", "fabricmon_phy_symbol_errors_total", {{"interface", "eth0"}}, 0);
  bool ever = false;
  for (int i = 0; i < 700; ++i) {
    n.add("ethtool_pfc", "fabricmon_phy_symbol_errors_total", {{"interface", "eth0"}}, c.errorsPerSecond);
    n.tick();
    for (const auto& d : describe(n.findings())) {
      EXPECT_EQ(d, "link_errors/ber/mlx5_0/1/eth0");
      EXPECT_GE(i, 599) << "judged over a full window only";
      ever = true;
    }
  }
  EXPECT_EQ(ever, c.fires);
}

// 1e-12 at 400 Gb/s is 0.4 errors/s (docs/rules.md, link_errors); at 100 Gb/s 0.1/s.
INSTANTIATE_TEST_SUITE_P(Rates, PostFecBer,
                         ::testing::Values(BerCase{0.5, k400G, true}, BerCase{0.3, k400G, false},
                                           BerCase{0.3, k400G / 4, true}, BerCase{0, k400G, false}));

// ---- port_degraded ----

void addPort(TestNode& n, const std::string& dev, double rate, double state = 4, double phys = 5,
             const char* layer = "InfiniBand") {
  n.set("rdma_port", "fabricmon_port_info", {{"device", dev}, {"port", "1"}, {"interface", ""}, {"link_layer", layer}},
        1);
  n.set("rdma_port", "fabricmon_port_state", {{"device", dev}, {"port", "1"}}, state);
  n.set("rdma_port", "fabricmon_port_physical_state", {{"device", dev}, {"port", "1"}}, phys);
  n.set("rdma_port", "fabricmon_port_rate_bytes_per_second", {{"device", dev}, {"port", "1"}}, rate);
}

struct DegradedCase {
  const char* name;
  std::vector<std::tuple<double, double, double>> ports;  ///< rate, state, phys of mlx5_0, mlx5_1, ...
  std::optional<double> expectedGbps;
  int seconds;
  std::vector<std::string> expected;
};

class PortDegradedTable : public ::testing::TestWithParam<DegradedCase> {};

TEST_P(PortDegradedTable, Ports) {
  const auto& c = GetParam();
  WatchdogConfig cfg;
  cfg.rules.get<PortDegradedRule>().expectedRateGbps = c.expectedGbps;
  TestNode n(cfg);
  for (size_t i = 0; i < c.ports.size(); ++i) {
    auto [rate, state, phys] = c.ports[i];
    addPort(n, "mlx5_" + std::to_string(i), rate, state, phys);
  }
  for (int i = 0; i <= c.seconds; ++i) n.tick();
  EXPECT_EQ(describe(n.findings()), c.expected) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PortDegradedTable,
    ::testing::Values(
        DegradedCase{"all_same", {{k400G, 4, 5}, {k400G, 4, 5}, {k400G, 4, 5}}, {}, 40, {}},
        DegradedCase{"one_slow_port", {{k400G, 4, 5}, {k400G / 2, 4, 5}, {k400G, 4, 5}}, {}, 31,
                     {"port_degraded/rate_below_peers/mlx5_1/1"}},
        DegradedCase{"one_slow_port_not_yet_30s", {{k400G, 4, 5}, {k400G / 2, 4, 5}, {k400G, 4, 5}}, {}, 29, {}},
        DegradedCase{"no_single_most_common_rate", {{k400G, 4, 5}, {k400G / 2, 4, 5}}, {}, 40, {}},
        DegradedCase{"below_configured_rate", {{k400G / 2, 4, 5}}, 400, 31,
                     {"port_degraded/rate_below_expected/mlx5_0/1"}},
        DegradedCase{"at_configured_rate", {{k400G, 4, 5}}, 400, 31, {}},
        DegradedCase{"link_down_port_is_not_slow", {{k400G, 4, 5}, {k400G / 8, 1, 3}, {k400G, 4, 5}}, {}, 40, {}},
        DegradedCase{"init_with_link_up", {{k400G, 4, 5}, {k400G, 2, 5}}, {}, 31,
                     {"port_degraded/not_active/mlx5_1/1"}},
        DegradedCase{"init_with_link_up_just_under_30s", {{k400G, 4, 5}, {k400G, 2, 5}}, {}, 29, {}},
        DegradedCase{"down_and_disabled_is_not_degraded", {{k400G, 1, 3}}, {}, 40, {}}),
    [](const auto& info) { return std::string(info.param.name); });

void deviceModel(TestNode& n, const std::string& dev, const std::string& hca, const std::string& board) {
  n.set("rdma_port", "fabricmon_device_info",
        {{"device", dev}, {"fw_version", "1"}, {"hca_type", hca}, {"board_id", board}, {"node_guid", "0"}}, 1);
}

// 8 x 400G ConnectX-7, 2 x 200G BlueField-3 and a 100G Broadcom front-end NIC (no hca_type or
// board_id): a normal mixed node, not a degraded one.
TEST(PortDegraded, MixedNodeIsHealthy) {
  TestNode n;
  for (int i = 0; i < 8; ++i) {
    const std::string dev = "mlx5_" + std::to_string(i);
    addPort(n, dev, k400G, 4, 5, "Ethernet");
    deviceModel(n, dev, "MT4129", "MT_0000000838");
  }
  for (int i = 8; i < 10; ++i) {
    const std::string dev = "mlx5_" + std::to_string(i);
    addPort(n, dev, k400G / 2, 4, 5, "Ethernet");
    deviceModel(n, dev, "MT41692", "MT_0000000884");
  }
  addPort(n, "bnxt_re0", k400G / 4, 4, 5, "Ethernet");
  addPort(n, "irdma0", k400G / 4, 4, 5, "Ethernet");
  for (int i = 0; i < 40; ++i) n.tick();
  EXPECT_TRUE(n.findings().empty()) << describe(n.findings()).front();
}

// Without the model split the BlueField ports would be "below peers": the test above is the one
// that notices if models are not compared apart. One ConnectX-7 at half rate still is.
TEST(PortDegraded, SlowPortAmongItsOwnModel) {
  TestNode n;
  for (int i = 0; i < 4; ++i) {
    const std::string dev = "mlx5_" + std::to_string(i);
    addPort(n, dev, i == 2 ? k400G / 2 : k400G, 4, 5, "Ethernet");
    deviceModel(n, dev, "MT4129", "MT_0000000838");
  }
  addPort(n, "mlx5_4", k400G / 2, 4, 5, "Ethernet");
  deviceModel(n, "mlx5_4", "MT41692", "MT_0000000884");
  for (int i = 0; i < 40; ++i) n.tick();
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"port_degraded/rate_below_peers/mlx5_2/1"});
}

// A lone port that comes back from a flap at half its rate (4X NDR -> 2X NDR) has nobody to be
// compared with but itself.
TEST(PortDegraded, DropBelowItsOwnBest) {
  TestNode n;
  addPort(n, "mlx5_0", k400G);
  for (int i = 0; i < 10; ++i) n.tick();
  addPort(n, "mlx5_0", k400G, 1, 2);  // the link goes down
  for (int i = 0; i < 5; ++i) n.tick();
  addPort(n, "mlx5_0", k400G / 2);  // and trains at 2X
  for (int i = 0; i < 29; ++i) n.tick();
  EXPECT_TRUE(n.findings().empty()) << "not before not_active_for";
  for (int i = 0; i < 3; ++i) n.tick();
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"port_degraded/rate_below_own_best/mlx5_0/1"});
  addPort(n, "mlx5_0", k400G);
  n.tick();
  EXPECT_TRUE(n.findings().empty());
}

TEST(PortDegraded, ClearsWhenTheStateRecovers) {
  TestNode n;
  addPort(n, "mlx5_0", k400G, 2, 5);
  for (int i = 0; i < 35; ++i) n.tick();
  ASSERT_EQ(n.findings().size(), 1u);
  EXPECT_EQ(n.findings()[0].severity, Severity::kCritical);
  addPort(n, "mlx5_0", k400G, 4, 5);
  n.tick();
  EXPECT_TRUE(n.findings().empty());
}

}  // namespace
}  // namespace fabricmon::testing
