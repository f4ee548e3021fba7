#include <gtest/gtest.h>

#include <functional>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

struct Case {
  const char* name;
  std::function<void(TestNode&)> misconfigure;  ///< applied once before the run
  std::function<void(TestNode&)> perPoll;       ///< traffic each poll (default: healthy flow)
  int polls;
  bool dcqcn;                                   ///< qos.dcqcn_enabled
  std::vector<std::string> expected;            ///< findings at the end
};

void nothing(TestNode&) {}
void flow(TestNode& n) { flowing(n); }

class DcqcnTable : public ::testing::TestWithParam<Case> {};

TEST_P(DcqcnTable, Reasons) {
  const Case& c = GetParam();
  QosConfig qos;
  qos.dcqcnEnabled = c.dcqcn;
  TestNode n(WatchdogConfig{}, qos);
  healthyRoce(n);
  c.misconfigure(n);
  for (int i = 0; i < c.polls; ++i) {
    c.perPoll(n);
    n.tick();
  }
  EXPECT_EQ(describe(n.findings()), c.expected) << c.name;
}

void pfcOn(TestNode& n, int prio, double on) {
  n.set("dcb_config", "fabricmon_pfc_enabled", {{"interface", "eth0"}, {"priority", std::to_string(prio)}}, on);
}

