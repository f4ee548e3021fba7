// link_ber: pre-FEC BER against its FEC's margin, uncorrectable codewords, the BER against the
// port's own baseline; its look-alikes (a healthy PAM4 link's normal BER, a module swap resetting
// the counters); and the state file carrying the baseline and the recurrence across a restart.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "tests/support/temp_dir.hpp"
#include "tests/unit/watchdog/test_node.hpp"
#include "watchdog/rules/link_ber.hpp"
#include "watchdog/state_file.hpp"

namespace fabricmon::testing {
namespace {

constexpr double k400GBytes = 5e10;  // bytes per second of a 400G link

WatchdogConfig shortWindows() {
  WatchdogConfig c;
  auto& r = c.rules.get<LinkBerRule>();
  r.window = std::chrono::seconds(60);
  r.baselineWindow = std::chrono::minutes(24);  // parts of 60 s
  r.baselineMinParts = 12;
  return c;
}

/// A 400G RoCE port eth0 with FEC counters; `ber` of the bits it receives are corrected.
struct Link {
  TestNode& n;
  std::string iface = "eth0";
  double bytesPerSecond = k400GBytes;
  double ber = 1e-8;

  void setup(const std::string& code = "RS(544,514)", double lanes = 4) {
    healthyRoce(n, "mlx5_0", iface, bytesPerSecond);
    n.set("fec", "fabricmon_fec_info", {{"interface", iface}, {"mode", "rs"}, {"code", code}}, 1);
    n.set("fec", "fabricmon_link_lanes", {{"interface", iface}}, lanes);
    n.set("fec", "fabricmon_fec_uncorrectable_blocks_total", {{"interface", iface}}, 0);
    n.set("ethtool_pfc", "fabricmon_phy_corrected_bit_errors_total", {{"interface", iface}}, 0);
    n.set("ethtool_pfc", "fabricmon_phy_received_bytes_total", {{"interface", iface}}, 0);
  }
  /// Half an hour at `normal` (more than the 24-minute baseline window of shortWindows), then a
  /// minute at `risen`: the end has learned its baseline and is degrading now.
  void learnThenRise(double normal = 1e-9, double risen = 5e-8) {
    ber = normal;
    setup();
    run(30 * 60);
    ber = risen;
    run(60);
  }
  void run(int seconds) {
    for (int i = 0; i < seconds; ++i) {
      n.add("ethtool_pfc", "fabricmon_phy_received_bytes_total", {{"interface", iface}}, bytesPerSecond);
      n.add("ethtool_pfc", "fabricmon_phy_corrected_bit_errors_total", {{"interface", iface}}, ber * bytesPerSecond * 8);
      n.tick();
    }
  }
};

std::vector<std::string> berFindings(const TestNode& n) {
  std::vector<std::string> out;
  for (const auto& f : describe(n.findings())) {
    if (f.starts_with("link_ber")) out.push_back(f);
  }
  return out;
}

const Finding* finding(const TestNode& n, const std::string& reason) {
  static std::vector<Finding> keep;
  keep = n.findings();
  for (const auto& f : keep) {
    if (f.rule == "link_ber" && labelOf(f, "reason") == reason) return &f;
  }
  return nullptr;
}

double evidence(const Finding& f, const std::string& name) {
  for (const auto& [k, v] : f.evidence) {
    if (k == name) return v;
  }
  return -1;
}

double gauge(TestNode& n, const std::string& key) {
  for (const auto& s : n.watchdog().metricsBatch()->samples) {
    if (s.series->key == key) return s.value;
  }
  return -1;
}

TEST(LinkBer, HealthyPam4LinkWithANormalBerIsSilent) {
  TestNode n(shortWindows());
  Link l{n};
  l.setup();
  l.run(30 * 60);
  EXPECT_TRUE(berFindings(n).empty());
  EXPECT_NEAR(gauge(n, R"(fabricmon_link_pre_fec_ber{interface="eth0"})"), 1e-8, 1e-10);
  EXPECT_NEAR(gauge(n, R"(fabricmon_link_pre_fec_ber_baseline{interface="eth0"})"), 1e-8, 1e-10);
  EXPECT_DOUBLE_EQ(gauge(n, R"(fabricmon_link_pre_fec_ber_warning_level{interface="eth0"})"), 2.4e-5);
}

TEST(LinkBer, LittleMarginLeftToTheCorrectionLimit) {
  TestNode n(shortWindows());
  Link l{n};
  l.ber = 5e-5;  // RS(544,514) corrects up to ~2.4e-4: less than a decade left
  l.setup();
  l.run(5);
  EXPECT_EQ(berFindings(n), std::vector<std::string>{"link_ber/margin/mlx5_0/1/eth0"});
  const Finding* f = finding(n, "margin");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NEAR(evidence(*f, "ber"), 5e-5, 1e-7);
  EXPECT_DOUBLE_EQ(evidence(*f, "correction_limit"), 2.4e-4);
  EXPECT_DOUBLE_EQ(evidence(*f, "lanes"), 4);
  EXPECT_NE(f->summary.find("RS(544,514)"), std::string::npos) << f->summary;
  // Back to normal: it clears.
  l.ber = 1e-8;
  l.run(90);
  EXPECT_TRUE(berFindings(n).empty());
}

TEST(LinkBer, TheFecDecidesTheLevel) {
  // 1e-5 leaves RS(544,514) more than a decade, RS(528,514) (limit 5e-5) less.
  for (const auto& [code, fires] : {std::pair{"RS(544,514)", false}, std::pair{"RS(528,514)", true}}) {
    TestNode n(shortWindows());
    Link l{n};
    l.ber = 1e-5;
    l.setup(code);
    l.run(10);
    EXPECT_EQ(!berFindings(n).empty(), fires) << code;
  }
}

TEST(LinkBer, WorstLaneNamedFromPerLaneCounts) {
  TestNode n(shortWindows());
  Link l{n};
  l.ber = 5e-5;
  l.setup();
  for (int s = 0; s < 5; ++s) {
    for (int lane = 0; lane < 4; ++lane) {
      n.add("ethtool_pfc", "fabricmon_phy_lane_corrected_bit_errors_total",
            {{"interface", "eth0"}, {"lane", std::to_string(lane)}}, lane == 2 ? 1e6 : 1e3);
    }
    l.run(1);
  }
  const Finding* f = finding(n, "margin");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(evidence(*f, "worst_lane"), 2);
  EXPECT_GT(evidence(*f, "worst_lane_ber"), 0);
}

TEST(LinkBer, UncorrectableCodewordsAreCritical) {
  TestNode n(shortWindows());
  Link l{n};
  l.setup();
  l.run(10);
  EXPECT_TRUE(berFindings(n).empty());
  n.add("fec", "fabricmon_fec_uncorrectable_blocks_total", {{"interface", "eth0"}}, 3);
  l.run(1);
  const Finding* f = finding(n, "uncorrectable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_EQ(evidence(*f, "uncorrectable_blocks"), 3);
  l.run(70);  // the window passes without more
  EXPECT_EQ(finding(n, "uncorrectable"), nullptr);
}

TEST(LinkBer, DegradingAgainstItsOwnBaseline) {
  TestNode n(shortWindows());
  Link l{n};
  l.ber = 1e-9;
  l.setup();
  l.run(9 * 60);
  l.ber = 5e-8;
  l.run(60);
  // At most 11 parts of 60 s are complete (the first one partial: the clock is not at a minute).
  EXPECT_TRUE(berFindings(n).empty()) << "baseline not learned yet (fewer than 12 parts)";
  l.ber = 1e-9;
  l.run(20 * 60);
  l.ber = 5e-8;  // 50x its baseline, still far from the margin
  l.run(60);
  EXPECT_EQ(berFindings(n), std::vector<std::string>{"link_ber/degrading/mlx5_0/1/eth0"});
  const Finding* f = finding(n, "degrading");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(evidence(*f, "baseline_ber"), 1e-9, 1e-10);
}

// A BER that rose and stays up is a link still degrading, not its new normal: the end's baseline
// stands still while the finding holds (baseline_hold), so the finding does not clear once the
// median would have followed the rise (here after ~12 of the 24-minute window's parts). Back under
// the clearing level it learns again. baseline_hold 0 learns the rise, as before the hold existed.
TEST(LinkBer, ADegradingLinkIsNotLearnedAsItsNormal) {
  for (const auto hold : {std::chrono::hours(168), std::chrono::hours(0)}) {
    WatchdogConfig c = shortWindows();
    c.rules.get<LinkBerRule>().baselineHold = hold;
    TestNode n(c);
    Link l{n};
    l.learnThenRise();
    ASSERT_EQ(berFindings(n), std::vector<std::string>{"link_ber/degrading/mlx5_0/1/eth0"}) << hold.count();
    l.run(40 * 60);  // longer than the baseline window
    const std::string baseline = R"(fabricmon_link_pre_fec_ber_baseline{interface="eth0"})";
    if (hold.count() > 0) {
      EXPECT_EQ(berFindings(n), std::vector<std::string>{"link_ber/degrading/mlx5_0/1/eth0"});
      EXPECT_NEAR(gauge(n, baseline), 1e-9, 1e-10) << "judged against the BER before the rise";
    } else {
      EXPECT_TRUE(berFindings(n).empty());
      EXPECT_NEAR(gauge(n, baseline), 5e-8, 5e-9) << "the rise learned as the normal";
    }
    l.ber = 4e-9;  // under half the trigger: clears, and is learned from then on
    l.run(6 * 60);  // the 60 s window, then clear_after
    EXPECT_TRUE(berFindings(n).empty()) << hold.count();
    l.run(40 * 60);
    EXPECT_NEAR(gauge(n, baseline), 4e-9, 4e-10) << hold.count() << ": released, learned again";
  }
}

// A link that went down and came back (an optic or cable swapped, a reseat) is judged afresh: a new
// optic that runs healthy at a few times the old one's BER is learned as the link's normal,
// instead of being held against the old baseline for baseline_hold.
TEST(LinkBer, ALinkThatWentDownAndCameBackEndsItsHold) {
  TestNode n(shortWindows());
  Link l{n};
  l.learnThenRise();
  ASSERT_EQ(berFindings(n), std::vector<std::string>{"link_ber/degrading/mlx5_0/1/eth0"});
  n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "1"}}, 1);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  for (int i = 0; i < 20; ++i) n.tick();  // swapped; the counters stand still
  n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "1"}}, 4);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 1);
  l.ber = 7e-9;  // 7x the old baseline: neither degrading (10x) nor clear (under 5x) against it
  l.run(40 * 60);
  EXPECT_TRUE(berFindings(n).empty()) << "the new optic's BER is learned as the link's normal";
  EXPECT_NEAR(gauge(n, R"(fabricmon_link_pre_fec_ber_baseline{interface="eth0"})"), 7e-9, 7e-10);
}

