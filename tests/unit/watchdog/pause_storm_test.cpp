#include <gtest/gtest.h>

#include <optional>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

const Labels kRxPause{{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}};
const Labels kTxPackets{{"interface", "eth0"}, {"priority", "3"}};

struct Step {
  Step(double dt, double rxPause, double txPackets, bool linkUp = true, std::optional<double> resetTo = std::nullopt)
      : dt(dt), rxPause(rxPause), txPackets(txPackets), linkUp(linkUp), resetTo(resetTo) {}
  double dt;                      ///< seconds since the previous poll
  double rxPause;                 ///< seconds of received pause added in the interval
  double txPackets;               ///< packets transmitted on priority 3 in the interval
  bool linkUp;
  std::optional<double> resetTo;  ///< the pause counter restarts at this value
};

struct Case {
  const char* name;
  std::vector<Step> steps;
  bool everActive;
  bool activeAtEnd;
};

Step storm() { return Step{1, 0.995, 0}; }
Step quiet() { return Step{1, 0, 1000}; }

class PauseStormTable : public ::testing::TestWithParam<Case> {};

TEST_P(PauseStormTable, Storm) {
  const Case& c = GetParam();
  TestNode n;
  healthyRoce(n);
  n.tick();  // first sample of every series
  n.tick();  // second: every counter has a delta
  bool ever = false;
  for (const Step& s : c.steps) {
    if (s.resetTo) {
      n.set("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, *s.resetTo);
    } else {
      n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, s.rxPause);
    }
    n.add("ethtool_pfc", "fabricmon_priority_transmit_packets_total", kTxPackets, s.txPackets);
    if (!s.linkUp) {
      n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
      n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "1"}}, 1);
      n.set("rdma_port", "fabricmon_port_physical_state", {{"device", "mlx5_0"}, {"port", "1"}}, 3);
    }
    n.tick(s.dt);
    for (const auto& d : describe(n.findings())) {
      // Nothing but the storm itself, whatever the step.
      EXPECT_EQ(d, "pause_storm/storm/eth0/3") << c.name;
      ever = true;
    }
  }
  EXPECT_EQ(ever, c.everActive) << c.name;
  EXPECT_EQ(!n.findings().empty(), c.activeAtEnd) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PauseStormTable,
    ::testing::Values(
        Case{"fires_after_two_storm_samples", {storm(), storm()}, true, true},
        Case{"one_storm_sample_is_not_enough", {storm(), quiet(), storm(), quiet()}, false, false},
        Case{"just_below_threshold", {{1, 0.985, 0}, {1, 0.985, 0}, {1, 0.985, 0}, {1, 0.985, 0}}, false, false},
        Case{"progress_on_the_paused_side_is_no_storm", {{1, 0.995, 50}, {1, 0.995, 50}, {1, 0.995, 50}}, false, false},
        Case{"clears_after_restoration", {storm(), storm(), quiet(), quiet()}, true, false},
        Case{"still_active_before_restoration_time", {storm(), storm(), quiet()}, true, true},
        Case{"pause_between_clear_and_threshold_holds_it", {storm(), storm(), {1, 0.5, 0}, {1, 0.5, 0}, {1, 0.5, 0}},
             true, true},
        // 0.5 of a 2.7 s interval: a rate over the nominal 1 s would read 1.35 and fire.
        Case{"poll_delayed_2_7x", {{1, 0.5, 0}, {2.7, 1.35, 0}, {1, 0.5, 0}, {2.7, 1.35, 0}}, false, false},
        // 38 % of 2.7 s: over the nominal 1 s this would read 1.026, above the threshold yet plausible.
        Case{"polls_delayed_2_7x_at_38_percent", {{2.7, 1.026, 0}, {2.7, 1.026, 0}, {2.7, 1.026, 0}}, false, false},
        Case{"storm_measured_across_a_delayed_poll", {storm(), {2.7, 2.7 * 0.995, 0}}, true, true},
        Case{"counter_reset_is_not_a_storm",
             {{1, 0.2, 0}, {1, 0, 0, true, 0.4}, {1, 0.2, 0}, {1, 0.2, 0}}, false, false},
        Case{"reset_onto_a_large_value_is_not_a_storm",
             {{1, 0.2, 0}, {1, 0, 0, true, 50}, {1, 0, 0, true, 51}, {1, 0.2, 0}}, false, false},
        // The link dies mid-storm and the pause counter keeps running: the storm ends with its link.
        Case{"link_down_mid_storm", {storm(), storm(), {1, 0.995, 0, false}, {1, 0.995, 0, false}, {1, 0.995, 0, false}},
             true, false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(PauseStorm, EvidenceAndSummaryNameTheNumbers) {
  TestNode n;
  healthyRoce(n);
  n.tick();
  n.tick();
  for (int i = 0; i < 2; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 0.997);
    n.tick();
  }
  auto f = n.findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(f[0].since, n.wall());
  EXPECT_NE(f[0].summary.find("99.7%"), std::string::npos) << f[0].summary;
  bool sawFraction = false;
  for (const auto& [k, v] : f[0].evidence) {
    if (k == "rx_pause_fraction") {
      EXPECT_NEAR(v, 0.997, 1e-9);
      sawFraction = true;
    }
  }
  EXPECT_TRUE(sawFraction);
  EXPECT_EQ(labelOf(f[0], "interface"), "eth0");
  EXPECT_EQ(labelOf(f[0], "priority"), "3");
  EXPECT_EQ(labelOf(f[0], "device"), "");
}

TEST(PauseStorm, TransmitSideStormWithoutReceiveProgress) {
  TestNode n;
  healthyRoce(n);
  n.tick();
  n.tick();
  const Labels txPause{{"interface", "eth0"}, {"priority", "3"}, {"direction", "tx"}};
  for (int i = 0; i < 2; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", txPause, 1.0);
    n.add("ethtool_pfc", "fabricmon_priority_transmit_packets_total", kTxPackets, 100);  // our tx is not the paused side
    n.tick();
  }
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"pause_storm/storm/eth0/3"});
}