// Congestion handled by PFC alone: 2 % pause, no ECN marks, no CNPs.
void pauseWithoutEcn(double fraction, TestNode& n) {
  n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
        {{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}}, fraction);
  n.add("ethtool_pfc", "fabricmon_priority_transmit_packets_total", {{"interface", "eth0"}, {"priority", "3"}}, 1000);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DcqcnTable,
    ::testing::Values(
        Case{"healthy", nothing, flow, 90, true, {}},
        Case{"np_disabled_by_config",
             [](TestNode& n) {
               n.set("dcqcn_config", "fabricmon_dcqcn_np_enabled", {{"interface", "eth0"}, {"priority", "3"}}, 0);
             },
             flow, 3, true, {"dcqcn_misconfig/np_disabled/eth0/3"}},
        Case{"np_disabled_on_another_priority_is_fine",
             [](TestNode& n) {
               n.set("dcqcn_config", "fabricmon_dcqcn_np_enabled", {{"interface", "eth0"}, {"priority", "0"}}, 0);
             },
             flow, 3, true, {}},
        Case{"ecn_marks_without_cnps",
             nothing,
             [](TestNode& n) {
               n.add("hw_counters", "fabricmon_roce_ecn_marked_packets_total", {{"device", "mlx5_0"}, {"port", "1"}}, 3);
               n.add("hw_counters", "fabricmon_roce_cnp_handled_total", {{"device", "mlx5_0"}, {"port", "1"}}, 3);
             },
             62, true, {"dcqcn_misconfig/np_disabled/eth0/3"}},
        Case{"ecn_marks_without_cnps_needs_a_full_window",
             nothing,
             [](TestNode& n) {
               n.add("hw_counters", "fabricmon_roce_ecn_marked_packets_total", {{"device", "mlx5_0"}, {"port", "1"}}, 3);
               n.add("hw_counters", "fabricmon_roce_cnp_handled_total", {{"device", "mlx5_0"}, {"port", "1"}}, 3);
             },
             50, true, {}},
        Case{"rp_disabled_by_config",
             [](TestNode& n) {
               n.set("dcqcn_config", "fabricmon_dcqcn_rp_enabled", {{"interface", "eth0"}, {"priority", "3"}}, 0);
             },
             flow, 3, true, {"dcqcn_misconfig/rp_disabled/eth0/3"}},
        Case{"cnps_ignored_none_handled",
             nothing,
             [](TestNode& n) {
               n.add("hw_counters", "fabricmon_roce_cnp_ignored_total", {{"device", "mlx5_0"}, {"port", "1"}}, 4);
               n.add("hw_counters", "fabricmon_roce_ecn_marked_packets_total", {{"device", "mlx5_0"}, {"port", "1"}}, 3);
               n.add("hw_counters", "fabricmon_roce_cnp_sent_total", {{"device", "mlx5_0"}, {"port", "1"}}, 3);
             },
             62, true, {"dcqcn_misconfig/rp_disabled/eth0/3"}},
        // A full 60 s window, then held for 2 s (a storm's onset must not read as this).
        Case{"pfc_without_ecn", nothing, [](TestNode& n) { pauseWithoutEcn(0.02, n); }, 64, true,
             {"dcqcn_misconfig/pfc_without_ecn/eth0/3"}},
        Case{"pfc_without_ecn_just_below", nothing, [](TestNode& n) { pauseWithoutEcn(0.0095, n); }, 64, true, {}},
        Case{"pfc_without_ecn_is_ecn_business_only", nothing, [](TestNode& n) { pauseWithoutEcn(0.02, n); }, 62,
             false, {}},
        Case{"pfc_also_on_priority_4", [](TestNode& n) { pfcOn(n, 4, 1); }, flow, 3, true,
             {"dcqcn_misconfig/pfc_priority_mismatch/eth0/3"}},
        Case{"pfc_off_on_roce_priority", [](TestNode& n) { pfcOn(n, 3, 0); }, flow, 3, false,
             {"dcqcn_misconfig/pfc_priority_mismatch/eth0/3"}},
        Case{"roce_dscp_maps_elsewhere",
             [](TestNode& n) {
               n.set("dcb_config", "fabricmon_dcb_dscp_priority", {{"interface", "eth0"}, {"dscp", "26"}}, 0);
             },
             flow, 3, true, {"dcqcn_misconfig/pfc_priority_mismatch/eth0/3"}},
        Case{"pauses_on_priority_0",
             [](TestNode& n) {
               n.set("ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
                     {{"interface", "eth0"}, {"priority", "0"}, {"direction", "rx"}}, 5);
             },
             [](TestNode& n) {
               flowing(n);
               n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
                     {{"interface", "eth0"}, {"priority", "0"}, {"direction", "rx"}}, 0.001);
             },
             3, true, {"dcqcn_misconfig/pfc_priority_mismatch/eth0/0"}},
        Case{"trust_pcp", [](TestNode& n) { n.set("dcb_config", "fabricmon_dcb_trust_dscp", {{"interface", "eth0"}}, 0); },
             flow, 3, true, {"dcqcn_misconfig/trust_not_dscp/eth0"}},
        Case{"trust_pcp_is_a_pfc_check_too",
             [](TestNode& n) { n.set("dcb_config", "fabricmon_dcb_trust_dscp", {{"interface", "eth0"}}, 0); }, flow,
             3, false, {"dcqcn_misconfig/trust_not_dscp/eth0"}},
        Case{"cnp_priority_parameter",
             [](TestNode& n) {
               n.set("dcqcn_config", "fabricmon_dcqcn_parameter",
                     {{"interface", "eth0"}, {"role", "np"}, {"parameter", "cnp_802p_prio"}}, 3);
             },
             flow, 3, true, {"dcqcn_misconfig/cnp_priority_mismatch/eth0/6"}},
        Case{"cnp_dscp_maps_elsewhere",
             [](TestNode& n) {
               n.set("dcb_config", "fabricmon_dcb_dscp_priority", {{"interface", "eth0"}, {"dscp", "48"}}, 0);
             },
             flow, 3, true, {"dcqcn_misconfig/cnp_priority_mismatch/eth0/6"}},
        Case{"dcqcn_off_skips_np_rp",
             [](TestNode& n) {
               n.set("dcqcn_config", "fabricmon_dcqcn_np_enabled", {{"interface", "eth0"}, {"priority", "3"}}, 0);
               n.set("dcqcn_config", "fabricmon_dcqcn_rp_enabled", {{"interface", "eth0"}, {"priority", "3"}}, 0);
               n.set("dcqcn_config", "fabricmon_dcqcn_parameter",
                     {{"interface", "eth0"}, {"role", "np"}, {"parameter", "cnp_802p_prio"}}, 3);
             },
             flow, 3, false, {}},
        Case{"single_sample_is_not_judged",
             [](TestNode& n) {
               n.set("dcqcn_config", "fabricmon_dcqcn_np_enabled", {{"interface", "eth0"}, {"priority", "3"}}, 0);
             },
             flow, 1, true, {}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(DcqcnMisconfig, ManagementInterfaceIsNotJudged) {
  TestNode n;
  // An interface with DCB data but no RDMA port behind it (netdev.include).
  n.set("dcb_config", "fabricmon_dcb_trust_dscp", {{"interface", "eno1"}}, 0);
  n.set("dcb_config", "fabricmon_pfc_enabled", {{"interface", "eno1"}, {"priority", "3"}}, 0);
  for (int i = 0; i < 5; ++i) n.tick();
  EXPECT_TRUE(n.findings().empty());
}

TEST(DcqcnMisconfig, ClearsWhenFixed) {
  TestNode n;
  healthyRoce(n);
  n.set("dcb_config", "fabricmon_dcb_trust_dscp", {{"interface", "eth0"}}, 0);
  n.tick();
  n.tick();
  ASSERT_EQ(n.findings().size(), 1u);
  n.set("dcb_config", "fabricmon_dcb_trust_dscp", {{"interface", "eth0"}}, 1);
  n.tick();
  EXPECT_TRUE(n.findings().empty());
}

TEST(DcqcnMisconfig, UpstreamDebugfsParameterNames) {
  TestNode n;
  healthyRoce(n);
  n.drop("dcqcn_config", "parameter", "cnp_802p_prio");
  n.drop("dcqcn_config", "parameter", "cnp_dscp");
  n.set("dcqcn_config", "fabricmon_dcqcn_parameter", {{"interface", "eth0"}, {"role", "np"}, {"parameter", "np_cnp_dscp"}},
        46);
  n.tick();
  n.tick();
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"dcqcn_misconfig/cnp_priority_mismatch/eth0/6"});
}

}  // namespace
}  // namespace fabricmon::testing