// Another module (a swapped optic: its serial number) is another normal, as for optics_degraded's
// light: a new optic that runs healthy at ten times the old one's BER is learned, neither judged
// against the old baseline nor held at it; the module before the restart is the state file's.
TEST(LinkBer, ASwappedModuleLearnsItsOwnBaseline) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto module = [](TestNode& n, const std::string& serial) {
    n.set("transceiver", "fabricmon_transceiver_info",
          {{"interface", "eth0"}, {"vendor", "ACME"}, {"part_number", "DR4"}, {"serial_number", serial}}, 1);
  };
  auto wall = std::chrono::system_clock::time_point{};
  {
    TestNode n(shortWindows());
    n.watchdog().useStateFile(path, std::chrono::minutes(5));
    Link l{n};
    l.ber = 1e-9;
    l.setup();
    module(n, "A1");
    l.run(30 * 60);
    n.watchdog().flushState();
    wall = n.wall();
  }
  for (const std::string serial : {"A1", "B7"}) {
    TestNode n(shortWindows());
    n.restartAfter(wall, 60, path);
    Link l{n};
    l.ber = 2e-8;  // 20x the baseline A1 learned
    l.setup();
    module(n, serial);
    l.run(3 * 60);
    EXPECT_EQ(finding(n, "degrading") != nullptr, serial == "A1") << serial;
    l.run(30 * 60);
    EXPECT_EQ(finding(n, "degrading") != nullptr, serial == "A1") << serial << ": held against A1's, or learned";
  }
}

