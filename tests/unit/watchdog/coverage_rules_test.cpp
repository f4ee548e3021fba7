// port_down, device_missing, pfc_protection_off, global_pause, lossless_class_shared and recurring
// findings (issue #14): each fault is flagged with its severity, each look-alike stays silent.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/watchdog/test_node.hpp"
#include "watchdog/rules/device_missing.hpp"
#include "watchdog/rules/lossless_class_shared.hpp"
#include "watchdog/rules/pfc_protection_off.hpp"
#include "watchdog/rules/port_down.hpp"

namespace fabricmon::testing {
namespace {

const Labels kPort{{"device", "mlx5_0"}, {"port", "1"}};
using Strings = std::vector<std::string>;

void portState(TestNode& n, double state, double phys) {
  n.set("rdma_port", "fabricmon_port_state", kPort, state);
  n.set("rdma_port", "fabricmon_port_physical_state", kPort, phys);
}

Strings rulesOnly(const std::vector<Finding>& findings, std::string_view rule) {
  Strings out;
  for (const auto& s : describe(findings)) {
    if (s.rfind(std::string(rule) + "/", 0) == 0) out.push_back(s);
  }
  return out;
}

/// Labels of the watchdog's samples of one family with value 1.
std::vector<Labels> samplesOf(TestNode& n, std::string_view family, double value = 1) {
  std::vector<Labels> out;
  for (const auto& s : n.watchdog().metricsBatch()->samples) {
    if (s.series->family->name == family && s.value == value) out.push_back(s.series->labels().copy());
  }
  return out;
}

/// Findings ever started, all rules (fabricmon_watchdog_transitions_total): a finding that started
/// and cleared between two looks still counts here.
double transitions(TestNode& n) {
  double total = 0;
  for (const auto& s : n.watchdog().metricsBatch()->samples) {
    if (s.series->family->name == "fabricmon_watchdog_transitions_total") total += s.value;
  }
  return total;
}

// ---- port_down ----

TEST(PortDown, ActivePortDownForTheHoldTimeIsCritical) {
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 5; ++i) n.tick();
  portState(n, 1, 2);  // DOWN, Polling: a pulled cable or a dead peer
  // Seen down at the next poll; 60 s after that it has been down for the hold time.
  for (int i = 0; i < 60; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty()) << "before the 60 s hold";
  n.tick();
  ASSERT_EQ(rulesOnly(n.findings(), "port_down"), Strings{"port_down//mlx5_0/1/eth0"});
  for (const auto& f : n.findings()) {
    if (f.rule == "port_down") {
      EXPECT_EQ(f.severity, Severity::kCritical);
    }
  }
  portState(n, 4, 5);
  n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty()) << "clears as soon as the port is ACTIVE again";
}

TEST(PortDown, HoldTimeIsConfigurable) {
  WatchdogConfig config;
  config.rules.get<PortDownRule>().hold = std::chrono::seconds(10);
  TestNode n(config);
  healthyRoce(n);
  for (int i = 0; i < 5; ++i) n.tick();
  portState(n, 1, 2);
  for (int i = 0; i < 10; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty());
  n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "port_down"), Strings{"port_down//mlx5_0/1/eth0"});
}

TEST(PortDown, ABriefDownIsNotAFinding) {
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 5; ++i) n.tick();
  portState(n, 1, 2);
  // Judged at every evaluation, not only at the end: a finding that started and cleared in between
  // is a failure too.
  for (int i = 0; i < 30; ++i) {
    n.tick();
    ASSERT_TRUE(rulesOnly(n.findings(), "port_down").empty()) << "after " << i + 1 << " s down";
  }
  portState(n, 4, 5);
  for (int i = 0; i < 60; ++i) {
    n.tick();
    ASSERT_TRUE(rulesOnly(n.findings(), "port_down").empty());
  }
  EXPECT_EQ(transitions(n), 0);
}

// The same brief down with no hold is a finding that starts and clears again before the end: what
// the test above would miss if it looked only at the end state.
TEST(PortDown, WithoutAHoldTheSameBriefDownIsAFindingThatCleared) {
  WatchdogConfig config;
  config.rules.get<PortDownRule>().hold = std::chrono::seconds(0);
  TestNode n(config);
  healthyRoce(n);
  for (int i = 0; i < 5; ++i) n.tick();
  portState(n, 1, 2);
  for (int i = 0; i < 30; ++i) n.tick();
  portState(n, 4, 5);
  for (int i = 0; i < 60; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty());
  EXPECT_GT(transitions(n), 0);
}