TEST(PauseStorm, EvaluatingTwiceOnTheSameSampleIsOneSample) {
  TestNode n;
  healthyRoce(n);
  n.tick();
  n.tick();
  n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 1.0);
  n.tick();
  n.evaluateOnly();  // another collector published: no new pause sample
  n.evaluateOnly();
  EXPECT_TRUE(n.findings().empty());
}

struct EventCase {
  const char* fam;
  const char* reason;
  Severity severity;
};

class NicStormEvents : public ::testing::TestWithParam<EventCase> {};

TEST_P(NicStormEvents, AnyIncreaseFiresAndHoldsThenClears) {
  const auto& c = GetParam();
  WatchdogConfig cfg;
  TestNode n(cfg);
  n.set("ethtool_pfc", c.fam, {{"interface", "eth0"}}, 7);
  n.tick();
  n.tick();
  EXPECT_TRUE(n.findings().empty()) << "a non-zero counter at start is history, not an event";
  n.add("ethtool_pfc", c.fam, {{"interface", "eth0"}}, 1);
  n.tick();
  auto f = n.findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(labelOf(f[0], "reason"), c.reason);
  EXPECT_EQ(f[0].severity, c.severity);
  for (int i = 0; i < 59; ++i) n.tick();
  EXPECT_EQ(n.findings().size(), 1u) << "held for event_hold so a scrape sees it";
  n.tick();
  EXPECT_TRUE(n.findings().empty());
}

INSTANTIATE_TEST_SUITE_P(Events, NicStormEvents,
                         ::testing::Values(EventCase{"fabricmon_pause_storm_warning_events_total", "nic_storm_warning",
                                                     Severity::kWarning},
                                           EventCase{"fabricmon_pause_storm_error_events_total", "nic_storm_error",
                                                     Severity::kCritical}));

struct SustainedCase {
  double fraction;
  bool fires;
};
class SustainedPause : public ::testing::TestWithParam<SustainedCase> {};

