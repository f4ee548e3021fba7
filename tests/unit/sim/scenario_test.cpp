// Each scenario moves exactly the counters it should on the affected port, and leaves every other
// port healthy. Time is driven by tick(), never by sleeping.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "sim/scenario.hpp"
#include "sim/simulator.hpp"
#include "sim_test_util.hpp"

namespace fabricmon::sim {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::delta;
using test::readTrimmed;
using test::snapshot;
using test::Snapshot;
using test::TempDir;

constexpr double kLineBytes400G = 400e9 / 8;
constexpr double kSeconds = 30;

/// Δ of one counter between two snapshots, for port `dev` / interface `ifc`.
struct Window {
  const Snapshot& before;
  const Snapshot& after;
  std::string dev, ifc;
  double pma(const std::string& n) const { return delta(before, after, dev + "/counters/" + n); }
  double hw(const std::string& n) const { return delta(before, after, dev + "/hw_counters/" + n); }
  double eth(const std::string& n) const { return delta(before, after, ifc + "/ethtool/" + n); }
  double net(const std::string& n) const { return delta(before, after, ifc + "/" + n); }
  double pauseShare(const char* dir) const {
    return eth(std::string(dir) + "_prio3_pause_duration") / (kSeconds * 1e6);
  }
};

/// The count of line `name` in an aer_dev_* file ("TOTAL_ERR_COR 12"); -1 when absent.
double aerCount(const fs::path& file, const std::string& name) {
  std::ifstream in(file);
  std::string n;
  double v = 0;
  while (in >> n >> v) {
    if (n == name) return v;
  }
  return -1;
}

/// What a healthy RoCE port looks like over the window: busy, no pause, no ECN, no errors.
void expectHealthyRoce(const Window& w, double lineBytes = kLineBytes400G) {
  SCOPED_TRACE("healthy " + w.dev);
  for (const char* n :
       {"rx_prio3_pause", "rx_prio3_pause_duration", "tx_prio3_pause", "tx_prio3_pause_duration",
        "rx_prio3_marked", "rx_symbol_err_phy", "rx_crc_errors_phy", "link_down_events_phy",
        "tx_pause_storm_warning_events", "rx_prio3_discards", "rx_discards_phy"}) {
    EXPECT_EQ(w.eth(n), 0) << n;
  }
  for (const char* n :
       {"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
        "out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "roce_adp_retrans"}) {
    EXPECT_EQ(w.hw(n), 0) << n;
  }
  for (const char* n : {"symbol_error", "link_error_recovery", "link_downed", "port_rcv_errors",
                        "port_xmit_wait"}) {
    EXPECT_EQ(w.pma(n), 0) << n;
  }
  EXPECT_EQ(w.net("carrier_changes"), 0);
  // 60-80 % of line rate of RDMA traffic (with ±7 % jitter), the same in PMA words and ethtool
  // bytes.
  const double txShare = w.pma("port_xmit_data") * 4 / kSeconds / lineBytes;
  EXPECT_GT(txShare, 0.55);
  EXPECT_LT(txShare, 0.86);
  EXPECT_NEAR(w.eth("tx_prio3_bytes") / (w.pma("port_xmit_data") * 4), 1.0, 0.01);
  const double avgPacket = w.eth("rx_prio3_bytes") / w.eth("rx_prio3_packets");
  EXPECT_NEAR(avgPacket, 4158, 1);
  EXPECT_GT(w.eth("rx_corrected_bits_phy"), 0) << "FEC always corrects something";
  EXPECT_NEAR(w.eth("rx_bits_phy") / kSeconds, lineBytes * 8, 1e6);
}

/// A counter of the FEC file (`DIR/fec/<ifc>`, "name: value" lines); -1 when absent.
double fecCounter(const fs::path& sys, const std::string& ifc, const std::string& name) {
  std::istringstream in(readTrimmed(sys.parent_path() / "fec" / ifc));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + ": ", 0) == 0) return std::stod(line.substr(name.size() + 2));
  }
  return -1;
}

struct ScenarioCase {
  std::string_view name;
  std::function<void(const Window& affected, const fs::path& sys)> check;
};

