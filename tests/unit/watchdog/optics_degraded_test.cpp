// optics_degraded (watchdog/rules/optics_degraded.cpp) over hand-set transceiver series, one
// reading per 60 s tick as the transceiver collector publishes them: each reason fires on its
// condition with the worst lane named, and the look-alikes stay silent.
#include "watchdog/rules/optics_degraded.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "tests/support/temp_dir.hpp"
#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

double dbm(double d) { return 1e-3 * std::pow(10.0, d / 10.0); }

/// A QSFP28-style module in eth0's cage: 4 lanes, Rx/Tx thresholds +5/+3/-10/-13 dBm.
void module(TestNode& n, const std::string& iface = "eth0",
            std::vector<double> rxDbm = {-2, -2, -2, -2}) {
  auto lv = [&](const char* fam, const std::string& level, double v) {
    n.set("transceiver", fam, {{"interface", iface}, {"level", level}}, v);
  };
  for (const auto& [fam, t] : std::vector<std::pair<const char*, std::array<double, 4>>>{
           {"fabricmon_transceiver_rx_power_threshold_watts", {dbm(5), dbm(3), dbm(-10), dbm(-13)}},
           {"fabricmon_transceiver_tx_power_threshold_watts", {dbm(5), dbm(3), dbm(-6), dbm(-10)}},
           {"fabricmon_transceiver_tx_bias_threshold_amperes", {0.013, 0.012, 0.002, 0.001}},
           {"fabricmon_transceiver_temperature_threshold_celsius", {75, 70, 0, -5}}}) {
    lv(fam, "high_alarm", t[0]);
    lv(fam, "high_warning", t[1]);
    lv(fam, "low_warning", t[2]);
    lv(fam, "low_alarm", t[3]);
  }
  n.set("transceiver", "fabricmon_transceiver_temperature_celsius", {{"interface", iface}}, 45);
  for (int lane = 1; lane <= 4; ++lane) {
    const Labels l{{"interface", iface}, {"lane", std::to_string(lane)}};
    n.set("transceiver", "fabricmon_transceiver_rx_power_watts", l, dbm(rxDbm[lane - 1]));
    n.set("transceiver", "fabricmon_transceiver_tx_power_watts", l, dbm(-1));
    n.set("transceiver", "fabricmon_transceiver_tx_bias_amperes", l, 0.0065);
    for (const char* q : {"tx_power", "rx_power", "tx_bias"}) {
      for (const char* level : {"high_alarm", "low_alarm", "high_warning", "low_warning"}) {
        n.set("transceiver", "fabricmon_transceiver_flag",
              {{"interface", iface},
               {"quantity", q},
               {"level", level},
               {"lane", std::to_string(lane)}},
              0);
      }
    }
  }
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", iface}}, 1);
}

void setRx(TestNode& n, int lane, double d, const std::string& iface = "eth0") {
  n.set("transceiver", "fabricmon_transceiver_rx_power_watts",
        {{"interface", iface}, {"lane", std::to_string(lane)}}, dbm(d));
}

std::vector<std::string> run(TestNode& n, int readings) {
  for (int i = 0; i < readings; ++i) n.tick(60);
  return describe(n.findings());
}

const Finding* finding(const std::vector<Finding>& fs, std::string_view reason) {
  for (const Finding& f : fs) {
    if (f.rule == "optics_degraded" && labelOf(f, "reason") == reason) return &f;
  }
  return nullptr;
}

TEST(OpticsDegraded, HealthyModuleNearButAboveItsThresholdIsSilent) {
  TestNode n;
  module(n, "eth0", {-9.6, -9.8, -9.7, -9.9});  // within 0.4 dB of the -10 dBm low warning
  EXPECT_TRUE(run(n, 10).empty());
}

TEST(OpticsDegraded, RxPowerAtTheLowWarningFiresAfterTwoReadingsNamingTheWorstLane) {
  TestNode n;
  module(n);
  run(n, 3);
  setRx(n, 3, -10.5);
  setRx(n, 2, -10.1);
  n.tick(60);
  EXPECT_TRUE(n.findings().empty()) << "one reading is not enough (for_readings 2)";
  n.tick(60);
  const auto fs = n.findings();
  ASSERT_EQ(describe(fs), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});
  EXPECT_EQ(fs[0].severity, Severity::kWarning);
  EXPECT_NE(fs[0].summary.find("lane 3"), std::string::npos) << fs[0].summary;
  EXPECT_NE(fs[0].summary.find("-10.50 dBm"), std::string::npos) << fs[0].summary;
  // Below the low alarm: the module latches its alarm flag, the critical finding.
  setRx(n, 3, -14);
  n.set("transceiver", "fabricmon_transceiver_flag",
        {{"interface", "eth0"}, {"quantity", "rx_power"}, {"level", "low_alarm"}, {"lane", "3"}},
        1);
  run(n, 1);
  ASSERT_NE(finding(n.findings(), "alarm_flag"), nullptr);
  EXPECT_EQ(finding(n.findings(), "alarm_flag")->severity, Severity::kCritical);
  n.set("transceiver", "fabricmon_transceiver_flag",
        {{"interface", "eth0"}, {"quantity", "rx_power"}, {"level", "low_alarm"}, {"lane", "3"}},
        0);
  // Back up, above the hysteresis: clears after clear_after (5 min).
  setRx(n, 3, -3);
  setRx(n, 2, -3);
  run(n, 4);
  EXPECT_NE(finding(n.findings(), "rx_power_low"), nullptr);
  run(n, 3);
  EXPECT_EQ(finding(n.findings(), "rx_power_low"), nullptr);
}

