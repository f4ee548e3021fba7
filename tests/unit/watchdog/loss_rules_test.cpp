#include <gtest/gtest.h>

#include "tests/unit/watchdog/test_node.hpp"
#include "watchdog/rules/roce_packet_loss.hpp"

namespace fabricmon::testing {
namespace {

const Labels kPort{{"device", "mlx5_0"}, {"port", "1"}};

// ---- roce_packet_loss ----

struct LossCase {
  const char* name;
  const char* fam;
  Labels labels;
  double perPoll;
  double dt;
  int polls;
  std::vector<std::string> expected;
};

class RocePacketLossTable : public ::testing::TestWithParam<LossCase> {};

TEST_P(RocePacketLossTable, Counters) {
  const auto& c = GetParam();
  TestNode n;
  healthyRoce(n);
  n.set("hw_counters", c.fam, c.labels, 10);
  for (int i = 0; i < 15; ++i) n.tick();  // settle after start-up
  for (int i = 0; i < c.polls; ++i) {
    n.add("hw_counters", c.fam, c.labels, c.perPoll);
    n.tick(c.dt);
  }
  EXPECT_EQ(describe(n.findings()), c.expected) << c.name;
}

const Labels kAdp{{"device", "mlx5_0"}, {"port", "1"}, {"counter", "roce_adp_retrans"}};

INSTANTIATE_TEST_SUITE_P(
    Cases, RocePacketLossTable,
    ::testing::Values(
        // Out-of-sequence alone is reordering (adaptive routing), not loss: no finding by default.
        LossCase{"out_of_sequence_alone_is_reordering", "fabricmon_roce_out_of_sequence_total", kPort, 5, 1, 30, {}},
        LossCase{"sequence_errors", "fabricmon_roce_packet_sequence_errors_total", kPort, 1, 1, 3,
                 {"roce_packet_loss/retransmissions/mlx5_0/1/eth0"}},
        LossCase{"adaptive_retransmissions", "fabricmon_hw_stat_total", kAdp, 1, 1, 3,
                 {"roce_packet_loss/retransmissions/mlx5_0/1/eth0"}},
        LossCase{"flat_counters", "fabricmon_roce_out_of_sequence_total", kPort, 0, 1, 30, {}},
        LossCase{"ack_timeouts_critical", "fabricmon_roce_local_ack_timeouts_total", kPort, 2, 1, 20,
                 {"roce_packet_loss/local_ack_timeouts/mlx5_0/1/eth0", "roce_packet_loss/retransmissions/mlx5_0/1/eth0"}},
        LossCase{"ack_timeouts_just_below_critical", "fabricmon_roce_local_ack_timeouts_total", kPort, 0.95, 1, 20,
                 {"roce_packet_loss/retransmissions/mlx5_0/1/eth0"}},
        // 2 timeouts per poll at 2.7 s intervals is 0.74/s: a rate over the nominal 1 s would say 2/s.
        LossCase{"ack_timeouts_with_delayed_polls", "fabricmon_roce_local_ack_timeouts_total", kPort, 2, 2.7, 10,
                 {"roce_packet_loss/retransmissions/mlx5_0/1/eth0"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(RocePacketLoss, OutOfSequenceAloneWarnsWhenConfiguredForFabricsWithoutAdaptiveRouting) {
  WatchdogConfig config;
  config.rules.get<RocePacketLossRule>().outOfSequenceAloneIsLoss = true;
  TestNode n(config);
  healthyRoce(n);
  for (int i = 0; i < 15; ++i) n.tick();
  n.add("hw_counters", "fabricmon_roce_out_of_sequence_total", kPort, 3);
  n.tick();
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"roce_packet_loss/retransmissions/mlx5_0/1/eth0"});
}

TEST(RocePacketLoss, OutOfSequenceWithSequenceErrorsIsLoss) {
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 15; ++i) n.tick();
  n.add("hw_counters", "fabricmon_roce_out_of_sequence_total", kPort, 30);
  n.tick();
  EXPECT_TRUE(n.findings().empty());
  n.add("hw_counters", "fabricmon_roce_packet_sequence_errors_total", kPort, 2);
  n.tick();
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"roce_packet_loss/retransmissions/mlx5_0/1/eth0"});
}

TEST(RocePacketLoss, ClearsAfterAQuietWindow) {
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 15; ++i) n.tick();
  n.add("hw_counters", "fabricmon_roce_packet_sequence_errors_total", kPort, 3);
  n.tick();
  ASSERT_EQ(n.findings().size(), 1u);
  EXPECT_EQ(n.findings()[0].severity, Severity::kWarning);
  for (int i = 0; i < 299; ++i) n.tick();
  EXPECT_EQ(n.findings().size(), 1u);
  n.tick();
  EXPECT_TRUE(n.findings().empty());
}