TEST(PortDown, PortNeverActiveSinceStartIsListedNotJudged) {
  TestNode n;
  healthyRoce(n);
  portState(n, 1, 2);  // never came up: an unused port
  for (int i = 0; i < 200; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty());
  const auto ignored = samplesOf(n, "fabricmon_watchdog_port_ignored_info");
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_EQ(ignored[0], (Labels{{"device", "mlx5_0"}, {"port", "1"}, {"why", "never_active"}}));
}

TEST(PortDown, PortTakenDownOnPurposeIsListedNotJudged) {
  TestNode n;
  healthyRoce(n);
  n.set("netdev_link", "fabricmon_netdev_admin_up", {{"interface", "eth0"}}, 1);
  for (int i = 0; i < 5; ++i) n.tick();
  // ip link set eth0 down: no IFF_UP, and the RoCE driver reports DOWN, Disabled.
  n.set("netdev_link", "fabricmon_netdev_admin_up", {{"interface", "eth0"}}, 0);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  portState(n, 1, 3);
  for (int i = 0; i < 200; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty());
  const auto ignored = samplesOf(n, "fabricmon_watchdog_port_ignored_info");
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_EQ(ignored[0].back(), (std::pair<std::string, std::string>{"why", "disabled"}));
}

// A RoCE driver has no physical state of its own: it reports DOWN, Disabled whenever the netdev
// has no carrier (mlx5_query_port_roce, bnxt_re_query_port, irdma_query_port). With the interface
// still administratively up, that is a lost link (a pulled cable, a dead optic or peer), not a port
// taken down on purpose.
TEST(PortDown, ARoceLinkLostWithItsInterfaceUpIsCriticalThoughDisabled) {
  TestNode n;
  healthyRoce(n);
  n.set("netdev_link", "fabricmon_netdev_admin_up", {{"interface", "eth0"}}, 1);
  for (int i = 0; i < 5; ++i) n.tick();
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  portState(n, 1, 3);
  for (int i = 0; i < 60; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty()) << "before the 60 s hold";
  n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "port_down"), Strings{"port_down//mlx5_0/1/eth0"});
  EXPECT_TRUE(samplesOf(n, "fabricmon_watchdog_port_ignored_info").empty());
  // Then someone takes the interface down: on purpose now, and the finding clears.
  n.set("netdev_link", "fabricmon_netdev_admin_up", {{"interface", "eth0"}}, 0);
  n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty());
}

// InfiniBand keeps Polling while a port tries to train: Disabled there is ibportstate's, whatever
// IPoIB's interface says (it stays up when the port is disabled).
TEST(PortDown, AnInfinibandPortDisabledIsOnPurposeWhateverItsInterface) {
  TestNode n;
  n.set("rdma_port", "fabricmon_port_info",
        {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "ib0"}, {"link_layer", "InfiniBand"}, {"rate", "400"}}, 1);
  portState(n, 4, 5);
  n.set("netdev_link", "fabricmon_netdev_admin_up", {{"interface", "ib0"}}, 1);
  for (int i = 0; i < 5; ++i) n.tick();
  portState(n, 1, 3);
  for (int i = 0; i < 200; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty());
  portState(n, 1, 2);  // Polling: lost
  for (int i = 0; i < 62; ++i) n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "port_down"), Strings{"port_down//mlx5_0/1/ib0"});
}

TEST(PortDown, ExpectedPortDownFromStartIsCritical) {
  WatchdogConfig config;
  config.rules.get<PortDownRule>().expectedPorts = {"mlx5_0/1"};
  TestNode n(config);
  healthyRoce(n);
  portState(n, 1, 2);
  for (int i = 0; i < 62; ++i) n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "port_down"), Strings{"port_down//mlx5_0/1/eth0"});
}

TEST(PortDown, ExcludedPortIsNeverJudged) {
  WatchdogConfig config;
  config.rules.get<PortDownRule>().exclude = {"mlx5_0/.*"};
  TestNode n(config);
  healthyRoce(n);
  for (int i = 0; i < 5; ++i) n.tick();
  portState(n, 1, 2);
  for (int i = 0; i < 100; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "port_down").empty());
  const auto ignored = samplesOf(n, "fabricmon_watchdog_port_ignored_info");
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_EQ(ignored[0].back().second, "excluded");
}

// ---- device_missing ----

void removeDevice(TestNode& n, const std::string& dev) {
  for (const char* c : {"rdma_port", "hw_counters", "pma_counters"}) n.drop(c, "device", dev);
}

