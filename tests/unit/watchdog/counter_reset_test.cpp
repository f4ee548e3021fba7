// Every rule that reads a counter still fires when the counter restarts (a driver reload) and then
// keeps rising past its threshold: a reset counts from 0, it neither hides what follows nor
// subtracts from it. And one link flap that moves the carrier, PMA and PHY counters together is
// one down event, not three.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

const Labels kPort{{"device", "mlx5_0"}, {"port", "1"}};
const Labels kIface{{"interface", "eth0"}};

struct ResetCase {
  const char* name;
  const char* collector;
  const char* family;
  Labels labels;
  double before;     ///< the counter's value before the driver reload
  double perSecond;  ///< how fast it rises after it
  int seconds;       ///< how long it rises
  const char* expected;  ///< the finding, as describe() prints it
  /// The node's traffic each second (default: flowing()); the fault may stop some of it.
  std::function<void(TestNode&)> flow = nullptr;
};

class ResetThenRise : public ::testing::TestWithParam<ResetCase> {};

TEST_P(ResetThenRise, StillFires) {
  const ResetCase& c = GetParam();
  TestNode n;
  healthyRoce(n);
  auto traffic = [&] { c.flow ? c.flow(n) : flowing(n); };
  n.set(c.collector, c.family, c.labels, c.before);
  for (int i = 0; i < 5; ++i) {
    traffic();
    n.tick();
  }
  EXPECT_TRUE(n.findings().empty()) << describe(n.findings()).front();
  n.set(c.collector, c.family, c.labels, 0);  // the driver reloads: the counter restarts at 0
  traffic();
  n.tick();
  bool fired = false;
  for (int i = 0; i < c.seconds && !fired; ++i) {
    n.add(c.collector, c.family, c.labels, c.perSecond);
    traffic();
    n.tick();
    for (const auto& d : describe(n.findings())) fired = fired || d == c.expected;
  }
  EXPECT_TRUE(fired) << c.name << ": " << c.expected << " never fired";
}

Labels with(Labels l, const char* k, const char* v) {
  l.emplace_back(k, v);
  return l;
}

INSTANTIATE_TEST_SUITE_P(
    EveryCounterRule, ResetThenRise,
    ::testing::Values(
        ResetCase{"link_flap_carrier", "netdev_link", "fabricmon_netdev_carrier_down_changes_total", kIface, 40, 1, 10,
                  "link_flap//mlx5_0/1/eth0"},
        ResetCase{"link_errors_symbol", "pma_counters", "fabricmon_port_symbol_errors_total", kPort, 900, 5, 10,
                  "link_errors/symbol_errors/mlx5_0/1/eth0"},
        ResetCase{"roce_packet_loss_seq_err", "hw_counters", "fabricmon_roce_packet_sequence_errors_total", kPort, 5000,
                  20, 10, "roce_packet_loss/retransmissions/mlx5_0/1/eth0"},
        ResetCase{"lossless_drop_discards", "ethtool_pfc", "fabricmon_priority_discards_total",
                  with({{"interface", "eth0"}, {"priority", "3"}}, "kind", "buffer"), 300, 2, 5,
                  "lossless_drop/priority_discards/eth0/3"},
        // ECN marks arrive but no CNP is sent: the counters restart, and the signature comes back.
        ResetCase{"dcqcn_np_disabled_ecn", "hw_counters", "fabricmon_roce_ecn_marked_packets_total", kPort, 1e6, 50, 70,
                  "dcqcn_misconfig/np_disabled/eth0/3",
                  [](TestNode& n) {
                    // Traffic moves, and CNPs are handled from the far end, but none is sent.
                    n.add("ethtool_pfc", "fabricmon_priority_transmit_packets_total",
                          {{"interface", "eth0"}, {"priority", "3"}}, 1000);
                    n.add("hw_counters", "fabricmon_roce_cnp_handled_total", kPort, 5);
                  }},
        ResetCase{"pause_storm_duration", "ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
                  with({{"interface", "eth0"}, {"priority", "3"}}, "direction", "rx"), 5000, 0.998, 10,
                  "pause_storm/storm/eth0/3",
                  [](TestNode& n) {
                    // The paused side moves nothing (transmit on priority 3 is frozen); we still receive.
                    n.add("ethtool_pfc", "fabricmon_priority_receive_packets_total",
                          {{"interface", "eth0"}, {"priority", "3"}}, 1000);
                  }}),
    [](const auto& info) { return std::string(info.param.name); });

// One flap moves three counters; counted once per source and the largest wins. Summing them
// would make two flaps six and fire at link_flap's default of three.
TEST(LinkFlap, OneFlapAcrossThreeSourcesCountsOnce) {
  TestNode n;
  healthyRoce(n);
  n.set("pma_counters", "fabricmon_port_link_downed_total", kPort, 0);
  n.set("ethtool_pfc", "fabricmon_phy_link_down_events_total", kIface, 0);
  for (int i = 0; i < 3; ++i) n.tick();
  auto flap = [&] {
    n.add("netdev_link", "fabricmon_netdev_carrier_down_changes_total", kIface, 1);
    n.add("pma_counters", "fabricmon_port_link_downed_total", kPort, 1);
    n.add("ethtool_pfc", "fabricmon_phy_link_down_events_total", kIface, 1);
    n.tick();
    n.tick();
  };
  flap();
  flap();
  EXPECT_TRUE(n.findings().empty()) << describe(n.findings()).front();
  flap();
  ASSERT_EQ(describe(n.findings()), std::vector<std::string>{"link_flap//mlx5_0/1/eth0"});
  double downs = -1;
  const auto findings = n.findings();  // the loop reads into it: a temporary would be gone
  for (const auto& [k, v] : findings[0].evidence) {
    if (k == "down_events") downs = v;
  }
  EXPECT_EQ(downs, 3);
}

}  // namespace
}  // namespace fabricmon::testing