const ScenarioCase kCases[] = {
    {"healthy", [](const Window& w, const fs::path&) { expectHealthyRoce(w); }},
    {"busy-pause",
     [](const Window& w, const fs::path&) {
       EXPECT_GT(w.hw("np_ecn_marked_roce_packets"), 0);
       EXPECT_GT(w.hw("np_cnp_sent"), 0);
       EXPECT_GT(w.eth("tx_prio3_packets"), 0) << "paused half the time, yet moving";
       EXPECT_GE(w.pauseShare("rx"), 0.45);
       EXPECT_LE(w.pauseShare("rx"), 0.55);
     }},
    {"congested",
     [](const Window& w, const fs::path&) {
       EXPECT_GT(w.hw("np_ecn_marked_roce_packets"), 1000 * kSeconds);
       EXPECT_EQ(w.hw("np_ecn_marked_roce_packets"), w.eth("rx_prio3_marked"));
       EXPECT_GT(w.hw("np_cnp_sent"), 0);
       EXPECT_LT(w.hw("np_cnp_sent"), w.hw("np_ecn_marked_roce_packets") * 0.1);
       EXPECT_GT(w.hw("rp_cnp_handled"), 0);
       EXPECT_EQ(w.hw("rp_cnp_ignored"), 0);
       EXPECT_GT(w.eth("tx_prio6_packets"), 0) << "CNPs go out on priority 6";
       for (const char* dir : {"rx", "tx"}) {
         EXPECT_GE(w.pauseShare(dir), 0.02) << dir;
         EXPECT_LE(w.pauseShare(dir), 0.05) << dir;
       }
       EXPECT_GT(w.eth("rx_prio3_pause"), 0);
       EXPECT_GT(w.eth("rx_prio3_pause_transition"), 0);
       EXPECT_GT(w.eth("tx_prio3_bytes") / kSeconds, 0.5 * kLineBytes400G)
           << "traffic still flowing";
       EXPECT_EQ(w.eth("tx_pause_storm_warning_events"), 0);
     }},
    {"pause-storm",
     [](const Window& w, const fs::path&) {
       EXPECT_GE(w.pauseShare("rx"), 0.995);
       EXPECT_LE(w.pauseShare("rx"), 1.0);
       EXPECT_GT(w.eth("rx_prio3_pause"), 0);
       EXPECT_EQ(w.eth("tx_prio3_bytes"), 0);
       EXPECT_EQ(w.eth("tx_prio3_packets"), 0);
       EXPECT_EQ(w.pma("port_xmit_data"), 0);
       EXPECT_GT(w.eth("tx_prio0_bytes"), 0) << "priority 0 has no PFC and keeps moving";
       EXPECT_EQ(w.eth("tx_pause_storm_warning_events"), 1);
       EXPECT_EQ(w.eth("tx_pause_storm_error_events"), 0);
       EXPECT_GT(w.pma("port_xmit_wait"), 0);
     }},
    {"dcqcn-np-disabled",
     [](const Window& w, const fs::path& sys) {
       EXPECT_EQ(readTrimmed(sys / "class/net" / w.ifc / "ecn/roce_np/enable/3"), "0");
       EXPECT_EQ(readTrimmed(sys / "class/net" / w.ifc / "ecn/roce_np/enable/2"), "1");
       EXPECT_EQ(readTrimmed(sys / "class/net" / w.ifc / "ecn/roce_rp/enable/3"), "1");
       EXPECT_GT(w.hw("np_ecn_marked_roce_packets"), 0);
       EXPECT_EQ(w.hw("np_cnp_sent"), 0);
       EXPECT_EQ(w.eth("tx_prio6_packets"), 0);
     }},
    {"dcqcn-rp-disabled",
     [](const Window& w, const fs::path& sys) {
       EXPECT_EQ(readTrimmed(sys / "class/net" / w.ifc / "ecn/roce_rp/enable/3"), "0");
       EXPECT_EQ(readTrimmed(sys / "class/net" / w.ifc / "ecn/roce_np/enable/3"), "1");
       EXPECT_GT(w.hw("rp_cnp_ignored"), 0);
       EXPECT_EQ(w.hw("rp_cnp_handled"), 0);
       EXPECT_GT(w.hw("np_cnp_sent"), 0);
     }},
    {"pfc-without-ecn",
     [](const Window& w, const fs::path&) {
       for (const char* dir : {"rx", "tx"}) {
         EXPECT_GE(w.pauseShare(dir), 0.03) << dir;
         EXPECT_LE(w.pauseShare(dir), 0.08) << dir;
       }
       EXPECT_EQ(w.eth("rx_prio3_marked"), 0);
       EXPECT_EQ(w.hw("np_ecn_marked_roce_packets"), 0);
       EXPECT_EQ(w.hw("np_cnp_sent"), 0);
       EXPECT_EQ(w.hw("rp_cnp_handled"), 0);
       EXPECT_EQ(w.hw("rp_cnp_ignored"), 0);
     }},
    {"link-flap",
     [](const Window& w, const fs::path&) {
       // Down at 4, 10, 16, 22, 28; up at 6, 12, 18, 24, 30.
       EXPECT_EQ(w.net("carrier_changes"), 10);
       EXPECT_EQ(w.net("carrier_down_count"), 5);
       EXPECT_EQ(w.net("carrier_up_count"), 5);
       EXPECT_EQ(w.eth("link_down_events_phy"), 5);
       EXPECT_EQ(w.pma("link_downed"), 5);
       // 10 of 30 seconds without traffic.
       const double share = w.pma("port_xmit_data") * 4 / kSeconds / kLineBytes400G;
       EXPECT_LT(share, 0.8 * 20 / 30 * 1.08);
     }},
    {"dirty-connector",
     [](const Window& w, const fs::path& sys) {
       // High but stable, nothing lost: 5e-5 ± 20 % per tick.
       const double ber = w.eth("rx_corrected_bits_phy") / w.eth("rx_bits_phy");
       EXPECT_GT(ber, 4e-5);
       EXPECT_LT(ber, 6e-5);
       EXPECT_EQ(w.eth("rx_symbol_err_phy"), 0);
       EXPECT_EQ(w.net("carrier_changes"), 0);
       EXPECT_EQ(fecCounter(sys, w.ifc, "uncorrectable_blocks"), 0);
       EXPECT_GT(fecCounter(sys, w.ifc, "corrected_blocks"), 0);
     }},
    {"fec-uncorrectable",
     [](const Window& w, const fs::path& sys) {
       EXPECT_GT(w.eth("rx_corrected_bits_phy") / w.eth("rx_bits_phy"), 5e-5);
       // 0.5/s over 30 s.
       const double uncorrectable = fecCounter(sys, w.ifc, "uncorrectable_blocks");
       EXPECT_GE(uncorrectable, 10);
       EXPECT_LE(uncorrectable, 20);
       // Each codeword the FEC gave up on held more symbol errors than RS(544,514) corrects (15).
       EXPECT_GE(w.eth("rx_pcs_symbol_err_phy"), 16 * uncorrectable);
       EXPECT_EQ(w.eth("rx_symbol_err_phy"), 0) << "no symbol errors of the cable's kind";
     }},
    {"optic-degrading",
     [](const Window& w, const fs::path&) {
       // The first 30 s: 1e-9 until 10 s, then a decade every 24 s.
       const double ber = w.eth("rx_corrected_bits_phy") / w.eth("rx_bits_phy");
       EXPECT_GT(ber, 1e-9);
       EXPECT_LT(ber, 1e-8);
       EXPECT_EQ(w.net("carrier_changes"), 0) << "the flap comes at 150 s";
     }},
    {"cable-errors",
     [](const Window& w, const fs::path&) {
       // infiniband-diags error_thresholds: 10 per check for SymbolError and LinkErrorRecovery.
       EXPECT_GE(w.pma("symbol_error") / kSeconds, 3);
       EXPECT_GT(w.pma("symbol_error"), 10);
       EXPECT_GE(w.pma("link_error_recovery"), 2);  // 0.1/s
       EXPECT_GT(w.pma("port_rcv_errors"), 0);
       EXPECT_GE(w.eth("rx_symbol_err_phy") / kSeconds, 3);
       EXPECT_GE(w.eth("rx_pcs_symbol_err_phy") / kSeconds, 3);
       EXPECT_GE(w.eth("rx_crc_errors_phy") / kSeconds, 1);
       const double ber = w.eth("rx_corrected_bits_phy") / w.eth("rx_bits_phy");
       EXPECT_GT(ber, 1e-5);
     }},
    {"lossy",
     [](const Window& w, const fs::path&) {
       EXPECT_GT(w.hw("local_ack_timeout_err") / kSeconds, 1);
       EXPECT_GT(w.hw("out_of_sequence"), 0);
       EXPECT_GT(w.hw("packet_seq_err"), 0);
       EXPECT_GT(w.hw("roce_adp_retrans"), 0);
       EXPECT_GT(w.eth("rx_prio3_buf_discard") / kSeconds, 5);  // drops on the lossless priority
       EXPECT_EQ(w.eth("rx_prio0_buf_discard"), 0);
       EXPECT_EQ(w.eth("rx_prio3_pause_duration"), 0);
     }},
    {"degraded-port",
     [](const Window& w, const fs::path& sys) {
       EXPECT_EQ(readTrimmed(sys / "class/infiniband" / w.dev / "ports/1/rate"),
                 "200 Gb/sec (2X NDR)");
       EXPECT_EQ(readTrimmed(sys / "class/net" / w.ifc / "speed"), "200000");
       expectHealthyRoce(w, kLineBytes400G / 2);
     }},
    {"port-down",
     [](const Window& w, const fs::path& sys) {
       const fs::path port = sys / "class/infiniband" / w.dev / "ports/1";
       EXPECT_EQ(readTrimmed(port / "state"), "1: DOWN");
       // A RoCE port without carrier is Disabled (mlx5_query_port_roce); lost, as its interface is up.
       EXPECT_EQ(readTrimmed(port / "phys_state"), "3: Disabled");
       EXPECT_EQ(readTrimmed(sys / "class/net" / w.ifc / "flags"), "0x1003") << "lost: still administratively up";
       EXPECT_EQ(w.net("carrier_down_count"), 1) << "down once, at 3 s, and stays down";
       EXPECT_EQ(w.net("carrier_up_count"), 0);
       EXPECT_EQ(w.pma("link_downed"), 1);
       EXPECT_LT(w.pma("port_xmit_data") * 4, 0.86 * kLineBytes400G * 3.1) << "traffic only until 3 s";
     }},
    {"port-disabled",
     [](const Window& w, const fs::path& sys) {
       const fs::path port = sys / "class/infiniband" / w.dev / "ports/1";
       EXPECT_EQ(readTrimmed(port / "state"), "1: DOWN");
       EXPECT_EQ(readTrimmed(port / "phys_state"), "3: Disabled");
       EXPECT_EQ(readTrimmed(sys / "class/net" / w.ifc / "flags"), "0x1002") << "taken down on purpose: no IFF_UP";
       EXPECT_EQ(w.net("carrier_down_count"), 1);
     }},
    {"unused-port",
     [](const Window& w, const fs::path& sys) {
       const fs::path port = sys / "class/infiniband" / w.dev / "ports/1";
       EXPECT_EQ(readTrimmed(port / "state"), "1: DOWN");
       EXPECT_EQ(readTrimmed(port / "phys_state"), "3: Disabled");
       EXPECT_EQ(w.net("carrier_changes"), 0) << "never came up, so never went down";
       EXPECT_EQ(w.pma("port_xmit_data"), 0);
     }},
    {"pfc-protection-off",
     [](const Window& w, const fs::path& sys) {
       const std::string dcb = readTrimmed(sys.parent_path() / "dcb" / w.ifc);
       EXPECT_NE(dcb.find("storm_prevention_timeout_ms: 0"), std::string::npos) << dcb;
       EXPECT_NE(dcb.find("pfc_enabled: [3]"), std::string::npos) << dcb;
       expectHealthyRoce(w);
     }},
    {"global-pause",
     [](const Window& w, const fs::path&) {
       for (const char* n : {"rx_global_pause", "tx_global_pause"}) {
         EXPECT_GT(w.eth(n) / kSeconds, 40) << n;
         EXPECT_LT(w.eth(n) / kSeconds, 60) << n;
       }
       expectHealthyRoce(w);
     }},
    {"lossless-shared",
     [](const Window& w, const fs::path& sys) {
       const std::string dcb = readTrimmed(sys.parent_path() / "dcb" / w.ifc);
       EXPECT_NE(dcb.find("0: 3"), std::string::npos) << "DSCP 0 on the RoCE priority: " << dcb;
       // Priority 3 carries the RDMA bytes (port_xmit_data) and ~10 GB/s of TCP on top.
       const double tcp = w.eth("tx_prio3_bytes") - w.pma("port_xmit_data") * 4;
       EXPECT_GT(tcp / kSeconds, 8e9);
       EXPECT_LT(tcp / kSeconds, 12e9);
       EXPECT_NEAR(w.eth("tx_vport_rdma_unicast_bytes") / (w.pma("port_xmit_data") * 4), 1.0, 0.01);
     }},
    {"pcie-aer",
     [](const Window& w, const fs::path& sys) {
       // The NIC's function and the switch downstream port above it (sim/simulator.cpp).
       const fs::path nic = fs::canonical(sys / "class/infiniband" / w.dev / "device");
       const fs::path down = nic.parent_path();
       // 1/s growing by 0.2/s each second: 30 + 0.1 * 30^2 = 120 over 30 s.
       const double corrected = aerCount(down / "aer_dev_correctable", "TOTAL_ERR_COR");
       EXPECT_GE(corrected, 119);
       EXPECT_LE(corrected, 120);
       EXPECT_GT(aerCount(down / "aer_dev_correctable", "BadTLP"), aerCount(down / "aer_dev_correctable", "BadDLLP"));
       EXPECT_EQ(aerCount(down / "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL"), 0);
       EXPECT_EQ(aerCount(nic / "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL"), 1) << "once, at 12 s";
       EXPECT_EQ(aerCount(nic / "aer_dev_nonfatal", "CmpltTO"), 1);
       EXPECT_EQ(aerCount(nic / "aer_dev_correctable", "TOTAL_ERR_COR"), 0);
       EXPECT_EQ(aerCount(down.parent_path() / "aer_dev_correctable", "TOTAL_ERR_COR"), 0) << "the upstream port";
       EXPECT_EQ(aerCount(nic / "aer_dev_fatal", "TOTAL_ERR_FATAL"), 0);
       expectHealthyRoce(w);
     }},
    {"pcie-aer-background",
     [](const Window& w, const fs::path& sys) {
       // 2 a minute at the function and every port above it: 1 in 30 s, everywhere on the path.
       fs::path at = fs::canonical(sys / "class/infiniband" / w.dev / "device");
       for (int level = 0; level < 4; ++level, at = at.parent_path()) {
         SCOPED_TRACE(at.string());
         EXPECT_EQ(aerCount(at / "aer_dev_correctable", "TOTAL_ERR_COR"), 1);
         EXPECT_EQ(aerCount(at / "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL"), 0);
       }
       expectHealthyRoce(w);
     }},
    {"reordering",
     [](const Window& w, const fs::path&) {
       EXPECT_GT(w.hw("out_of_sequence") / kSeconds, 100);
       for (const char* n : {"packet_seq_err", "local_ack_timeout_err", "roce_adp_retrans", "duplicate_request"}) {
         EXPECT_EQ(w.hw(n), 0) << n << ": reordering is not loss";
       }
       EXPECT_EQ(w.eth("rx_prio3_buf_discard"), 0);
     }},
    // The optic scenarios bend only the module's EEPROM image (tests/unit/collectors/
    // transceiver_sim_test.cpp reads it back); the counters stay healthy in this window
    // (optic-degrading's BER rise is checked above, its flap comes at 150 s).
    {"hot-module", [](const Window& w, const fs::path&) { expectHealthyRoce(w); }},
    {"optic-marginal", [](const Window& w, const fs::path&) { expectHealthyRoce(w); }},
    {"module-swap", [](const Window& w, const fs::path&) { expectHealthyRoce(w); }},
};