TEST(DeviceMissing, DeviceGoneLongerThanGraceIsCritical) {
  TestNode n;
  healthyRoce(n);
  healthyRoce(n, "mlx5_1", "eth1");
  for (int i = 0; i < 5; ++i) n.tick();
  removeDevice(n, "mlx5_1");
  for (int i = 0; i < 59; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "device_missing").empty()) << "inside the 60 s grace";
  n.tick();
  ASSERT_EQ(rulesOnly(n.findings(), "device_missing"), Strings{"device_missing/vanished/mlx5_1"});
  EXPECT_EQ(n.findings()[0].severity, Severity::kCritical);
  healthyRoce(n, "mlx5_1", "eth1");
  n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "device_missing").empty()) << "clears when it is back";
}

TEST(DeviceMissing, DriverReloadWithinGraceRaisesNothingAndCountsNoFlap) {
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 5; ++i) n.tick();
  // Judged at every evaluation: a finding that started and cleared in between is a failure too.
  auto tickQuietly = [&](int ticks) {
    for (int i = 0; i < ticks; ++i) {
      n.tick();
      ASSERT_TRUE(n.findings().empty()) << describe(n.findings())[0];
    }
  };
  for (int reload = 0; reload < 3; ++reload) {
    removeDevice(n, "mlx5_0");
    tickQuietly(8);
    healthyRoce(n);  // back, with its counters started again
    n.set("pma_counters", "fabricmon_port_link_downed_total", kPort, 0);
    tickQuietly(20);
  }
  EXPECT_EQ(transitions(n), 0);
}

// The same reloads with no grace are findings that start and clear again before the end.
TEST(DeviceMissing, WithoutAGraceTheSameReloadsAreFindingsThatCleared) {
  WatchdogConfig config;
  config.rules.get<DeviceMissingRule>().grace = std::chrono::seconds(0);
  TestNode n(config);
  healthyRoce(n);
  for (int i = 0; i < 5; ++i) n.tick();
  removeDevice(n, "mlx5_0");
  for (int i = 0; i < 8; ++i) n.tick();
  healthyRoce(n);
  n.set("pma_counters", "fabricmon_port_link_downed_total", kPort, 0);
  for (int i = 0; i < 20; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "device_missing").empty());
  EXPECT_GT(transitions(n), 0);
}

TEST(DeviceMissing, ExpectedDeviceNeverSeenIsCritical) {
  WatchdogConfig config;
  config.rules.get<DeviceMissingRule>().expectedDevices = {"mlx5_0", "mlx5_7"};
  TestNode n(config);
  healthyRoce(n);
  for (int i = 0; i < 59; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "device_missing").empty());
  for (int i = 0; i < 2; ++i) n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "device_missing"), Strings{"device_missing/never_seen/mlx5_7"});
}

TEST(DeviceMissing, FewerDevicesOrPortsThanExpected) {
  WatchdogConfig config;
  config.rules.get<DeviceMissingRule>().expectedDeviceCount = 2;
  config.rules.get<DeviceMissingRule>().expectedPortCount = 1;
  TestNode n(config);
  healthyRoce(n);
  for (int i = 0; i < 62; ++i) n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "device_missing"), Strings{"device_missing/too_few_devices"});
  healthyRoce(n, "mlx5_1", "eth1");
  n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "device_missing").empty());
}

TEST(DeviceMissing, PortVanishingFromAPresentDevice) {
  TestNode n;
  healthyRoce(n);
  n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "2"}}, 4);
  for (int i = 0; i < 5; ++i) n.tick();
  n.drop("rdma_port", "port", "2");
  for (int i = 0; i < 61; ++i) n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "device_missing"), Strings{"device_missing/port_vanished/mlx5_0/2"});
}

// ---- pfc_protection_off ----

TEST(PfcProtectionOff, StormPreventionOffWithPfcOn) {
  TestNode n;
  healthyRoce(n);
  n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", {{"interface", "eth0"}}, 0);
  for (int i = 0; i < 3; ++i) n.tick();
  ASSERT_EQ(rulesOnly(n.findings(), "pfc_protection_off"), Strings{"pfc_protection_off/timeout_off/eth0"});
  EXPECT_EQ(n.findings()[0].severity, Severity::kWarning);
  n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", {{"interface", "eth0"}}, 0.1);
  n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "pfc_protection_off").empty());
}

TEST(PfcProtectionOff, NoPfcNoFinding) {
  TestNode n;
  healthyRoce(n);
  n.set("dcb_config", "fabricmon_pfc_enabled", {{"interface", "eth0"}, {"priority", "3"}}, 0);
  n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", {{"interface", "eth0"}}, 0);
  for (int i = 0; i < 5; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "pfc_protection_off").empty());
}