// An optic swapped while the daemon runs: its BER is learned afresh, and the old optic's degrading
// finding clears with it instead of holding, unjudged, through the half day the new one learns.
TEST(LinkBer, AnOpticSwappedWhileRunningClearsTheFindingOfTheOneBefore) {
  TestNode n(shortWindows());
  Link l{n};
  auto module = [&](const std::string& serial) {
    n.set("transceiver", "fabricmon_transceiver_info",
          {{"interface", "eth0"}, {"vendor", "ACME"}, {"part_number", "DR4"}, {"serial_number", serial}}, 1);
  };
  module("A1");
  l.learnThenRise();
  l.run(60);
  ASSERT_EQ(berFindings(n), std::vector<std::string>{"link_ber/degrading/mlx5_0/1/eth0"});
  n.drop("transceiver", "serial_number", "A1");
  module("B7");
  l.ber = 3e-8;  // the new optic: 30x the old one's, healthy
  l.run(6 * 60);
  EXPECT_TRUE(berFindings(n).empty()) << "the old optic's finding";
  l.run(30 * 60);
  EXPECT_TRUE(berFindings(n).empty());
  EXPECT_NEAR(gauge(n, R"(fabricmon_link_pre_fec_ber_baseline{interface="eth0"})"), 3e-8, 3e-9);
}

// The received-bytes counter unread at one poll of every minute (a flaky read): the interval
// after it has no start for its bits, and is counted by the line rate instead, never as every bit
// received since start (that would read as a BER near 0 in every part, and the baseline with them).
TEST(LinkBer, ABaselineIsNotLoweredByPollsWithoutTheReceivedBytes) {
  TestNode n(shortWindows());
  Link l{n};
  l.setup();
  for (int minute = 0; minute < 30; ++minute) {
    l.run(59);
    n.setUnread("ethtool_pfc", "interface", "eth0", true, "fabricmon_phy_received_bytes_total");
    l.run(1);
    n.setUnread("ethtool_pfc", "interface", "eth0", false, "fabricmon_phy_received_bytes_total");
  }
  l.run(1);
  EXPECT_TRUE(berFindings(n).empty());
  EXPECT_NEAR(gauge(n, R"(fabricmon_link_pre_fec_ber_baseline{interface="eth0"})"), 1e-8, 1e-9);
}

TEST(LinkBer, ModuleSwapResettingTheCountersIsSilent) {
  TestNode n(shortWindows());
  Link l{n};
  l.setup();
  l.run(25 * 60);
  // The new module: the NIC restarts its PHY counters from 0.
  n.set("ethtool_pfc", "fabricmon_phy_corrected_bit_errors_total", {{"interface", "eth0"}}, 0);
  n.set("ethtool_pfc", "fabricmon_phy_received_bytes_total", {{"interface", "eth0"}}, 0);
  n.set("fec", "fabricmon_fec_uncorrectable_blocks_total", {{"interface", "eth0"}}, 0);
  l.run(10 * 60);
  EXPECT_TRUE(berFindings(n).empty());
}

TEST(LinkBer, ManagementPortsAreLeftAlone) {
  TestNode n(shortWindows());
  Link l{n};
  l.ber = 5e-5;
  l.setup();
  n.set("port_topology", "fabricmon_port_topology_info",
        {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "eth0"}, {"role", "management"}, {"rail", ""}}, 1);
  l.run(10);
  EXPECT_TRUE(berFindings(n).empty());
}

// ---- coverage: the ports whose pre-FEC margin is not judged ----

std::string unjudgedKey(const std::string& dev, const std::string& iface, const std::string& why) {
  return "fabricmon_watchdog_link_ber_unjudged_info{device=\"" + dev + "\",port=\"1\",interface=\"" + iface +
         "\",why=\"" + why + "\"}";
}

/// Every fabricmon_watchdog_link_ber_unjudged_info series of the watchdog's batch, by key.
std::vector<std::string> unjudged(TestNode& n) {
  std::vector<std::string> out;
  for (const auto& s : n.watchdog().metricsBatch()->samples) {
    if (s.series->family->name == "fabricmon_watchdog_link_ber_unjudged_info") {
      EXPECT_EQ(s.value, 1) << s.series->key;
      out.push_back(s.series->key);
    }
  }
  return out;
}