// gtest prints parameters in test listings; the name says it all.
void PrintTo(const ScenarioCase& c, std::ostream* os) { *os << c.name; }

class ScenarioTest : public ::testing::TestWithParam<ScenarioCase> {};

/// A simulator of `scenario` writing its node below `dir` (not yet initialised).
Simulator simulatorOf(const TempDir& dir, std::string scenario) {
  SimOptions o;
  o.root = dir.path();
  o.scenario = std::move(scenario);
  return Simulator(std::move(o));
}

TEST_P(ScenarioTest, MovesItsCountersAndLeavesTheOtherPortsHealthy) {
  const ScenarioCase& c = GetParam();
  TempDir dir;
  Simulator sim = simulatorOf(dir, std::string(c.name));
  ASSERT_TRUE(sim.init().ok());
  const Snapshot before = snapshot(sim);
  for (int i = 0; i < static_cast<int>(kSeconds); ++i) ASSERT_TRUE(sim.tick(1s).ok());
  const Snapshot after = snapshot(sim);

  const auto ports = sim.ports();
  const auto affected = sim.affected();
  if (c.name == "healthy") {
    EXPECT_TRUE(affected.empty());
  } else {
    ASSERT_EQ(affected.size(), 1u);
    EXPECT_EQ(affected[0].device, ports[0].device);
    EXPECT_EQ(affected[0].interface, ports[0].interface);
  }
  c.check(Window{before, after, ports[0].device, ports[0].interface}, sim.sysfsRoot());

  for (size_t i = 1; i < ports.size(); ++i) {
    const Window w{before, after, ports[i].device, ports[i].interface};
    const fs::path function = fs::canonical(sim.sysfsRoot() / "class/infiniband" / ports[i].device / "device");
    EXPECT_EQ(aerCount(function / "aer_dev_correctable", "TOTAL_ERR_COR"), 0) << ports[i].device;
    EXPECT_EQ(aerCount(function.parent_path() / "aer_dev_correctable", "TOTAL_ERR_COR"),
              function.parent_path().filename().string().starts_with("pci") ? -1 : 0)
        << ports[i].device << ": the port above it";
    if (ports[i].linkLayer == "Ethernet") {
      expectHealthyRoce(w);
      continue;
    }
    SCOPED_TRACE(ports[i].device);
    EXPECT_GT(w.pma("port_xmit_data"), 0);
    for (const char* n : {"symbol_error", "link_downed", "port_rcv_errors", "port_xmit_wait"})
      EXPECT_EQ(w.pma(n), 0);
    EXPECT_EQ(w.hw("out_of_sequence"), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) {
                           std::string n(info.param.name);
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

TEST(ScenarioTable, CoversEveryScenarioButTheOnesThatRemoveOrResetTheDevice) {
  size_t covered = 0;
  for (auto name : Simulator::scenarios()) {
    bool found = false;
    for (const auto& c : kCases) found = found || c.name == name;
    // Tested on their own below: their counters restart or their files vanish.
    EXPECT_TRUE(found || name == "counter-reset" || name == "device-missing" || name == "driver-reload" ||
                name == "nic-fw-fatal")
        << name;
    covered += found;
  }
  EXPECT_EQ(covered, std::size(kCases));
}

struct PriorityCase {
  std::string_view scenario;
  bool priority;
};

TEST(ScenarioTargets, PriorityFaultsNamePriorityThree) {
  const PriorityCase cases[] = {{"congested", true},         {"pause-storm", true},
                                {"dcqcn-np-disabled", true}, {"dcqcn-rp-disabled", true},
                                {"pfc-without-ecn", true},   {"link-flap", false},
                                {"cable-errors", false},     {"lossy", false},
                                {"degraded-port", false},    {"counter-reset", false},
                                {"busy-pause", true}};
  for (const auto& c : cases) {
    TempDir dir;
    Simulator sim = simulatorOf(dir, std::string(c.scenario));
    ASSERT_TRUE(sim.init().ok()) << c.scenario;
    const auto t = sim.affected();
    ASSERT_EQ(t.size(), 1u) << c.scenario;
    EXPECT_EQ(t[0].device, "mlx5_0");
    EXPECT_EQ(t[0].port, 1u);
    EXPECT_EQ(t[0].interface, "enp24s0np0");
    EXPECT_EQ(t[0].priority.has_value(), c.priority) << c.scenario;
    if (c.priority) {
      EXPECT_EQ(*t[0].priority, 3u);
    }
  }
}

TEST(LinkFlap, DownStateLooksLikeAnMlx5PortWithoutCarrier) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "link-flap");
  ASSERT_TRUE(sim.init().ok());
  const fs::path port = sim.sysfsRoot() / "class/infiniband/mlx5_0/ports/1";
  const fs::path net = sim.sysfsRoot() / "class/net/enp24s0np0";
  ASSERT_TRUE(sim.tick(3s).ok());
  EXPECT_EQ(readTrimmed(net / "operstate"), "up");
  ASSERT_TRUE(sim.tick(1500ms).ok());  // t = 4.5
  EXPECT_EQ(readTrimmed(net / "operstate"), "down");
  EXPECT_EQ(readTrimmed(net / "carrier"), "0");
  EXPECT_EQ(readTrimmed(net / "speed"), "-1");
  EXPECT_EQ(readTrimmed(port / "state"), "1: DOWN");
  // mlx5_query_port_roce: Disabled whenever the netdev has no carrier; lost, not taken down on
  // purpose, as the interface is still administratively up.
  EXPECT_EQ(readTrimmed(port / "phys_state"), "3: Disabled");
  EXPECT_EQ(readTrimmed(net / "flags"), "0x1003");
  const auto downA = snapshot(sim);
  ASSERT_TRUE(sim.tick(1s).ok());  // t = 5.5, still down: nothing moves on that port
  const auto downB = snapshot(sim);
  EXPECT_EQ(delta(downA, downB, "mlx5_0/counters/port_xmit_data"), 0);
  EXPECT_EQ(delta(downA, downB, "enp24s0np0/ethtool/rx_bits_phy"), 0);
  EXPECT_GT(delta(downA, downB, "mlx5_1/counters/port_xmit_data"), 0);
  ASSERT_TRUE(sim.tick(1s).ok());  // t = 6.5
  EXPECT_EQ(readTrimmed(net / "operstate"), "up");
  EXPECT_EQ(readTrimmed(port / "state"), "4: ACTIVE");
  EXPECT_EQ(readTrimmed(port / "phys_state"), "5: LinkUp");
  EXPECT_EQ(readTrimmed(net / "speed"), "400000");
}

TEST(LinkFlap, OneLongTickCountsEveryFlapInside) {
  TempDir a, b;
  SimOptions o;
  o.scenario = "link-flap";
  o.root = a.path();
  Simulator big(o);
  o.root = b.path();
  Simulator small(o);
  ASSERT_TRUE(big.init().ok());
  ASSERT_TRUE(small.init().ok());
  const auto start = snapshot(big);
  ASSERT_TRUE(big.tick(60s).ok());
  for (int i = 0; i < 240; ++i) ASSERT_TRUE(small.tick(250ms).ok());
  const auto endBig = snapshot(big), endSmall = snapshot(small);
  for (const char* key :
       {"enp24s0np0/carrier_changes", "enp24s0np0/carrier_down_count",
        "enp24s0np0/ethtool/link_down_events_phy", "mlx5_0/counters/link_downed"}) {
    EXPECT_EQ(endBig.at(key), endSmall.at(key)) << key;
  }
  EXPECT_EQ(delta(start, endBig, "enp24s0np0/carrier_changes"), 20);  // flaps end at 6, 12, ..., 60
}

TEST(PauseStorm, WarningEventComesOnceAfterFiveSeconds) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "pause-storm");
  ASSERT_TRUE(sim.init().ok());
  const auto start = snapshot(sim);
  ASSERT_TRUE(sim.tick(4900ms).ok());
  EXPECT_EQ(delta(start, snapshot(sim), "enp24s0np0/ethtool/tx_pause_storm_warning_events"), 0);
  ASSERT_TRUE(sim.tick(200ms).ok());
  EXPECT_EQ(delta(start, snapshot(sim), "enp24s0np0/ethtool/tx_pause_storm_warning_events"), 1);
  ASSERT_TRUE(sim.tick(120s).ok());
  EXPECT_EQ(delta(start, snapshot(sim), "enp24s0np0/ethtool/tx_pause_storm_warning_events"), 1);
}