TEST(OpticsDegraded, AFindingHoldsThroughALinkFlap) {
  TestNode n;
  module(n, "eth0", {-12, -3, -3, -3});
  ASSERT_EQ(run(n, 3), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});
  const auto since = n.findings().at(0).since;
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  setRx(n, 1, -40);  // no light while down
  run(n, 2);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 1);
  setRx(n, 1, -12);
  run(n, 1);
  ASSERT_EQ(describe(n.findings()), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});
  EXPECT_EQ(n.findings().at(0).since, since) << "the same finding, not a new one after the flap";
}

// A module whose EEPROM stops answering for a while (a flaky I2C bus; the collector backs off) has
// unknown values, not none: its finding holds, neither cleared as vanished nor started again.
TEST(OpticsDegraded, AFindingHoldsWhileTheModuleCannotBeRead) {
  TestNode n;
  module(n, "eth0", {-12, -3, -3, -3});
  ASSERT_EQ(run(n, 3), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});
  const auto since = n.findings().at(0).since;
  n.setUnread("transceiver", "interface", "eth0");
  run(n, 8);  // longer than clear_after (5 min)
  ASSERT_EQ(describe(n.findings()), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});
  EXPECT_EQ(n.findings().at(0).since, since);
  n.setUnread("transceiver", "interface", "eth0", false);
  run(n, 1);
  ASSERT_EQ(describe(n.findings()), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});
  EXPECT_EQ(n.findings().at(0).since, since) << "the same finding, not a new one";
}

TEST(OpticsDegraded, MarginFiresAboveTheThreshold) {
  WatchdogConfig config;
  config.rules.get<OpticsDegradedRule>().powerMarginDb = 1.0;
  TestNode n(config);
  module(n, "eth0", {-9.5, -3, -3, -3});
  EXPECT_EQ(run(n, 3), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});
}

TEST(OpticsDegraded, TemperatureBiasAndAlarmFlags) {
  TestNode n;
  module(n);
  run(n, 2);
  n.set("transceiver", "fabricmon_transceiver_temperature_celsius", {{"interface", "eth0"}}, 71);
  n.set("transceiver", "fabricmon_transceiver_tx_bias_amperes",
        {{"interface", "eth0"}, {"lane", "2"}}, 0.0125);
  n.set("transceiver", "fabricmon_transceiver_flag",
        {{"interface", "eth0"}, {"quantity", "tx_power"}, {"level", "low_alarm"}, {"lane", "4"}},
        1);
  n.tick(60);
  const auto findings = n.findings();  // `flag` points into it: a temporary would be gone
  const Finding* flag = finding(findings, "alarm_flag");
  ASSERT_NE(flag, nullptr) << "an alarm flag fires at its first reading";
  EXPECT_EQ(flag->severity, Severity::kCritical);
  EXPECT_NE(flag->summary.find("tx_power low alarm on lane 4"), std::string::npos) << flag->summary;
  n.tick(60);
  const auto later = n.findings();
  const Finding* temp = finding(later, "temperature");
  ASSERT_NE(temp, nullptr);
  EXPECT_EQ(temp->severity, Severity::kWarning);
  const Finding* bias = finding(later, "tx_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_NE(bias->summary.find("lane 2"), std::string::npos) << bias->summary;
}

TEST(OpticsDegraded, ModuleWithoutDomAndDownLinksAreSilent) {
  TestNode n;
  // A passive copper cable: only its info series, nothing to judge.
  n.set("transceiver", "fabricmon_transceiver_info", {{"interface", "eth1"}, {"dom", "false"}}, 1);
  // A module whose link is down: no light expected.
  module(n, "eth2", {-40, -40, -40, -40});
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth2"}}, 0);
  // Thresholds unsupported (none exported): values alone are not judged.
  n.set("transceiver", "fabricmon_transceiver_rx_power_watts",
        {{"interface", "eth3"}, {"lane", "1"}}, 0.0);
  EXPECT_TRUE(run(n, 5).empty());
}

void setFlag(TestNode& n, const std::string& iface, const char* quantity, const char* level,
             const std::string& lane, double v) {
  n.set("transceiver", "fabricmon_transceiver_flag",
        {{"interface", iface}, {"quantity", quantity}, {"level", level}, {"lane", lane}}, v);
}

// A dark port's module latches its light alarms at every read (no light in; with the laser off, no
// light out and no bias): that is port_down's news, not a critical optics finding. Its other flags
// still count.
TEST(OpticsDegraded, ADarkPortsLightAlarmsAreNotJudgedButItsOtherFlagsAre) {
  TestNode n;
  module(n, "eth2", {-40, -40, -40, -40});
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth2"}}, 0);
  for (int lane = 1; lane <= 4; ++lane) {
    for (const char* q : {"rx_power", "tx_power", "tx_bias"}) {
      setFlag(n, "eth2", q, "low_alarm", std::to_string(lane), 1);
      setFlag(n, "eth2", q, "low_warning", std::to_string(lane), 1);
    }
  }
  setFlag(n, "eth2", "temperature", "high_alarm", "", 0);
  EXPECT_TRUE(run(n, 5).empty());
  setFlag(n, "eth2", "temperature", "high_alarm", "", 1);
  run(n, 1);
  const auto findings = n.findings();
  const Finding* flag = finding(findings, "alarm_flag");
  ASSERT_NE(flag, nullptr) << "a temperature alarm is news whatever the link";
  EXPECT_NE(flag->summary.find("temperature high alarm"), std::string::npos) << flag->summary;
  // It clears while the link is still down: the light flags hold only a finding they raised.
  setFlag(n, "eth2", "temperature", "high_alarm", "", 0);
  run(n, 6);
  EXPECT_TRUE(n.findings().empty()) << "cleared after clear_after, the port still dark";
  setFlag(n, "eth2", "temperature", "high_alarm", "", 1);
  run(n, 1);
  ASSERT_NE(finding(n.findings(), "alarm_flag"), nullptr);
  // The same port up with its light back, the light flags read clear: only the temperature is left.
  setFlag(n, "eth2", "temperature", "high_alarm", "", 0);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth2"}}, 1);
  for (int lane = 1; lane <= 4; ++lane) {
    setRx(n, lane, -2, "eth2");
    for (const char* q : {"rx_power", "tx_power", "tx_bias"}) {
      setFlag(n, "eth2", q, "low_alarm", std::to_string(lane), 0);
      setFlag(n, "eth2", q, "low_warning", std::to_string(lane), 0);
    }
  }
  run(n, 6);
  EXPECT_TRUE(n.findings().empty()) << "cleared after clear_after";
}

// An Rx power alarm that came before the link dropped: the finding holds while the port is dark
// (its light alarms unjudged, as the power values are), neither cleared nor raised again, and is
// judged again once the link is back.
TEST(OpticsDegraded, AnAlarmFlagFindingHoldsWhileTheLinkIsDown) {
  TestNode n;
  module(n);
  setFlag(n, "eth0", "temperature", "high_alarm", "", 0);  // judged while down, and clear
  run(n, 2);
  setRx(n, 1, -14);
  setFlag(n, "eth0", "rx_power", "low_alarm", "1", 1);
  run(n, 1);
  const auto before = n.findings();
  const Finding* flag = finding(before, "alarm_flag");
  ASSERT_NE(flag, nullptr);
  const auto since = flag->since;
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  setRx(n, 1, -40);
  run(n, 10);  // well past clear_after: held, not cleared
  const auto held = n.findings();
  ASSERT_NE(finding(held, "alarm_flag"), nullptr);
  EXPECT_EQ(finding(held, "alarm_flag")->since, since);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 1);
  setRx(n, 1, -2);
  setFlag(n, "eth0", "rx_power", "low_alarm", "1", 0);
  run(n, 4);
  EXPECT_NE(finding(n.findings(), "alarm_flag"), nullptr) << "clear_after runs from the link's return";
  run(n, 3);
  EXPECT_EQ(finding(n.findings(), "alarm_flag"), nullptr);
}