TEST(PfcProtectionOff, UnsupportedOnlyWhenRequired) {
  TestNode quiet;
  healthyRoce(quiet);
  for (int i = 0; i < 5; ++i) quiet.tick();
  EXPECT_TRUE(rulesOnly(quiet.findings(), "pfc_protection_off").empty());
  WatchdogConfig config;
  config.rules.get<PfcProtectionOffRule>().requireSupport = true;
  TestNode n(config);
  healthyRoce(n);
  for (int i = 0; i < 5; ++i) n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "pfc_protection_off"), Strings{"pfc_protection_off/unsupported/eth0"});
}

// ---- global_pause ----

TEST(GlobalPause, FramesOnAPfcPort) {
  TestNode n;
  healthyRoce(n);
  const Labels iface{{"interface", "eth0"}};
  n.set("ethtool_pfc", "fabricmon_global_pause_frames_received_total", iface, 0);
  for (int i = 0; i < 10; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "global_pause").empty()) << "flat counters";
  n.add("ethtool_pfc", "fabricmon_global_pause_frames_received_total", iface, 20);
  n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "global_pause"), Strings{"global_pause//eth0"});
  for (int i = 0; i < 59; ++i) n.tick();
  EXPECT_FALSE(rulesOnly(n.findings(), "global_pause").empty()) << "held for the window";
  for (int i = 0; i < 2; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "global_pause").empty()) << "a quiet window clears it";
}

TEST(GlobalPause, NotJudgedWithoutPfc) {
  TestNode n;
  healthyRoce(n);
  n.set("dcb_config", "fabricmon_pfc_enabled", {{"interface", "eth0"}, {"priority", "3"}}, 0);
  const Labels iface{{"interface", "eth0"}};
  n.set("ethtool_pfc", "fabricmon_global_pause_frames_transmitted_total", iface, 0);
  for (int i = 0; i < 5; ++i) {
    n.add("ethtool_pfc", "fabricmon_global_pause_frames_transmitted_total", iface, 20);
    n.tick();
  }
  EXPECT_TRUE(rulesOnly(n.findings(), "global_pause").empty());
}

TEST(GlobalPause, SlowCounterRefreshIsJudgedOnTheWindow) {
  // A NIC that refreshes every 2 s polled every 250 ms: the increases come in lumps, the verdict
  // holds between them.
  TestNode n;
  healthyRoce(n);
  const Labels iface{{"interface", "eth0"}};
  n.set("ethtool_pfc", "fabricmon_global_pause_frames_received_total", iface, 0);
  for (int i = 0; i < 40; ++i) n.tick(0.25);
  bool alwaysActive = true;
  for (int i = 0; i < 80; ++i) {
    if (i % 8 == 0) n.add("ethtool_pfc", "fabricmon_global_pause_frames_received_total", iface, 100);
    n.tick(0.25);
    if (i > 0 && rulesOnly(n.findings(), "global_pause").empty()) alwaysActive = false;
  }
  EXPECT_TRUE(alwaysActive);
}

// ---- lossless_class_shared ----

void bytes(TestNode& n, double prioPerPoll, double rdmaPerPoll) {
  for (const char* dir : {"rx", "tx"}) {
    n.add("ethtool_pfc",
          std::string(dir) == "rx" ? "fabricmon_priority_receive_bytes_total" : "fabricmon_priority_transmit_bytes_total",
          {{"interface", "eth0"}, {"priority", "3"}}, prioPerPoll);
    n.add("ethtool_pfc", "fabricmon_rdma_vport_bytes_total", {{"interface", "eth0"}, {"direction", dir}}, rdmaPerPoll);
  }
}

struct ShareCase {
  const char* name;
  double prio, rdma;
  bool fires;
};

class LosslessShareTable : public ::testing::TestWithParam<ShareCase> {};