TEST(CableErrors, NarrowPmaCountersSaturateInsteadOfWrapping) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "cable-errors");
  ASSERT_TRUE(sim.init().ok());
  ASSERT_TRUE(sim.tick(std::chrono::hours(1)).ok());  // 0.1 recoveries/s × 3600 s > 255
  const fs::path counters = sim.sysfsRoot() / "class/infiniband/mlx5_0/ports/1/counters";
  EXPECT_EQ(readTrimmed(counters / "link_error_recovery"), "255");  // 8 bits
  ASSERT_TRUE(sim.tick(std::chrono::hours(4)).ok());                // ~6/s × 5 h > 65535
  EXPECT_EQ(readTrimmed(counters / "symbol_error"), "65535");       // 16 bits
  EXPECT_EQ(readTrimmed(counters / "link_error_recovery"), "255");
}

TEST(OpticDegrading, BerClimbsToTheFecLimitThenTheLinkFlaps) {
  EXPECT_DOUBLE_EQ(opticDegradingBer(0), 1e-9);
  EXPECT_DOUBLE_EQ(opticDegradingBer(kOpticDegradeFrom), 1e-9);
  EXPECT_NEAR(opticDegradingBer(kOpticDegradeFrom + 24), 1e-8, 1e-12);  // a decade every 24 s
  EXPECT_DOUBLE_EQ(opticDegradingBer(kOpticDegradeTo), 1e-4);
  EXPECT_DOUBLE_EQ(opticDegradingBer(1000), 1e-4);
  TempDir dir;
  Simulator sim = simulatorOf(dir, "optic-degrading");
  ASSERT_TRUE(sim.init().ok());
  const auto ifc = sim.ports()[0].interface;
  const fs::path carrier = sim.sysfsRoot() / "class/net" / ifc / "carrier_changes";
  const std::string before = readTrimmed(carrier);
  ASSERT_TRUE(sim.tick(149s).ok());
  EXPECT_EQ(readTrimmed(carrier), before) << "no flap before 150 s";
  ASSERT_TRUE(sim.tick(1500ms).ok());
  EXPECT_EQ(readTrimmed(sim.sysfsRoot() / "class/net" / ifc / "operstate"), "down");
  ASSERT_TRUE(sim.tick(2s).ok());
  EXPECT_EQ(readTrimmed(sim.sysfsRoot() / "class/net" / ifc / "operstate"), "up");
  EXPECT_EQ(std::stoll(readTrimmed(carrier)), std::stoll(before) + 2) << "one flap: down and up";
}