// SFF-8636 and CMIS flags latch until read: the first reading after the link came back holds the
// Rx alarm the dark time latched, and the reading after it shows what is true now. Neither a port
// that was down for a while nor a flap shorter than a poll (seen only in the carrier-down count)
// pages for it; an alarm that is still set at the next reading does.
TEST(OpticsDegraded, TheFirstReadingAfterADarkTimeDoesNotJudgeItsLightFlags) {
  TestNode n;
  module(n);
  const Labels carrier{{"interface", "eth0"}};
  n.set("netdev_link", "fabricmon_netdev_carrier_down_changes_total", carrier, 3);
  run(n, 2);
  // Down for two readings (a peer reboot), then up: the reading at the return has the latch.
  n.set("netdev_link", "fabricmon_netdev_up", carrier, 0);
  n.set("netdev_link", "fabricmon_netdev_carrier_down_changes_total", carrier, 4);
  setFlag(n, "eth0", "rx_power", "low_alarm", "2", 1);
  run(n, 2);
  n.set("netdev_link", "fabricmon_netdev_up", carrier, 1);
  EXPECT_TRUE(run(n, 1).empty()) << "the latch of the dark time";
  setFlag(n, "eth0", "rx_power", "low_alarm", "2", 0);  // read: cleared
  EXPECT_TRUE(run(n, 3).empty());
  // A flap between two polls: only the carrier-down count moved.
  n.set("netdev_link", "fabricmon_netdev_carrier_down_changes_total", carrier, 5);
  setFlag(n, "eth0", "rx_power", "low_alarm", "2", 1);
  EXPECT_TRUE(run(n, 1).empty()) << "the latch of a flap";
  // Still set at the next reading, with light on the lane: the module means it.
  const auto now = run(n, 1);
  ASSERT_NE(finding(n.findings(), "alarm_flag"), nullptr) << ::testing::PrintToString(now);
  EXPECT_EQ(finding(n.findings(), "alarm_flag")->severity, Severity::kCritical);
}

// Which reading covers the dark time goes by sample times, not by the order batches arrive in: a
// module read while the port was still dark (a slow I2C read, published after the link was seen up
// again) is followed by a reading that still holds what latched before the light came back.
TEST(OpticsDegraded, AReadingTakenInTheDarkAndPublishedAfterTheLinkIsUpIsNotTheLastStaleOne) {
  TestNode n;
  module(n);
  const Labels eth0{{"interface", "eth0"}};
  run(n, 2);
  n.set("netdev_link", "fabricmon_netdev_up", eth0, 0);
  run(n, 2);
  setFlag(n, "eth0", "rx_power", "low_alarm", "2", 1);
  n.set("netdev_link", "fabricmon_netdev_up", eth0, 1);
  n.tickOne(1, "netdev_link");              // the link is seen up at T
  n.tickOne(1, "transceiver", 1.5);         // a module read that began at T - 0.5 s, in the dark
  EXPECT_TRUE(describe(n.findings()).empty());
  n.tick(60);  // the next reading: it still holds what latched until T
  EXPECT_TRUE(describe(n.findings()).empty()) << "latched before the light came back";
  setFlag(n, "eth0", "rx_power", "low_alarm", "2", 0);
  EXPECT_TRUE(run(n, 3).empty());
}

// A module swapped in while the port is down: its first reading holds the power-up alarms it
// latched in the dark, whatever the interface's history of optics.
TEST(OpticsDegraded, ANewModulesFirstReadingAfterTheSwapIsNotJudgedForLight) {
  TestNode n;
  module(n);
  const Labels eth0{{"interface", "eth0"}};
  run(n, 2);
  n.set("netdev_link", "fabricmon_netdev_up", eth0, 0);
  n.drop("transceiver", "interface", "eth0");  // the old module is pulled
  run(n, 3);
  module(n);  // the new one, and the link with it
  for (int lane = 1; lane <= 4; ++lane) setFlag(n, "eth0", "rx_power", "low_alarm", std::to_string(lane), 1);
  EXPECT_TRUE(run(n, 1).empty()) << "power-up latches";
  for (int lane = 1; lane <= 4; ++lane) setFlag(n, "eth0", "rx_power", "low_alarm", std::to_string(lane), 0);
  EXPECT_TRUE(run(n, 3).empty());
}