TEST_P(SustainedPause, FiveMinuteFraction) {
  TestNode n;
  healthyRoce(n);
  bool ever = false;
  for (int i = 0; i < 400; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, GetParam().fraction);
    flowing(n);
    n.tick();
    for (const auto& d : describe(n.findings())) {
      EXPECT_EQ(d, "pause_storm/sustained_pause/eth0/3");
      ever = true;
      EXPECT_GE(i, 299) << "not judged before a full window was observed";
    }
  }
  EXPECT_EQ(ever, GetParam().fires);
  if (GetParam().fires) {
    EXPECT_EQ(n.findings()[0].severity, Severity::kWarning);
    for (int i = 0; i < 320; ++i) {
      flowing(n);
      n.tick();
    }
    EXPECT_TRUE(n.findings().empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Fractions, SustainedPause,
                         ::testing::Values(SustainedCase{0.2, true}, SustainedCase{0.105, true},
                                           SustainedCase{0.095, false}, SustainedCase{0.0, false}));

}  // namespace
}  // namespace fabricmon::testing

namespace fabricmon::testing {
namespace {

// NICs that count pause frames but not pause time (ice; any driver through DCB ieee_pfc): SONiC's
// frame-count detector. A node without the pause-time counters, frames in every dialect's family.
class FrameOnlyNic {
 public:
  explicit FrameOnlyNic(const char* framesFamily = "fabricmon_pfc_pause_frames_received_total",
                        const char* collector = "ethtool_pfc")
      : family_(framesFamily), collector_(collector) {
    healthyRoce(n_);
    n_.drop("ethtool_pfc", "direction", "rx");  // no pause-time counters at all
    n_.drop("ethtool_pfc", "direction", "tx");
    n_.set(collector_, family_, kPrio3, 0);
  }
  /// One second: `frames` pause frames received, `packets` sent on priority 3.
  void second(double frames, double packets) {
    n_.add(collector_, family_, kPrio3, frames);
    n_.add("ethtool_pfc", "fabricmon_priority_transmit_packets_total", kPrio3, packets);
    n_.add("ethtool_pfc", "fabricmon_priority_receive_packets_total", kPrio3, 1000);
    n_.tick();
  }
  std::vector<std::string> findings() { return describe(n_.findings()); }
  TestNode& node() { return n_; }

 private:
  static inline const Labels kPrio3{{"interface", "eth0"}, {"priority", "3"}};
  TestNode n_;
  const char* family_;
  const char* collector_;
};

TEST(FrameDetector, FramesWithoutProgressIsAStorm) {
  FrameOnlyNic nic;
  for (int i = 0; i < 5; ++i) nic.second(0, 1000);
  nic.second(50000, 0);
  EXPECT_TRUE(nic.findings().empty()) << "one interval is not enough";
  nic.second(50000, 0);
  ASSERT_EQ(nic.findings(), std::vector<std::string>{"pause_storm/storm/eth0/3"});
  double frameDetector = -1;
  const auto findings = nic.node().findings();  // the loop reads into it: a temporary would be gone
  for (const auto& [k, v] : findings[0].evidence) {
    if (k == "frame_detector") frameDetector = v;
  }
  EXPECT_EQ(frameDetector, 1);
  EXPECT_NE(nic.node().findings()[0].summary.find("frame-count detector"), std::string::npos);
  // Frames stop: the storm ends after the restoration time.
  for (int i = 0; i < 4; ++i) nic.second(0, 1000);
  EXPECT_TRUE(nic.findings().empty());
}

TEST(FrameDetector, FramesWithProgressIsABusyPort) {
  FrameOnlyNic nic;
  for (int i = 0; i < 30; ++i) nic.second(20000, 500);
  EXPECT_TRUE(nic.findings().empty());
}

TEST(FrameDetector, DcbCountsServeWhenEthtoolHasNone) {
  FrameOnlyNic nic("fabricmon_dcb_pfc_indications_total", "dcb_config");
  for (int i = 0; i < 5; ++i) nic.second(0, 1000);
  for (int i = 0; i < 3; ++i) nic.second(50000, 0);
  EXPECT_EQ(nic.findings(), std::vector<std::string>{"pause_storm/storm/eth0/3"});
}

// Where a NIC has both, the pause-time counter decides: frames keep coming, but 30 % pause with
// nothing transmitted is not 99 %.
TEST(FrameDetector, DurationDecidesWhenBothExist) {
  TestNode n;
  healthyRoce(n);
  const Labels prio3{{"interface", "eth0"}, {"priority", "3"}};
  const Labels rx{{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}};
  n.set("ethtool_pfc", "fabricmon_pfc_pause_frames_received_total", prio3, 0);
  for (int i = 0; i < 6; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_frames_received_total", prio3, 50000);
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", rx, 0.3);
    n.add("ethtool_pfc", "fabricmon_priority_receive_packets_total", prio3, 1000);
    n.tick();
  }
  EXPECT_TRUE(n.findings().empty()) << describe(n.findings()).front();
}

}  // namespace
}  // namespace fabricmon::testing