TEST(DeviceMissing, TheDeviceLeavesSysfsAndDoesNotComeBack) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "device-missing");
  ASSERT_TRUE(sim.init().ok());
  const fs::path link = sim.sysfsRoot() / "class/infiniband/mlx5_0";
  ASSERT_TRUE(sim.tick(2s).ok());
  EXPECT_TRUE(fs::exists(link / "ports/1/counters/port_xmit_data"));
  ASSERT_TRUE(sim.tick(2s).ok());
  EXPECT_FALSE(fs::exists(link)) << "gone at 3 s";
  EXPECT_FALSE(fs::exists(sim.sysfsRoot() / "devices/pci0000:00/0000:18:00.0/infiniband/mlx5_0"));
  EXPECT_TRUE(fs::exists(sim.sysfsRoot() / "class/net/enp24s0np0/operstate")) << "the netdev stays";
  EXPECT_TRUE(fs::exists(sim.sysfsRoot() / "class/infiniband/mlx5_1/ports/1/state"));
  ASSERT_TRUE(sim.tick(30s).ok());
  EXPECT_FALSE(fs::exists(link));
}

TEST(DriverReload, TheDeviceIsGoneForFourSecondsAndComesBackWithFreshCounters) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "driver-reload");
  ASSERT_TRUE(sim.init().ok());
  const fs::path port = sim.sysfsRoot() / "class/infiniband/mlx5_0/ports/1";
  ASSERT_TRUE(sim.tick(2s).ok());
  const auto before = test::readCounter(port / "counters/port_xmit_data").value();
  EXPECT_GT(before, 1e12) << "days of traffic";
  ASSERT_TRUE(sim.tick(2s).ok());  // t = 4: gone since 3
  EXPECT_FALSE(fs::exists(port));
  ASSERT_TRUE(sim.tick(2s).ok());  // t = 6: still gone
  EXPECT_FALSE(fs::exists(port));
  ASSERT_TRUE(sim.tick(2s).ok());  // t = 8: back since 7
  ASSERT_TRUE(fs::exists(port / "counters/port_xmit_data"));
  EXPECT_EQ(readTrimmed(port / "state"), "4: ACTIVE");
  const auto after = test::readCounter(port / "counters/port_xmit_data").value();
  EXPECT_LT(after, before) << "counters started again";
  EXPECT_GT(after, 0u);
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(NicFwFatal, LogsAFatalHealthRecordAndFreezesThePortsCounters) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "nic-fw-fatal");
  ASSERT_TRUE(sim.init().ok());
  // The boot: every RoCE function's probe lines, informational.
  const std::string boot = readAll(sim.kmsgFile());
  EXPECT_NE(boot.find("6,0,0,-;mlx5_core 0000:18:00.0: firmware version: 28.39.1002\n SUBSYSTEM=pci\n"
                      " DEVICE=+pci:0000:18:00.0\n"),
            std::string::npos)
      << boot;
  EXPECT_EQ(boot.find("Fatal error"), std::string::npos);
  const fs::path port = sim.sysfsRoot() / "class/infiniband/mlx5_0/ports/1";
  const fs::path other = sim.sysfsRoot() / "class/infiniband/mlx5_1/ports/1";
  ASSERT_TRUE(sim.tick(2s).ok());
  const auto moving = test::readCounter(port / "counters/port_xmit_data").value();
  ASSERT_TRUE(sim.tick(2s).ok());  // t = 4: failed at 3
  const std::string log = readAll(sim.kmsgFile());
  EXPECT_NE(log.find(";mlx5_core 0000:18:00.0: poll_health:800:(pid 0): Fatal error 1 detected\n SUBSYSTEM=pci\n"
                     " DEVICE=+pci:0000:18:00.0\n"),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("Fatal error"), log.rfind("Fatal error")) << "logged once";
  EXPECT_EQ(log[log.rfind('\n', log.find("Fatal error")) + 1], '3') << "at KERN_ERR";
  const auto frozen = test::readCounter(port / "counters/port_xmit_data").value();
  EXPECT_GT(frozen, moving);
  const auto otherBefore = test::readCounter(other / "counters/port_xmit_data").value();
  ASSERT_TRUE(sim.tick(5s).ok());
  EXPECT_EQ(test::readCounter(port / "counters/port_xmit_data").value(), frozen) << "the firmware stopped";
  EXPECT_EQ(readTrimmed(port / "state"), "4: ACTIVE") << "the link still shows up";
  EXPECT_GT(test::readCounter(other / "counters/port_xmit_data").value(), otherBefore);
  EXPECT_EQ(readAll(sim.kmsgFile()), log) << "a wedged NIC logs nothing more";
}