// A twin-port OSFP's other port, or the legs of a breakout, share this interface's module: all its
// lanes show, and the ones this link does not use are dark — no light in, the laser off. With the
// link up they are not this link's lanes: neither their power, nor their bias, nor the low alarms
// they latch at every read are findings. The lanes in use are judged as ever.
TEST(OpticsDegraded, LanesTheLinkDoesNotUseAreNotJudged) {
  TestNode n;
  module(n);
  for (int lane = 5; lane <= 8; ++lane) {
    const Labels l{{"interface", "eth0"}, {"lane", std::to_string(lane)}};
    n.set("transceiver", "fabricmon_transceiver_rx_power_watts", l, 0.0);
    n.set("transceiver", "fabricmon_transceiver_tx_power_watts", l, 1e-7);
    n.set("transceiver", "fabricmon_transceiver_tx_bias_amperes", l, 0.0);
    for (const char* q : {"tx_power", "rx_power", "tx_bias"}) setFlag(n, "eth0", q, "low_alarm", std::to_string(lane), 1);
  }
  EXPECT_TRUE(run(n, 5).empty());
  setRx(n, 2, -10.5);
  setFlag(n, "eth0", "tx_bias", "low_alarm", "3", 1);
  const auto fs = (run(n, 2), n.findings());
  EXPECT_EQ(describe(fs),
            (std::vector<std::string>{"optics_degraded/alarm_flag/eth0", "optics_degraded/rx_power_low/eth0"}));
  ASSERT_NE(finding(fs, "alarm_flag"), nullptr);
  EXPECT_NE(finding(fs, "alarm_flag")->summary.find("lane 3"), std::string::npos) << finding(fs, "alarm_flag")->summary;
}

// A module without a Tx power monitor (SFF-8636 byte 220 bit 2, CMIS page 01h byte 160 bit 1
// clear): a lane whose laser is off is told by its bias of 0 with no light coming in either. A used
// lane whose laser died still receives the far end's light, and is judged.
TEST(OpticsDegraded, UnusedLanesOfAModuleWithoutATxPowerMonitorAreNotJudged) {
  TestNode n;
  module(n, "eth0", {-2, -2, -60, -60});  // lanes 3 and 4 unused: no light in
  for (int lane = 1; lane <= 4; ++lane) {
    n.drop("transceiver", "lane", std::to_string(lane), "fabricmon_transceiver_tx_power_watts");
  }
  for (const char* level : {"high_alarm", "high_warning", "low_warning", "low_alarm"}) {
    n.drop("transceiver", "level", level, "fabricmon_transceiver_tx_power_threshold_watts");
  }
  for (int lane : {3, 4}) {
    n.set("transceiver", "fabricmon_transceiver_tx_bias_amperes",
          {{"interface", "eth0"}, {"lane", std::to_string(lane)}}, 0.0);
    for (const char* q : {"rx_power", "tx_bias"}) setFlag(n, "eth0", q, "low_alarm", std::to_string(lane), 1);
  }
  EXPECT_TRUE(run(n, 5).empty());
  // Lane 2's laser dies: no bias, but the far end's light still comes in. Judged.
  n.set("transceiver", "fabricmon_transceiver_tx_bias_amperes", {{"interface", "eth0"}, {"lane", "2"}}, 0.0);
  setFlag(n, "eth0", "tx_bias", "low_alarm", "2", 1);
  const auto fs = (run(n, 2), n.findings());
  ASSERT_NE(finding(fs, "tx_bias"), nullptr) << ::testing::PrintToString(describe(fs));
  EXPECT_NE(finding(fs, "tx_bias")->summary.find("lane 2"), std::string::npos) << finding(fs, "tx_bias")->summary;
  ASSERT_NE(finding(fs, "alarm_flag"), nullptr);
  EXPECT_NE(finding(fs, "alarm_flag")->summary.find("lane 2"), std::string::npos) << finding(fs, "alarm_flag")->summary;
}

// Warnings left at 0 beside programmed alarms are no range: not limits. Judged against them, a
// healthy module would be "beyond its high warning of 0 °C" and "of 0 mA" at every reading.
TEST(OpticsDegraded, WarningsThatAreNotARangeAreNotLimits) {
  TestNode n;
  module(n);
  for (const char* fam : {"fabricmon_transceiver_temperature_threshold_celsius",
                          "fabricmon_transceiver_tx_bias_threshold_amperes"}) {
    for (const char* level : {"high_warning", "low_warning"}) {
      n.set("transceiver", fam, {{"interface", "eth0"}, {"level", level}}, 0);
    }
  }
  EXPECT_TRUE(run(n, 5).empty());
  // One side out of its alarm drops that side only: a low temperature warning above its alarm is no
  // limit, the high side still is.
  n.set("transceiver", "fabricmon_transceiver_temperature_threshold_celsius",
        {{"interface", "eth0"}, {"level", "high_warning"}}, 70);
  n.set("transceiver", "fabricmon_transceiver_temperature_threshold_celsius",
        {{"interface", "eth0"}, {"level", "low_warning"}}, -10);  // below its low alarm of -5
  n.set("transceiver", "fabricmon_transceiver_temperature_celsius", {{"interface", "eth0"}}, 72);
  EXPECT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/temperature/eth0"});
  n.set("transceiver", "fabricmon_transceiver_temperature_threshold_celsius",
        {{"interface", "eth0"}, {"level", "low_warning"}}, 0);
  n.set("transceiver", "fabricmon_transceiver_temperature_celsius", {{"interface", "eth0"}}, 45);
  run(n, 10);
  // Ordered warnings are limits again: a module at 72 °C is beyond its high warning of 70.
  n.set("transceiver", "fabricmon_transceiver_temperature_threshold_celsius",
        {{"interface", "eth0"}, {"level", "high_warning"}}, 70);
  n.set("transceiver", "fabricmon_transceiver_temperature_celsius", {{"interface", "eth0"}}, 72);
  EXPECT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/temperature/eth0"});
}