/// Whether link_ber judged the interface's margin at the latest pass (it exports the BER it judged).
bool berJudged(TestNode& n, const std::string& iface) {
  return gauge(n, "fabricmon_link_pre_fec_ber{interface=\"" + iface + "\"}") >= 0;
}

TEST(LinkBerCoverage, APortWithoutFecCountersIsListedOnceSettledAndAJudgedOneIsNot) {
  TestNode n(shortWindows());
  Link judged{n};
  judged.setup();
  healthyRoce(n, "ionic_0", "enp1s0");  // ionic: the driver reports no FEC statistics
  judged.run(60);                       // the first pass saw both ports: 59 s ago
  EXPECT_TRUE(unjudged(n).empty()) << "a port seen for less than 60 s may not have its FEC counters yet";
  judged.run(1);
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("ionic_0", "enp1s0", "no_fec_counters")});
  EXPECT_TRUE(berJudged(n, "eth0"));
  EXPECT_FALSE(berJudged(n, "enp1s0"));
  EXPECT_TRUE(berFindings(n).empty());

  // Its counters appear (a driver update): judged, and no longer listed.
  n.set("ethtool_pfc", "fabricmon_phy_corrected_bit_errors_total", {{"interface", "enp1s0"}}, 0);
  n.set("ethtool_pfc", "fabricmon_phy_received_bytes_total", {{"interface", "enp1s0"}}, 0);
  for (int i = 0; i < 3; ++i) {
    n.add("ethtool_pfc", "fabricmon_phy_received_bytes_total", {{"interface", "enp1s0"}}, k400GBytes);
    n.tick();
  }
  EXPECT_TRUE(berJudged(n, "enp1s0"));
  EXPECT_TRUE(unjudged(n).empty());

  // The counters go (a FEC read failing for good is forgotten after 20 minutes as well): listed again.
  n.drop("ethtool_pfc", "interface", "enp1s0");
  n.tick();
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("ionic_0", "enp1s0", "no_fec_counters")});
  // The device goes: its series goes with it.
  for (const char* c : {"rdma_port", "netdev_link", "dcb_config", "dcqcn_config", "ethtool_pfc"}) {
    n.drop(c, "device", "ionic_0");
    n.drop(c, "interface", "enp1s0");
  }
  n.tick();
  EXPECT_TRUE(unjudged(n).empty());
}

TEST(LinkBerCoverage, EachReasonTheMarginIsNotJudged) {
  struct Case {
    std::string why;
    void (*setup)(TestNode&, const std::string& iface);
  };
  const std::vector<Case> cases = {
      {"no_corrected_counts",
       [](TestNode& n, const std::string& i) {
         n.set("fec", "fabricmon_fec_uncorrectable_blocks_total", {{"interface", i}}, 0);
       }},
      {"fec_off",
       [](TestNode& n, const std::string& i) {
         n.set("fec", "fabricmon_fec_info", {{"interface", i}, {"mode", "off"}, {"code", "none"}}, 1);
         n.set("fec", "fabricmon_fec_corrected_blocks_total", {{"interface", i}}, 0);
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.why);
    TestNode n(shortWindows());
    healthyRoce(n, "mlx5_0", "eth0");
    c.setup(n, "eth0");
    for (int i = 0; i < 61; ++i) n.tick();
    EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("mlx5_0", "eth0", c.why)});
    if (c.why != "fec_off") continue;
    // With the FEC off, whatever the corrected codewords say, no margin is judged.
    n.set("fec", "fabricmon_link_speed_bytes_per_second", {{"interface", "eth0"}}, k400GBytes);
    for (int i = 0; i < 10; ++i) {
      n.add("fec", "fabricmon_fec_corrected_blocks_total", {{"interface", "eth0"}}, 1e-4 * k400GBytes * 8);
      n.tick();
    }
    EXPECT_EQ(finding(n, "margin"), nullptr);
  }

  // Corrected codewords with neither a received-bytes counter nor any line rate: no denominator.
  TestNode n(shortWindows());
  n.set("rdma_port", "fabricmon_port_info",
        {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "eth0"}, {"link_layer", "Ethernet"}, {"rate", ""}}, 1);
  n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "1"}}, 4);
  n.set("fec", "fabricmon_fec_info", {{"interface", "eth0"}, {"mode", "rs"}, {"code", "RS(544,514)"}}, 1);
  n.set("fec", "fabricmon_fec_corrected_blocks_total", {{"interface", "eth0"}}, 0);
  n.tick();
  // A received-bytes counter read at other instants than the codewords (another collector) is no
  // denominator either: the two are not one NIC read.
  n.set("ethtool_pfc", "fabricmon_phy_received_bytes_total", {{"interface", "eth0"}}, 0);
  for (int i = 0; i < 61; ++i) {
    n.add("ethtool_pfc", "fabricmon_phy_received_bytes_total", {{"interface", "eth0"}}, k400GBytes / 2);
    n.tickOne(0.5, "ethtool_pfc");
    n.tickOne(0.5, "fec");
  }
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("mlx5_0", "eth0", "no_bit_count")});
  EXPECT_FALSE(berJudged(n, "eth0"));
  // The line rate arrives: the BER has its bits.
  n.set("fec", "fabricmon_link_speed_bytes_per_second", {{"interface", "eth0"}}, k400GBytes);
  n.tickOne(0.5, "ethtool_pfc");
  n.tickOne(0.5, "fec");
  EXPECT_TRUE(berJudged(n, "eth0"));
  EXPECT_TRUE(unjudged(n).empty());
}