/// The devlink health reporters of root/devlink/health.json (`devlink -j -s health show`), by
/// "<handle>/<reporter>": {state, error count}.
std::map<std::string, std::pair<std::string, int>> devlinkReporters(const fs::path& root) {
  std::map<std::string, std::pair<std::string, int>> out;
  const auto doc = nlohmann::json::parse(readAll(root / "devlink" / "health.json"));
  for (const auto& [handle, reporters] : doc.at("health").items()) {
    for (const auto& r : reporters) {
      out[handle + "/" + r.at("reporter").get<std::string>()] = {r.at("state").get<std::string>(), r.at("error").get<int>()};
    }
  }
  return out;
}

// What the demo's devlink_health collector reads: every mlx5 function's fw and fw_fatal reporters
// (mlx5/core/health.c) and its uplink port's tx and rx (65535: vhca 0, the uplink vport), healthy
// until the firmware fails; then fw_fatal is in its error state with one error, and stays there (no
// recovery: the counters stay frozen). The other NICs stay healthy.
TEST(NicFwFatal, PutsItsFunctionsFwFatalReporterInTheErrorState) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "nic-fw-fatal");
  ASSERT_TRUE(sim.init().ok());
  auto r = devlinkReporters(dir.path());
  using State = std::pair<std::string, int>;
  EXPECT_EQ(r.at("pci/0000:18:00.0/fw"), State("healthy", 0));
  EXPECT_EQ(r.at("pci/0000:18:00.0/fw_fatal"), State("healthy", 0));
  EXPECT_EQ(r.at("pci/0000:18:00.0/65535/tx"), State("healthy", 0));
  EXPECT_EQ(r.at("pci/0000:18:00.0/65535/rx"), State("healthy", 0));
  EXPECT_EQ(r.at("pci/0000:40:00.0/fw_fatal"), State("healthy", 0));
  ASSERT_TRUE(sim.tick(2s).ok());
  EXPECT_EQ(devlinkReporters(dir.path()).at("pci/0000:18:00.0/fw_fatal"), State("healthy", 0));
  ASSERT_TRUE(sim.tick(2s).ok());  // t = 4: failed at 3
  r = devlinkReporters(dir.path());
  EXPECT_EQ(r.at("pci/0000:18:00.0/fw_fatal"), State("error", 1));
  EXPECT_EQ(r.at("pci/0000:18:00.0/fw"), State("healthy", 0));
  EXPECT_EQ(r.at("pci/0000:18:00.0/65535/tx"), State("healthy", 0));
  EXPECT_EQ(r.at("pci/0000:40:00.0/fw_fatal"), State("healthy", 0));
  ASSERT_TRUE(sim.tick(10s).ok());
  EXPECT_EQ(devlinkReporters(dir.path()).at("pci/0000:18:00.0/fw_fatal"), State("error", 1)) << "not recovered";
}