void serial(TestNode& n, const std::string& number, const std::string& iface);

// A module swapped for one that reports values but no thresholds (flat memory, all-zero thresholds,
// an unreadable page 02h): the old module's threshold findings clear; nothing holds them for good.
// The same module whose thresholds were not read for a while (its threshold page is read again once
// an hour) holds its findings: a real over-temperature is not cleared and paged again.
TEST(OpticsDegraded, AFindingOfTheModuleBeforeClearsWhenTheNewOneHasNoThresholds) {
  auto dropThresholds = [](TestNode& n) {
    for (const char* fam : {"fabricmon_transceiver_rx_power_threshold_watts", "fabricmon_transceiver_tx_power_threshold_watts",
                            "fabricmon_transceiver_tx_bias_threshold_amperes",
                            "fabricmon_transceiver_temperature_threshold_celsius"}) {
      n.drop("transceiver", "interface", "eth0", fam);
    }
  };
  const std::vector<std::string> both{"optics_degraded/rx_power_low/eth0", "optics_degraded/temperature/eth0"};
  TestNode n;
  module(n, "eth0", {-12, -3, -3, -3});
  serial(n, "A1", "eth0");
  n.set("transceiver", "fabricmon_transceiver_temperature_celsius", {{"interface", "eth0"}}, 72);
  EXPECT_EQ(run(n, 3), both);
  dropThresholds(n);  // the same module, its thresholds not read this time
  EXPECT_EQ(run(n, 10), both) << "held: the module is the one whose thresholds were seen";
  n.drop("transceiver", "serial_number", "A1", "fabricmon_transceiver_info");
  serial(n, "B7", "eth0");  // another module, without thresholds
  for (int lane = 1; lane <= 4; ++lane) setRx(n, lane, -2);
  EXPECT_TRUE(run(n, 10).empty()) << "cleared within clear_after (5 min)";
}

TEST(OpticsDegraded, ManagementPortsAreLeftOut) {
  TestNode n;
  n.set("port_topology", "fabricmon_port_topology_info",
        {{"device", "mlx5_9"},
         {"port", "1"},
         {"interface", "eno1"},
         {"role", "management"},
         {"rail", ""}},
        1);
  module(n, "eno1", {-20, -20, -20, -20});
  EXPECT_TRUE(run(n, 4).empty());
}

// ---- rx_power_sinking / tx_power_sinking: a lane against its own baseline ----

/// A four-hour baseline window (parts of 10 min, ten readings each); half of it learned (12 parts)
/// before anything is judged, as half a day is with the default day.
WatchdogConfig shortBaseline() {
  WatchdogConfig c;
  auto& r = c.rules.get<OpticsDegradedRule>();
  r.baselineWindow = std::chrono::hours(4);
  r.baselineMinParts = 12;
  return c;
}

void setTx(TestNode& n, int lane, double d, const std::string& iface = "eth0") {
  n.set("transceiver", "fabricmon_transceiver_tx_power_watts",
        {{"interface", iface}, {"lane", std::to_string(lane)}}, dbm(d));
}

void serial(TestNode& n, const std::string& number, const std::string& iface = "eth0") {
  n.set("transceiver", "fabricmon_transceiver_info",
        {{"interface", iface}, {"dom", "true"}, {"serial_number", number}}, 1);
}