// A link that is down has no margin to judge, and its FEC may read "off" meanwhile: what was listed
// (here: nothing) stays until it is up again.
TEST(LinkBerCoverage, ALinkThatIsDownKeepsWhatWasListed) {
  TestNode n(shortWindows());
  Link l{n};
  l.setup();
  l.run(61);
  EXPECT_TRUE(unjudged(n).empty());
  n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "1"}}, 1);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  n.set("fec", "fabricmon_fec_info", {{"interface", "eth0"}, {"mode", "rs"}, {"code", "RS(544,514)"}}, 0);
  n.set("fec", "fabricmon_fec_info", {{"interface", "eth0"}, {"mode", "off"}, {"code", "none"}}, 1);
  n.drop("fec", "code", "RS(544,514)");
  for (int i = 0; i < 30; ++i) n.tick();
  EXPECT_TRUE(unjudged(n).empty());
  // Up again with its FEC off for real: listed.
  n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "1"}}, 4);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 1);
  l.run(1);
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("mlx5_0", "eth0", "fec_off")});
  // Down again: still listed as it was.
  n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "1"}}, 1);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  for (int i = 0; i < 30; ++i) n.tick();
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("mlx5_0", "eth0", "fec_off")});
}

// A port whose interface is renamed (or named late) waits its 60 s again: the new interface's
// counters come from the next runs of their collectors.
TEST(LinkBerCoverage, ARenamedInterfaceWaitsAgain) {
  TestNode n(shortWindows());
  healthyRoce(n, "ionic_0", "enp1s0");
  for (int i = 0; i < 61; ++i) n.tick();
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("ionic_0", "enp1s0", "no_fec_counters")});
  n.drop("rdma_port", "device", "ionic_0", "fabricmon_port_info");
  n.set("rdma_port", "fabricmon_port_info",
        {{"device", "ionic_0"}, {"port", "1"}, {"interface", "rdma0"}, {"link_layer", "Ethernet"}, {"rate", "400"}}, 1);
  for (int i = 0; i < 60; ++i) n.tick();  // the first of them sees the new name
  EXPECT_TRUE(unjudged(n).empty());
  n.tick();
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("ionic_0", "rdma0", "no_fec_counters")});
}

TEST(LinkBerCoverage, AnInfinibandPortAndAManagementPort) {
  TestNode n(shortWindows());
  n.set("rdma_port", "fabricmon_port_info",
        {{"device", "mlx5_8"}, {"port", "1"}, {"interface", ""}, {"link_layer", "InfiniBand"}, {"rate", "400"}}, 1);
  n.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_8"}, {"port", "1"}}, 4);
  healthyRoce(n, "mlx5_9", "eno1");
  n.set("port_topology", "fabricmon_port_topology_info",
        {{"device", "mlx5_9"}, {"port", "1"}, {"interface", "eno1"}, {"role", "management"}, {"rail", ""}}, 1);
  for (int i = 0; i < 61; ++i) n.tick();
  // fabricmon reads no PHY counters of an InfiniBand port; the management port is no rule's input.
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("mlx5_8", "", "no_fec_counters")});
}

// ---- an InfiniBand link: both ends' FEC over MADs (peer_port) ----

/// A 4X NDR InfiniBand port mlx5_8/1 (400 Gb/s) whose own PMA and whose neighbour's answer
/// PortExtendedSpeedsCounters with the RS-FEC layout; `localBer` / `peerBer` of the bits each end
/// receives are corrected (one RS symbol per bit error at these rates).
struct IbLink {
  TestNode& n;
  double localBer = 1e-8, peerBer = 1e-8;
  double localUncorrectable = 0;  ///< per second
  const Labels port{{"device", "mlx5_8"}, {"port", "1"}};

  void setup() {
    n.set("rdma_port", "fabricmon_port_info",
          {{"device", "mlx5_8"}, {"port", "1"}, {"interface", "ib0"}, {"link_layer", "InfiniBand"}, {"rate", "400"}}, 1);
    n.set("rdma_port", "fabricmon_port_state", port, 4);
    n.set("rdma_port", "fabricmon_port_physical_state", port, 5);
    n.set("rdma_port", "fabricmon_port_rate_bytes_per_second", port, k400GBytes);
    n.set("peer_port", "fabricmon_port_link_width_active_lanes", port, 4);
    for (const char* side : {"fabricmon_port_", "fabricmon_peer_port_"}) {
      Labels info = port;
      info.emplace_back("mode", "rs2");
      info.emplace_back("code", "RS(544,514)");
      n.set("peer_port", std::string(side) + "fec_info", info, 1);
      n.set("peer_port", std::string(side) + "fec_corrected_symbols_total", port, 0);
      n.set("peer_port", std::string(side) + "fec_corrected_blocks_total", port, 0);
      n.set("peer_port", std::string(side) + "fec_uncorrectable_blocks_total", port, 0);
    }
  }
  void run(int seconds) {
    for (int i = 0; i < seconds; ++i) {
      n.add("peer_port", "fabricmon_port_fec_corrected_symbols_total", port, localBer * k400GBytes * 8);
      n.add("peer_port", "fabricmon_peer_port_fec_corrected_symbols_total", port, peerBer * k400GBytes * 8);
      n.add("peer_port", "fabricmon_port_fec_uncorrectable_blocks_total", port, localUncorrectable);
      n.tick();
    }
  }
};

std::string ibGauge(const std::string& side) {
  return "fabricmon_port_pre_fec_ber{device=\"mlx5_8\",port=\"1\",side=\"" + side + "\"}";
}