TEST(RocePacketLoss, LossWhileTheLinkIsDownBelongsToLinkFlap) {
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 15; ++i) n.tick();
  n.set("rdma_port", "fabricmon_port_state", kPort, 1);
  n.set("rdma_port", "fabricmon_port_physical_state", kPort, 3);
  for (int i = 0; i < 5; ++i) {
    n.add("hw_counters", "fabricmon_roce_local_ack_timeouts_total", kPort, 50);
    n.tick();
  }
  n.set("rdma_port", "fabricmon_port_state", kPort, 4);
  n.set("rdma_port", "fabricmon_port_physical_state", kPort, 5);
  for (int i = 0; i < 30; ++i) n.tick();
  EXPECT_TRUE(n.findings().empty()) << describe(n.findings())[0];
}

// ---- lossless_drop ----

struct DropCase {
  const char* name;
  const char* collector;
  const char* fam;
  Labels labels;
  double start;
  double perPoll;
  std::vector<std::string> expected;
};

class LosslessDropTable : public ::testing::TestWithParam<DropCase> {};

TEST_P(LosslessDropTable, Drops) {
  const auto& c = GetParam();
  TestNode n;
  healthyRoce(n);
  n.set(c.collector, c.fam, c.labels, c.start);
  n.tick();
  n.tick();
  n.add(c.collector, c.fam, c.labels, c.perPoll);
  n.tick();
  EXPECT_EQ(describe(n.findings()), c.expected) << c.name;
  for (const auto& f : n.findings()) EXPECT_EQ(f.severity, Severity::kCritical);
}

const Labels kEbo{{"device", "mlx5_0"}, {"port", "1"}, {"counter", "excessive_buffer_overrun_errors"}};

INSTANTIATE_TEST_SUITE_P(
    Cases, LosslessDropTable,
    ::testing::Values(
        DropCase{"roce_priority_discards", "ethtool_pfc", "fabricmon_priority_discards_total",
                 {{"interface", "eth0"}, {"priority", "3"}, {"kind", "discards"}}, 0, 1,
                 {"lossless_drop/priority_discards/eth0/3"}},
        DropCase{"roce_priority_buffer_discards", "ethtool_pfc", "fabricmon_priority_discards_total",
                 {{"interface", "eth0"}, {"priority", "3"}, {"kind", "buffer"}}, 0, 1,
                 {"lossless_drop/priority_discards/eth0/3"}},
        DropCase{"no_new_discards", "ethtool_pfc", "fabricmon_priority_discards_total",
                 {{"interface", "eth0"}, {"priority", "3"}, {"kind", "discards"}}, 1000, 0, {}},
        DropCase{"lossy_priority_discards_are_not_ours", "ethtool_pfc", "fabricmon_priority_discards_total",
                 {{"interface", "eth0"}, {"priority", "0"}, {"kind", "discards"}}, 0, 100, {}},
        DropCase{"discard_counter_reset", "ethtool_pfc", "fabricmon_priority_discards_total",
                 {{"interface", "eth0"}, {"priority", "3"}, {"kind", "discards"}}, 1000, -1000, {}},
        DropCase{"excessive_buffer_overrun", "pma_counters", "fabricmon_pma_stat_total", kEbo, 2, 1,
                 {"lossless_drop/excessive_buffer_overrun/mlx5_0/1/eth0"}},
        DropCase{"excessive_buffer_overrun_saturated", "pma_counters", "fabricmon_pma_stat_total", kEbo, 15, 0,
                 {}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LosslessDrop, ClearsFiveMinutesAfterTheLastDrop) {
  TestNode n;
  healthyRoce(n);
  const Labels d{{"interface", "eth0"}, {"priority", "3"}, {"kind", "congestion"}};
  n.tick();
  n.tick();
  n.add("ethtool_pfc", "fabricmon_priority_discards_total", d, 4);
  n.tick();
  ASSERT_EQ(n.findings().size(), 1u);
  for (int i = 0; i < 299; ++i) n.tick();
  EXPECT_EQ(n.findings().size(), 1u);
  n.tick();
  EXPECT_TRUE(n.findings().empty());
}

}  // namespace
}  // namespace fabricmon::testing