TEST_P(LosslessShareTable, NonRdmaShare) {
  const auto& c = GetParam();
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 70; ++i) {
    bytes(n, c.prio, c.rdma);
    n.tick();
  }
  EXPECT_EQ(rulesOnly(n.findings(), "lossless_class_shared"),
            c.fires ? Strings{"lossless_class_shared/non_rdma_bytes/eth0/3"} : Strings{})
      << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LosslessShareTable,
    ::testing::Values(ShareCase{"a_quarter_is_tcp", 40e9, 30e9, true},
                      ShareCase{"all_rdma", 40e9, 40e9, false},
                      // CNPs ride on another priority but count as RDMA vport bytes: never a negative share.
                      ShareCase{"rdma_exceeds_priority_bytes", 40e9, 40.1e9, false},
                      ShareCase{"header_accounting_differences", 40e9, 39e9, false},
                      ShareCase{"idle_priority", 5e5, 0, false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LosslessClassShared, NicRefreshingEveryTwoSecondsIsJudgedTheSame) {
  // Polled every 250 ms, the NIC latches both counters together every 2 s: the window holds whole
  // lumps of both, so the share neither aliases nor flickers.
  for (double tcpShare : {0.25, 0.02}) {
    TestNode n;
    healthyRoce(n);
    bool everFired = false, everSilent = false;
    for (int i = 0; i < 400; ++i) {
      if (i % 8 == 0) bytes(n, 80e9, 80e9 * (1 - tcpShare));
      n.tick(0.25);
      if (i < 280) continue;  // a full 60 s window first
      (rulesOnly(n.findings(), "lossless_class_shared").empty() ? everSilent : everFired) = true;
    }
    EXPECT_EQ(everFired, tcpShare > 0.1) << tcpShare;
    EXPECT_EQ(everSilent, tcpShare < 0.1) << tcpShare;
  }
}

TEST(LosslessClassShared, DscpZeroOnTheLosslessPriority) {
  TestNode n;
  healthyRoce(n);
  n.set("dcb_config", "fabricmon_dcb_dscp_priority", {{"interface", "eth0"}, {"dscp", "0"}}, 3);
  for (int i = 0; i < 3; ++i) n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "lossless_class_shared"), Strings{"lossless_class_shared/dscp_map/eth0/3"});
}

TEST(LosslessClassShared, TheDefaultMapsNeighboursAreAllowed) {
  TestNode n;
  healthyRoce(n);
  // mlx5's default trust-dscp map puts DSCP 24-31 on priority 3 (dscp >> 3).
  for (int d = 24; d < 32; ++d) {
    n.set("dcb_config", "fabricmon_dcb_dscp_priority", {{"interface", "eth0"}, {"dscp", std::to_string(d)}}, 3);
  }
  for (int i = 0; i < 3; ++i) n.tick();
  EXPECT_TRUE(rulesOnly(n.findings(), "lossless_class_shared").empty());
}

TEST(LosslessClassShared, AllowedDscpsAreConfigurable) {
  WatchdogConfig config;
  config.rules.get<LosslessClassSharedRule>().allowedDscps = std::vector<unsigned>{};
  TestNode n(config);
  healthyRoce(n);
  n.set("dcb_config", "fabricmon_dcb_dscp_priority", {{"interface", "eth0"}, {"dscp", "27"}}, 3);
  for (int i = 0; i < 3; ++i) n.tick();
  EXPECT_EQ(rulesOnly(n.findings(), "lossless_class_shared"), Strings{"lossless_class_shared/dscp_map/eth0/3"});
}

// ---- recurrence ----

TEST(Recurrence, ThirdStartWithinTheWindowIsMarkedRecurring) {
  TestNode n;
  healthyRoce(n);
  const Labels iface{{"interface", "eth0"}};
  auto cycle = [&] {
    n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", iface, 0);
    n.tick();
    n.tick();
    n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", iface, 0.1);
    n.tick(600);
  };
  n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", iface, 0.1);
  n.tick();
  cycle();
  cycle();
  EXPECT_TRUE(samplesOf(n, "fabricmon_watchdog_recurring").empty()) << "two starts";
  n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", iface, 0);
  n.tick();
  ASSERT_EQ(n.findings().size(), 1u);
  EXPECT_EQ(labelOf(n.findings()[0], "recurring"), "true");
  EXPECT_NE(n.findings()[0].summary.find("recurring"), std::string::npos);
  EXPECT_EQ(samplesOf(n, "fabricmon_watchdog_recurring").size(), 1u);
}

TEST(Recurrence, StartsSpreadOverMoreThanTheWindowAreNot) {
  TestNode n;
  healthyRoce(n);
  const Labels iface{{"interface", "eth0"}};
  n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", iface, 0.1);
  n.tick();
  for (int start = 0; start < 4; ++start) {
    n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", iface, 0);
    n.tick();
    n.tick();
    EXPECT_EQ(labelOf(n.findings()[0], "recurring"), "") << "start " << start;
    n.set("dcb_config", "fabricmon_pfc_storm_prevention_timeout_seconds", iface, 0.1);
    n.tick(1900);  // three starts take more than an hour
  }
  EXPECT_EQ(samplesOf(n, "fabricmon_watchdog_recurring", 1).size(), 0u);
}

}  // namespace
}  // namespace fabricmon::testing