TEST(LinkBer, BothEndsOfAnInfinibandLinkAreJudgedEachWithItsSide) {
  TestNode n(shortWindows());
  IbLink l{n};
  l.peerBer = 5e-5;  // the switch's receiver: less than a decade from RS(544,514)'s limit
  l.setup();
  l.run(61);
  const Finding* f = finding(n, "margin");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(labelOf(*f, "side"), "peer");
  EXPECT_EQ(labelOf(*f, "device"), "mlx5_8");
  EXPECT_EQ(berFindings(n).size(), 1u) << "the local end is healthy";
  EXPECT_NEAR(evidence(*f, "ber"), 5e-5, 1e-7);
  EXPECT_DOUBLE_EQ(evidence(*f, "correction_limit"), 2.4e-4);
  EXPECT_DOUBLE_EQ(evidence(*f, "lanes"), 4);
  EXPECT_DOUBLE_EQ(evidence(*f, "approximated"), 1) << "RS symbols, not bits";
  EXPECT_NE(f->summary.find("neighbour"), std::string::npos) << f->summary;
  EXPECT_NEAR(gauge(n, ibGauge("peer")), 5e-5, 1e-7);
  EXPECT_NEAR(gauge(n, ibGauge("local")), 1e-8, 1e-10);
  EXPECT_TRUE(unjudged(n).empty()) << "the port's margin is judged";

  // Frames lost after the FEC at our end: critical, side local.
  l.localUncorrectable = 1;
  l.run(10);
  const Finding* u = finding(n, "uncorrectable");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->severity, Severity::kCritical);
  EXPECT_EQ(labelOf(*u, "side"), "local");
}

TEST(LinkBer, AnInfinibandLinksFecModeDecidesTheLevelAndNoFecIsListed) {
  TestNode n(shortWindows());
  IbLink l{n};
  l.localBer = 2e-5;  // within a decade of RS(528,514)'s limit (5e-5), more than one under RS(544,514)'s
  l.setup();
  Labels info = l.port;
  info.emplace_back("mode", "rs");
  info.emplace_back("code", "RS(528,514)");
  n.drop("peer_port", "mode", "rs2", "fabricmon_port_fec_info");
  n.set("peer_port", "fabricmon_port_fec_info", info, 1);
  l.run(61);
  const Finding* f = finding(n, "margin");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(labelOf(*f, "side"), "local");
  EXPECT_NE(f->summary.find("RS(528,514)"), std::string::npos) << f->summary;

  // No FEC on the local end: peer_port reads no counters of it, and the port says why.
  Labels none = l.port;
  none.emplace_back("mode", "none");
  none.emplace_back("code", "none");
  n.drop("peer_port", "mode", "rs", "fabricmon_port_fec_info");
  n.set("peer_port", "fabricmon_port_fec_info", none, 1);
  for (const char* fam : {"fabricmon_port_fec_corrected_symbols_total", "fabricmon_port_fec_corrected_blocks_total",
                          "fabricmon_port_fec_uncorrectable_blocks_total"}) {
    n.drop("peer_port", "device", "mlx5_8", fam);
  }
  for (int i = 0; i < 5; ++i) n.tick();  // (l.run would feed the local counters again)
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("mlx5_8", "ib0", "fec_off")});
}

// An InfiniBand end has no received-bit count: its bits are the port's rate over the time. The
// interval across an outage is not learned, or the part of the day the link came back in would
// take the outage's time as bits carried and read a BER ten times too low.
TEST(LinkBer, AnOutageIsNotLearnedIntoTheBaseline) {
  WatchdogConfig c = shortWindows();
  c.rules.get<LinkBerRule>().baselineMinParts = 1;
  TestNode n(c);
  IbLink l{n};
  l.localBer = 1e-6;
  l.setup();
  l.run(30);  // one part of the day (60 s parts)
  n.set("rdma_port", "fabricmon_port_state", l.port, 1);
  n.set("rdma_port", "fabricmon_port_physical_state", l.port, 2);
  for (int i = 0; i < 600; ++i) n.tick();  // down; the FEC counters stand still
  n.set("rdma_port", "fabricmon_port_state", l.port, 4);
  n.set("rdma_port", "fabricmon_port_physical_state", l.port, 5);
  l.run(20);  // back, into the next part
  const std::string baseline = R"(fabricmon_port_pre_fec_ber_baseline{device="mlx5_8",port="1",side="local"})";
  EXPECT_NEAR(gauge(n, baseline), 1e-6, 2e-7) << "the part the link came back in reads its own BER";
}

// PMA counters saturate (IBA 16.1.4): a 32-bit FEC counter at its maximum no longer says how many
// errors there were, so it is not read as a BER of 0.
TEST(LinkBer, ASaturatedFecCounterIsListedNotReadAsHealthy) {
  TestNode n(shortWindows());
  IbLink l{n};
  l.localBer = 5e-5;
  l.setup();
  l.run(61);
  ASSERT_NE(finding(n, "margin"), nullptr);
  n.set("peer_port", "fabricmon_port_fec_corrected_symbols_total", l.port, 4294967295.0);
  l.localBer = 0;  // the counter no longer moves
  for (int i = 0; i < 70; ++i) {
    n.set("peer_port", "fabricmon_port_fec_corrected_symbols_total", l.port, 4294967295.0);
    n.tick();
  }
  EXPECT_LT(gauge(n, ibGauge("local")), 0) << "no BER exported";
  EXPECT_NE(finding(n, "margin"), nullptr) << "the margin finding is held, not cleared by a counter that stopped";
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("mlx5_8", "ib0", "counter_saturated")});
  // The link goes down, and its FEC series, held while it is down, are let go at last: the port
  // keeps what it had, it is not an end without FEC counters.
  n.set("rdma_port", "fabricmon_port_state", l.port, 1);
  n.set("rdma_port", "fabricmon_port_physical_state", l.port, 2);
  for (const char* fam : {"fabricmon_port_fec_corrected_symbols_total", "fabricmon_port_fec_corrected_blocks_total",
                          "fabricmon_port_fec_uncorrectable_blocks_total", "fabricmon_port_fec_info",
                          "fabricmon_peer_port_fec_corrected_symbols_total", "fabricmon_peer_port_fec_corrected_blocks_total",
                          "fabricmon_peer_port_fec_uncorrectable_blocks_total", "fabricmon_peer_port_fec_info"}) {
    n.drop("peer_port", "device", "mlx5_8", fam);
  }
  for (int i = 0; i < 5; ++i) n.tick();
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("mlx5_8", "ib0", "counter_saturated")});
}