// A device that is gone has no devlink instance: its reporters leave the document and come back,
// healthy and counting from 0, with the driver.
TEST(DriverReload, TheDevicesReportersGoAndComeBackWithIt) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "driver-reload");
  ASSERT_TRUE(sim.init().ok());
  ASSERT_TRUE(devlinkReporters(dir.path()).count("pci/0000:18:00.0/fw_fatal"));
  ASSERT_TRUE(sim.tick(4s).ok());  // gone since 3
  auto r = devlinkReporters(dir.path());
  EXPECT_FALSE(r.count("pci/0000:18:00.0/fw_fatal"));
  EXPECT_FALSE(r.count("pci/0000:18:00.0/65535/tx"));
  EXPECT_TRUE(r.count("pci/0000:40:00.0/fw_fatal"));
  ASSERT_TRUE(sim.tick(4s).ok());  // back since 7
  EXPECT_EQ(devlinkReporters(dir.path()).at("pci/0000:18:00.0/fw_fatal"), std::make_pair(std::string("healthy"), 0));
}

TEST(DriverReload, TheReturningDriverLogsOnlyItsProbeLines) {
  TempDir dir;
  Simulator sim = simulatorOf(dir, "driver-reload");
  ASSERT_TRUE(sim.init().ok());
  const std::string boot = readAll(sim.kmsgFile());
  ASSERT_TRUE(sim.tick(8s).ok());  // back since 7
  const std::string log = readAll(sim.kmsgFile());
  ASSERT_GT(log.size(), boot.size());
  const std::string added = log.substr(boot.size());
  EXPECT_NE(added.find("mlx5_core 0000:18:00.0: firmware version:"), std::string::npos) << added;
  for (size_t at = 0; at < added.size(); at = added.find('\n', at) + 1) {
    if (added[at] == ' ') continue;  // a dictionary line
    EXPECT_EQ(added[at], '6') << "only KERN_INFO: " << added.substr(at, 60);
  }
}

}  // namespace
}  // namespace fabricmon::sim