// A lane whose light falls 3.5 dB in a few minutes — a connector knocked, a fibre bent, a laser
// failing — is named while it is still 4.5 dB above the module's low warning (-10 dBm), which the
// threshold reason would wait for.
TEST(OpticsSinking, ALaneFarBelowItsOwnBaselineFiresLongBeforeItsThreshold) {
  TestNode n(shortBaseline());
  module(n);
  serial(n, "A1");
  EXPECT_TRUE(run(n, 130).empty()) << "a steady module, its baseline learned";
  setRx(n, 2, -5.5);
  n.tick(60);
  EXPECT_TRUE(n.findings().empty()) << "one reading is not enough (for_readings 2)";
  n.tick(60);
  const auto fs = n.findings();
  ASSERT_EQ(describe(fs), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
  EXPECT_EQ(fs[0].severity, Severity::kWarning);
  EXPECT_NE(fs[0].summary.find("Rx power of lane 2 is -5.50 dBm, 3.5 dB below the lane's own baseline of -2.00 dBm"),
            std::string::npos)
      << fs[0].summary;
  EXPECT_NE(fs[0].summary.find("low warning is -10.00 dBm"), std::string::npos) << fs[0].summary;
  // Back within sink_db less the hysteresis: clears after clear_after (5 min).
  setRx(n, 2, -2.4);
  run(n, 4);
  EXPECT_NE(finding(n.findings(), "rx_power_sinking"), nullptr);
  run(n, 3);
  EXPECT_TRUE(n.findings().empty()) << describe(n.findings()).size();
}

double gauge(TestNode& n, const std::string& key) {
  for (const auto& s : n.watchdog().metricsBatch()->samples) {
    if (s.series->key == key) return s.value;
  }
  return -1;
}

std::string rxBaseline(int lane) {
  return "fabricmon_transceiver_rx_power_baseline_watts{interface=\"eth0\",lane=\"" + std::to_string(lane) + "\"}";
}

// What a lane is judged against is exported beside its reading: nothing before the baseline is
// learned, then each used lane's median (not the sunk reading), none for a dark lane or while the
// link is down, and a swapped module's lanes start over.
TEST(OpticsSinking, EachLanesBaselineIsExportedAsWhatItIsJudgedAgainst) {
  TestNode n(shortBaseline());
  module(n, "eth0", {-2, -4, -2, -2});
  serial(n, "A1");
  n.set("transceiver", "fabricmon_transceiver_rx_power_watts", {{"interface", "eth0"}, {"lane", "3"}}, 0.0);
  run(n, 100);
  EXPECT_EQ(gauge(n, rxBaseline(1)), -1) << "10 of the 12 parts needed";
  run(n, 30);
  EXPECT_NEAR(gauge(n, rxBaseline(1)), dbm(-2), 1e-9);
  EXPECT_NEAR(gauge(n, rxBaseline(2)), dbm(-4), 1e-9);
  EXPECT_EQ(gauge(n, rxBaseline(3)), -1) << "a lane this link does not use";
  EXPECT_NEAR(gauge(n, "fabricmon_transceiver_tx_power_baseline_watts{interface=\"eth0\",lane=\"4\"}"), dbm(-1), 1e-9);
  setRx(n, 2, -8);
  run(n, 2);
  ASSERT_NE(finding(n.findings(), "rx_power_sinking"), nullptr);
  EXPECT_NEAR(gauge(n, rxBaseline(2)), dbm(-4), 1e-9) << "the median, not the sunk reading";
  // A lane of the link that goes dark is judged no more, so nothing is judged against its baseline.
  setRx(n, 4, -40);
  run(n, 1);
  EXPECT_EQ(gauge(n, rxBaseline(4)), -1) << "a lane gone dark";
  EXPECT_NEAR(gauge(n, rxBaseline(1)), dbm(-2), 1e-9);
  setRx(n, 4, -2);
  run(n, 1);
  EXPECT_NEAR(gauge(n, rxBaseline(4)), dbm(-2), 1e-9);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  run(n, 1);
  EXPECT_EQ(gauge(n, rxBaseline(1)), -1) << "no light to judge while the link is down";
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 1);
  run(n, 1);
  EXPECT_NEAR(gauge(n, rxBaseline(1)), dbm(-2), 1e-9);
  // The module stops reporting Rx power while its Tx power still comes: no Rx lane is judged.
  for (int lane = 1; lane <= 4; ++lane) {
    n.drop("transceiver", "lane", std::to_string(lane), "fabricmon_transceiver_rx_power_watts");
  }
  run(n, 1);
  EXPECT_EQ(gauge(n, rxBaseline(1)), -1) << "no Rx reading to judge";
  EXPECT_NEAR(gauge(n, "fabricmon_transceiver_tx_power_baseline_watts{interface=\"eth0\",lane=\"1\"}"), dbm(-1), 1e-9);
  for (int lane = 1; lane <= 4; ++lane) setRx(n, lane, -2);
  run(n, 2);
  EXPECT_NEAR(gauge(n, rxBaseline(1)), dbm(-2), 1e-9);
  n.drop("transceiver", "serial_number", "A1");
  serial(n, "B7");
  run(n, 1);
  EXPECT_EQ(gauge(n, rxBaseline(1)), -1) << "another module learns its own";
}

// Lanes without light while the link is up are lanes this link does not use: the other port of a
// twin-port OSFP, a breakout leg whose far end is unplugged. Whether they read 0 or sit at the DOM's
// floor, a step of it apart, they are neither learned nor judged.
TEST(OpticsSinking, DarkLanesOfALinkThatIsUpAreNotItsLanes) {
  TestNode n(shortBaseline());
  module(n);
  for (int i = 0; i < 140; ++i) {
    n.set("transceiver", "fabricmon_transceiver_rx_power_watts", {{"interface", "eth0"}, {"lane", "3"}},
          i % 2 == 0 ? 0.0 : 2e-7);
    n.set("transceiver", "fabricmon_transceiver_rx_power_watts", {{"interface", "eth0"}, {"lane", "4"}},
          i % 3 == 0 ? 1e-7 : 2e-7);
    n.tick(60);
    ASSERT_TRUE(n.findings().empty()) << "reading " << i << ": " << n.findings().at(0).summary;
  }
  // A lane of this link that goes dark while the link stays up is not judged either (a monitor
  // glitch: a lane of a link that is up carries light); its neighbours still are.
  n.set("transceiver", "fabricmon_transceiver_rx_power_watts", {{"interface", "eth0"}, {"lane", "1"}}, 0.0);
  EXPECT_TRUE(run(n, 3).empty());
  setRx(n, 2, -5.5);
  EXPECT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
}

TEST(OpticsSinking, TxPowerToo) {
  TestNode n(shortBaseline());
  module(n);
  run(n, 130);
  setTx(n, 4, -4.2);  // the module's Tx low warning is -6 dBm
  EXPECT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/tx_power_sinking/eth0"});
}

// DOM readings wander by a dB with temperature and the far end; a lane that moves less than
// sink_db from its median, up or down, is healthy, and so is a module sitting near its warning.
TEST(OpticsSinking, LanesThatWanderAroundTheirBaselineStaySilent) {
  TestNode n(shortBaseline());
  module(n, "eth0", {-2, -6, -9.6, -1});
  for (int i = 0; i < 400; ++i) {
    const double w = (i % 7) * 0.35 - 1.0;  // -1.0 .. +1.1 dB
    setRx(n, 1, -2 + w);
    setRx(n, 2, -6 - w);
    setRx(n, 4, -1 + 0.5 * w);
    n.tick(60);
    ASSERT_TRUE(n.findings().empty()) << "reading " << i << ": " << n.findings().at(0).summary;
  }
}