TEST(LinkBerCoverage, ARuleSwitchedOffListsNothingAndWaitsAgainWhenBackOn) {
  WatchdogConfig off = shortWindows();
  off.rules.get<LinkBerRule>().enabled = false;
  TestNode n(shortWindows());
  healthyRoce(n, "ionic_0", "enp1s0");
  for (int i = 0; i < 61; ++i) n.tick();
  EXPECT_EQ(unjudged(n).size(), 1u);
  n.watchdog().reconfigure(off, QosConfig{});
  n.tick();
  EXPECT_TRUE(unjudged(n).empty());
  n.watchdog().reconfigure(shortWindows(), QosConfig{});
  for (int i = 0; i < 30; ++i) n.tick();
  EXPECT_TRUE(unjudged(n).empty()) << "switched on again, the rule waits its 60 s again";
  for (int i = 0; i < 31; ++i) n.tick();
  EXPECT_EQ(unjudged(n), std::vector<std::string>{unjudgedKey("ionic_0", "enp1s0", "no_fec_counters")});
}

// ---- the state file ----

TEST(StateFile, WritesAtomicallyAndReadsBack) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto none = watchdog::readStateFile(path);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(watchdog::writeStateFile(path, {{"rules", {{"x", 1}}}}));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto doc = watchdog::readStateFile(path);
  ASSERT_TRUE(doc && doc->has_value());
  EXPECT_EQ((**doc)["version"], watchdog::kStateVersion);
  EXPECT_EQ((**doc)["rules"]["x"], 1);
}

TEST(StateFile, CorruptOrForeignFilesAreRefused) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  for (const char* text : {"", "{", "[1,2]", R"({"rules":{}})", R"({"version":99})", R"({"version":"1"})"}) {
    dir.write("state.json", text);
    EXPECT_FALSE(watchdog::readStateFile(path)) << text;
  }
  std::filesystem::create_directory(dir.path() / "adir");
  EXPECT_FALSE(watchdog::readStateFile((dir.path() / "adir").string()));
}

TEST(StateFile, AWriteThatStallsDoesNotHoldTheStopPastItsDeadline) {
  // SIGTERM must end the daemon within 2 s; the last write fsyncs, and a disk can stall it. A FIFO
  // where the temporary file goes blocks the write in open() until someone reads it.
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  const std::string tmp = path + ".tmp";
  ASSERT_EQ(::mkfifo(tmp.c_str(), 0600), 0);
  TestNode a(shortWindows());
  a.watchdog().useStateFile(path, std::chrono::hours(1));
  Link l{a};
  l.setup();
  l.run(5);
  EXPECT_FALSE(a.watchdog().flushState(std::chrono::steady_clock::now() + std::chrono::milliseconds(100)));
  EXPECT_FALSE(std::filesystem::exists(path));
  // Let the left-behind write go (it fails on the FIFO and removes it), so no thread outlives the test.
  const int reader = ::open(tmp.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  char buf[4096];
  for (int i = 0; i < 500 && std::filesystem::exists(tmp); ++i) {
    while (::read(reader, buf, sizeof buf) > 0) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::close(reader);
  EXPECT_FALSE(std::filesystem::exists(tmp));
  // An unstalled disk: the write finishes and the file is there.
  EXPECT_TRUE(a.watchdog().flushState(std::chrono::steady_clock::now() + std::chrono::seconds(30)));
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(StateFile, BaselineSurvivesARestart) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto wall = std::chrono::system_clock::time_point{};
  {
    TestNode a(shortWindows());
    a.watchdog().useStateFile(path, std::chrono::minutes(5));
    Link l{a};
    l.ber = 1e-9;
    l.setup();
    l.run(20 * 60);
    a.watchdog().flushState();
    wall = a.wall();
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  // A new process a minute later: the BER jumped while it was down. With the file, the day's
  // baseline is there at once; without, the jump would be learned as the new normal.
  for (bool withState : {true, false}) {
    TestNode b(shortWindows());
    b.restartAfter(wall, 60, withState ? path : std::string());
    Link l{b};
    l.ber = 5e-8;
    l.setup();
    l.run(30);
    EXPECT_EQ(!berFindings(b).empty(), withState) << (withState ? "with" : "without") << " the state file";
  }
}

// The layout link_ber has written since its baseline first outlived restarts, by hand: a file of an
// earlier version of fabricmon must still bring its baseline back.
// A baseline learned with another baseline_window (parts of another width) is no baseline: it is
// not shown, even while the link is down and nothing new is learned.
TEST(StateFile, ABaselineOfAnotherPartWidthIsNotShownWhileTheLinkIsDown) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto wall = std::chrono::system_clock::time_point{};
  {
    TestNode a(shortWindows());  // parts of 60 s
    a.watchdog().useStateFile(path, std::chrono::minutes(5));
    Link l{a};
    l.ber = 1e-9;
    l.setup();
    l.run(20 * 60);
    EXPECT_GT(gauge(a, R"(fabricmon_link_pre_fec_ber_baseline{interface="eth0"})"), 0);
    a.watchdog().flushState();
    wall = a.wall();
  }
  WatchdogConfig hours = shortWindows();
  hours.rules.get<LinkBerRule>().baselineWindow = std::chrono::hours(48);  // parts of 2 h
  TestNode b(hours);
  b.restartAfter(wall, 60, path);
  Link l{b};
  l.setup();
  b.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "1"}}, 1);
  b.set("netdev_link", "fabricmon_netdev_up", {{"interface", "eth0"}}, 0);
  l.run(5);
  EXPECT_LT(gauge(b, R"(fabricmon_link_pre_fec_ber_baseline{interface="eth0"})"), 0);
}