namespace fabricmon::testing {
namespace {

// ice counts no packets per priority: the port's transmitted bytes against its line rate stand in.
TEST(FrameDetector, WholePortBytesStandInForPerPriorityProgress) {
  for (const bool stalled : {true, false}) {
    TestNode n;
    healthyRoce(n);
    n.drop("ethtool_pfc", "direction", "rx");
    n.drop("ethtool_pfc", "direction", "tx");
    n.drop("ethtool_pfc", "priority", "3");  // no per-priority packet counters at all
    const Labels prio3{{"interface", "eth0"}, {"priority", "3"}};
    const Labels port{{"interface", "eth0"}};
    n.set("ethtool_pfc", "fabricmon_pfc_pause_frames_received_total", prio3, 0);
    n.set("ethtool_pfc", "fabricmon_phy_transmitted_bytes_total", port, 0);
    for (int i = 0; i < 5; ++i) {
      n.add("ethtool_pfc", "fabricmon_phy_transmitted_bytes_total", port, 0.3 * k400G);
      n.tick();
    }
    for (int i = 0; i < 4; ++i) {
      n.add("ethtool_pfc", "fabricmon_pfc_pause_frames_received_total", prio3, 50000);
      // Stalled: TCP on priority 0 only, 0.05 % of the line. Busy: 30 % of the line still goes out.
      n.add("ethtool_pfc", "fabricmon_phy_transmitted_bytes_total", port, (stalled ? 0.0005 : 0.3) * k400G);
      n.tick();
    }
    EXPECT_EQ(describe(n.findings()),
              stalled ? std::vector<std::string>{"pause_storm/storm/eth0/3"} : std::vector<std::string>{})
        << (stalled ? "stalled" : "busy");
  }
}

}  // namespace
}  // namespace fabricmon::testing

namespace fabricmon::testing {
namespace {

// A storm that begins at any phase of a poll after a quiet minute is flagged at the second poll
// that saw nothing but storm (for_samples 2): the interval it began in (part quiet, part storm,
// with progress before the onset) is no storm, and the two after it are. Begun exactly at a poll,
// that first interval is all storm already.
class PauseStormPhase : public ::testing::TestWithParam<double> {};

TEST_P(PauseStormPhase, FlaggedAtTheSecondFullStormPoll) {
  const double phase = GetParam();  // where in the poll interval the storm begins
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 60; ++i) {
    n.add("ethtool_pfc", "fabricmon_priority_transmit_packets_total", kTxPackets, 1000);
    n.tick();
  }
  // The interval the storm begins in.
  n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, (1 - phase) * 0.998);
  n.add("ethtool_pfc", "fabricmon_priority_transmit_packets_total", kTxPackets, phase * 1000);
  n.tick();
  int polls = 0;
  while (n.findings().empty() && polls < 6) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 0.998);
    n.tick();
    ++polls;
  }
  EXPECT_EQ(polls, phase == 0 ? 1 : 2) << "storm began at phase " << phase;
}

INSTANTIATE_TEST_SUITE_P(Phases, PauseStormPhase, ::testing::Values(0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99));

}  // namespace
}  // namespace fabricmon::testing