// Half of the baseline window must be learned before a lane is judged: a module sinking from its
// first hour is left to the thresholds.
TEST(OpticsSinking, NothingIsJudgedBeforeTheBaselineIsLearned) {
  TestNode n(shortBaseline());
  module(n);
  run(n, 100);  // 10 parts of the 12 needed
  setRx(n, 1, -9);
  EXPECT_TRUE(run(n, 5).empty());
}

// Another module (its serial number) is another laser and another link budget: its lanes start
// over instead of being judged against the light of the one it replaced.
TEST(OpticsSinking, AModuleSwapStartsItsBaselineOver) {
  TestNode n(shortBaseline());
  module(n);
  serial(n, "A1");
  run(n, 130);
  n.drop("transceiver", "serial_number", "A1");
  serial(n, "B7");
  for (int lane = 1; lane <= 4; ++lane) setRx(n, lane, -6.5);
  EXPECT_TRUE(run(n, 20).empty());
  // The new module learns its own normal, and sinking from it is found again.
  run(n, 120);
  setRx(n, 3, -10);
  const auto fs = (run(n, 2), n.findings());
  ASSERT_NE(finding(fs, "rx_power_sinking"), nullptr) << describe(fs).size();
  EXPECT_NE(finding(fs, "rx_power_sinking")->summary.find("baseline of -6.50 dBm"), std::string::npos);
}

// A sinking finding of the module before does not hold through the half day the new one needs to
// learn its own light: without a baseline, the new module's readings are judged clear.
TEST(OpticsSinking, AFindingOfTheModuleBeforeClearsWhenTheNewOneHasNoBaselineYet) {
  TestNode n(shortBaseline());
  module(n);
  serial(n, "A1");
  run(n, 130);
  setRx(n, 1, -6);
  ASSERT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
  // Swapped between two readings: the series never vanish, the serial number changes.
  n.drop("transceiver", "serial_number", "A1");
  serial(n, "B7");
  run(n, 4);
  EXPECT_FALSE(n.findings().empty()) << "clear_after (5 min) is not over";
  EXPECT_TRUE(run(n, 3).empty());
}

// An identity read with a bad checksum, or without a serial number, is not another module.
TEST(OpticsSinking, AnIdentityReadBadlyIsNotANewModule) {
  TestNode n(shortBaseline());
  module(n);
  serial(n, "A1");
  run(n, 130);
  n.drop("transceiver", "serial_number", "A1");
  n.set("transceiver", "fabricmon_transceiver_info",
        {{"interface", "eth0"}, {"dom", "true"}, {"serial_number", "A?1"}, {"checksum", "bad"}}, 1);
  run(n, 2);
  n.drop("transceiver", "checksum", "bad");
  n.set("transceiver", "fabricmon_transceiver_info", {{"interface", "eth0"}, {"dom", "true"}, {"serial_number", ""}}, 1);
  run(n, 2);
  setRx(n, 2, -6);
  EXPECT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"})
      << "the baseline of A1 is still there";
}

// While the link is down there is no light to learn: the dark time is neither the lane's normal
// nor a finding (port_down reports it), and the baseline is the same when the light is back.
TEST(OpticsSinking, ADarkTimeIsNotLearned) {
  WatchdogConfig config = shortBaseline();
  config.rules.get<OpticsDegradedRule>().baselineMinParts = 6;
  TestNode n(config);
  module(n);
  run(n, 130);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  for (int lane = 1; lane <= 4; ++lane) setRx(n, lane, -25);  // what a dark receiver may read
  // 14 of the window's 24 parts in the dark: learned, they would be the median.
  EXPECT_TRUE(run(n, 140).empty());
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 1);
  for (int lane = 1; lane <= 4; ++lane) setRx(n, lane, -2);
  EXPECT_TRUE(run(n, 5).empty());
  setRx(n, 1, -5.5);
  EXPECT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
}

// A lane that sank and stays sunk is an optic still degraded, not a new normal: its baseline stands
// still (baseline_hold), so the finding holds past the half day in which the median would have
// followed the sunk light, and until the light is back. Learned again from then on, a second
// sinking is found again.
TEST(OpticsSinking, ALaneThatStaysSunkIsNotLearnedAsItsNormal) {
  TestNode n(shortBaseline());
  module(n);
  run(n, 130);
  setRx(n, 2, -6);
  ASSERT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
  for (int i = 0; i < 400; ++i) {  // 6.7 h: longer than the 4 h window, whose median would be -6 after 2 h
    n.tick(60);
    ASSERT_NE(finding(n.findings(), "rx_power_sinking"), nullptr) << "reading " << i;
  }
  EXPECT_NEAR(gauge(n, rxBaseline(2)), dbm(-2), 1e-9) << "judged against the light before it sank";
  EXPECT_NE(finding(n.findings(), "rx_power_sinking")->summary.find("4.0 dB below the lane's own baseline of -2.00 dBm"),
            std::string::npos);
  // Back within sink_db less the hysteresis (re-seated 1 dB lower): clears, and learns again.
  setRx(n, 2, -3);
  EXPECT_TRUE(run(n, 7).empty()) << "the light is back: clears after clear_after";
  run(n, 300);
  EXPECT_NEAR(gauge(n, rxBaseline(2)), dbm(-3), 1e-9) << "released: the level it came back at is learned";
  setRx(n, 2, -5.5);
  EXPECT_TRUE(run(n, 2).empty()) << "2.5 dB below what it learned since";
  setRx(n, 2, -6.5);
  EXPECT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
}