TEST(StateFile, ALinkBerBaselineInTheLayoutOfEarlierVersionsIsRead) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  TestNode b(shortWindows());
  b.tick(1);
  const int64_t part = std::chrono::duration_cast<std::chrono::seconds>(b.wall().time_since_epoch()).count() / 60;
  nlohmann::json parts = nlohmann::json::array();
  const double bits = 400e9 * 60;  // a minute of a 400G link
  for (int64_t k = 1; k <= 13; ++k) parts.push_back({part - k, 1e-9 * bits, bits});
  const nlohmann::json doc = {{"version", 1},
                              {"rules", {{"link_ber", {{"eth0", {{"part_seconds", 60}, {"parts", parts}}}}}}}};
  std::ofstream(path) << doc.dump(1);
  b.watchdog().useStateFile(path, std::chrono::minutes(5));
  Link l{b};
  l.ber = 5e-8;  // 50x the file's 1e-9
  l.setup();
  l.run(30);
  EXPECT_FALSE(berFindings(b).empty()) << "the baseline from the file is what the BER is measured against";
}

TEST(StateFile, RecurrenceSurvivesARestart) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto wall = std::chrono::system_clock::time_point{};
  auto flapUncorrectable = [](TestNode& n, Link& l) {
    n.add("fec", "fabricmon_fec_uncorrectable_blocks_total", {{"interface", "eth0"}}, 1);
    l.run(1);
    EXPECT_NE(finding(n, "uncorrectable"), nullptr);
    l.run(70);
    EXPECT_EQ(finding(n, "uncorrectable"), nullptr);
  };
  {
    TestNode a(shortWindows());
    a.watchdog().useStateFile(path, std::chrono::minutes(5));
    Link l{a};
    l.setup();
    l.run(5);
    flapUncorrectable(a, l);
    flapUncorrectable(a, l);
    a.watchdog().flushState();
    wall = a.wall();
  }
  TestNode b(shortWindows());
  b.restartAfter(wall, 30, path);
  Link l{b};
  l.setup();
  l.run(5);
  b.add("fec", "fabricmon_fec_uncorrectable_blocks_total", {{"interface", "eth0"}}, 1);
  l.run(1);
  const Finding* f = finding(b, "uncorrectable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(labelOf(*f, "recurring"), "true") << "the third start within the hour, across the restart";
}

// A finding that was up when the daemon stopped and is up again right after the restart is one
// episode, not the fault reset and back: it is no recurrence. One that clears and starts again is.
TEST(StateFile, AFindingUpAcrossARestartIsNotARecurrence) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  auto wall = std::chrono::system_clock::time_point{};
  auto uncorrectable = [](TestNode& n, Link& l) {
    n.add("fec", "fabricmon_fec_uncorrectable_blocks_total", {{"interface", "eth0"}}, 1);
    l.run(1);
  };
  {
    TestNode a(shortWindows());
    a.watchdog().useStateFile(path, std::chrono::minutes(5));
    Link l{a};
    l.setup();
    l.run(5);
    uncorrectable(a, l);
    l.run(70);
    ASSERT_EQ(finding(a, "uncorrectable"), nullptr);
    uncorrectable(a, l);  // the second start: up when the daemon stops
    ASSERT_NE(finding(a, "uncorrectable"), nullptr);
    a.watchdog().flushState();
    wall = a.wall();
  }
  TestNode b(shortWindows());
  b.restartAfter(wall, 30, path);
  Link l{b};
  l.setup();
  l.run(5);
  uncorrectable(b, l);
  const Finding* f = finding(b, "uncorrectable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(labelOf(*f, "recurring"), "") << "the finding of the process before, still up";
  l.run(70);
  ASSERT_EQ(finding(b, "uncorrectable"), nullptr);
  uncorrectable(b, l);
  f = finding(b, "uncorrectable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(labelOf(*f, "recurring"), "true") << "the third start within the hour";
}

TEST(StateFile, AnUnreadableFileIsIgnoredAndReplaced) {
  TempDir dir;
  const std::string path = (dir.path() / "state.json").string();
  dir.write("state.json", "not json at all");
  TestNode n(shortWindows());
  n.watchdog().useStateFile(path, std::chrono::seconds(10));
  Link l{n};
  l.setup();
  l.run(15);  // written after 10 s
  auto doc = watchdog::readStateFile(path);
  ASSERT_TRUE(doc) << doc.error().message;
  ASSERT_TRUE(doc->has_value());
  EXPECT_TRUE((**doc)["rules"].contains("link_ber"));
}

}  // namespace
}  // namespace fabricmon::testing