// baseline_hold bounds the hold: a lane that stays sunk for longer is learned at its new level (a
// fibre re-routed through a patch panel on purpose). A 3 h hold outlasts the light the 4 h window
// held before the sinking: the lane then has no baseline and clears, as a new module would. A 1 h
// hold leaves the old light in the window: the median follows the sunk light from the lapse, and
// the same sinking does not hold it again (else it would fire for good). 0 learns the sunk light at
// once, as before the hold existed.
TEST(OpticsSinking, TheHoldLapsesAfterBaselineHold) {
  for (const auto hold : {std::chrono::hours(3), std::chrono::hours(1), std::chrono::hours(0)}) {
    WatchdogConfig config = shortBaseline();
    config.rules.get<OpticsDegradedRule>().baselineHold = hold;
    TestNode n(config);
    module(n);
    run(n, 130);
    setRx(n, 2, -6);
    ASSERT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
    run(n, 170);  // 2 h 52 min
    EXPECT_EQ(finding(n.findings(), "rx_power_sinking") != nullptr, hold == std::chrono::hours(3))
        << "hold " << hold.count() << " h";
    run(n, 18);  // 3 h 10 min: the 3 h hold lapsed
    EXPECT_TRUE(n.findings().empty()) << "hold " << hold.count() << " h: " << describe(n.findings()).size();
    run(n, 142);  // 5 h 32 min in all
    EXPECT_TRUE(n.findings().empty()) << "hold " << hold.count() << " h: " << describe(n.findings()).size();
    EXPECT_NEAR(gauge(n, rxBaseline(2)), dbm(-6), 1e-9) << "the new level is the lane's normal";
    run(n, 240);
    EXPECT_TRUE(n.findings().empty());
    setRx(n, 2, -9.5);  // and a new sinking from it is found, and held, again
    EXPECT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"}) << hold.count();
  }
}

// A hold taken under a longer baseline_hold ends with the shorter one a reload brings (0: at once),
// instead of running its old course.
TEST(OpticsSinking, AShorterBaselineHoldEndsAHoldAlreadyTaken) {
  TestNode n(shortBaseline());
  module(n);
  run(n, 130);
  setRx(n, 2, -6);
  ASSERT_EQ(run(n, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
  run(n, 30);
  WatchdogConfig config = shortBaseline();
  config.rules.get<OpticsDegradedRule>().baselineHold = std::chrono::hours(0);
  n.watchdog().reconfigure(config, QosConfig{});
  run(n, 170);  // 3 h 20 min after the sinking: learned since the reload
  EXPECT_TRUE(n.findings().empty()) << describe(n.findings()).size();
}

// A sinking found before a restart is still held after it: the hold is in the state file with the
// parts, so the restarted daemon does not learn the sunk light either.
TEST(OpticsSinking, AHoldSurvivesARestart) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto wall = std::chrono::system_clock::time_point{};
  {
    TestNode a(shortBaseline());
    a.watchdog().useStateFile(path, std::chrono::minutes(5));
    module(a);
    serial(a, "A1");
    run(a, 130);
    setRx(a, 2, -6);
    ASSERT_EQ(run(a, 2), std::vector<std::string>{"optics_degraded/rx_power_sinking/eth0"});
    run(a, 300);  // 5 h: the light before the sinking is older than the 4 h window
    a.watchdog().flushState();
    wall = a.wall();
  }
  TestNode b(shortBaseline());
  b.restartAfter(wall, 60, path);
  module(b);
  serial(b, "A1");
  setRx(b, 2, -6);
  run(b, 3);
  EXPECT_NE(finding(b.findings(), "rx_power_sinking"), nullptr) << "judged against the held day";
  EXPECT_NEAR(gauge(b, rxBaseline(2)), dbm(-2), 1e-9);
  run(b, 300);  // 5 h more: the 4 h window would have learned the sunk light
  EXPECT_NE(finding(b.findings(), "rx_power_sinking"), nullptr);
  EXPECT_NEAR(gauge(b, rxBaseline(2)), dbm(-2), 1e-9);
}

// A finding up when the daemon stopped is the same episode when it starts again after the restart,
// also when its first reading after the restart fired and the next did not (its state dropped
// before it started, for_readings 2): the third start within the hour does not make it recurring.
TEST(OpticsDegraded, AFindingUpAcrossARestartIsNotARecurrenceEvenIfItTakesTwoTries) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto wall = std::chrono::system_clock::time_point{};
  {
    TestNode a;
    a.watchdog().useStateFile(path, std::chrono::minutes(5));
    module(a);
    run(a, 3);
    setRx(a, 3, -10.5);
    ASSERT_EQ(run(a, 2), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});
    setRx(a, 3, -2);
    ASSERT_TRUE(run(a, 7).empty());
    setRx(a, 3, -10.5);
    ASSERT_EQ(run(a, 2), std::vector<std::string>{"optics_degraded/rx_power_low/eth0"});  // up at the stop
    a.watchdog().flushState();
    wall = a.wall();
  }
  TestNode b;
  b.restartAfter(wall, 30, path);
  module(b);
  setRx(b, 3, -10.5);
  run(b, 1);
  setRx(b, 3, -9.5);  // just above the warning for one reading
  run(b, 1);
  setRx(b, 3, -10.5);
  run(b, 2);
  const Finding* f = finding(b.findings(), "rx_power_low");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(labelOf(*f, "recurring"), "") << "the episode of the process before";
}

// A baseline takes half a day to learn: an upgrade must not lose it. A light that sank while the
// daemon was restarting is found by the new process with the file, and learned as normal without.
TEST(OpticsSinking, TheBaselineSurvivesARestart) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto wall = std::chrono::system_clock::time_point{};
  {
    TestNode a(shortBaseline());
    a.watchdog().useStateFile(path, std::chrono::minutes(5));
    module(a);
    serial(a, "A1");
    run(a, 130);
    a.watchdog().flushState();
    wall = a.wall();
  }
  for (bool withState : {true, false}) {
    TestNode b(shortBaseline());
    b.restartAfter(wall, 60, withState ? path : std::string());
    module(b);
    serial(b, "A1");
    setRx(b, 2, -6);
    EXPECT_EQ(finding((run(b, 3), b.findings()), "rx_power_sinking") != nullptr, withState)
        << (withState ? "with" : "without") << " the state file";
  }
}

}  // namespace
}  // namespace fabricmon::testing
