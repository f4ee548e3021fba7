// The simulated tree: layout (docs/contract.md §2, docs/simulator.md), formats, in-place rewriting,
// reproducibility and the API's error cases.

#include "sim/simulator.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sim_test_util.hpp"

namespace fabricmon::sim {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::delta;
using test::parseEthtool;
using test::readCounter;
using test::readFile;
using test::readTrimmed;
using test::snapshot;
using test::TempDir;

SimOptions optionsFor(const TempDir& dir, std::string scenario = "healthy") {
  SimOptions o;
  o.root = dir.path();
  o.scenario = std::move(scenario);
  return o;
}

const std::vector<std::string> kPmaCounters = {"VL15_dropped",
                                               "excessive_buffer_overrun_errors",
                                               "link_downed",
                                               "link_error_recovery",
                                               "local_link_integrity_errors",
                                               "multicast_rcv_packets",
                                               "multicast_xmit_packets",
                                               "port_rcv_constraint_errors",
                                               "port_rcv_data",
                                               "port_rcv_errors",
                                               "port_rcv_packets",
                                               "port_rcv_remote_physical_errors",
                                               "port_rcv_switch_relay_errors",
                                               "port_xmit_constraint_errors",
                                               "port_xmit_data",
                                               "port_xmit_discards",
                                               "port_xmit_packets",
                                               "port_xmit_wait",
                                               "symbol_error",
                                               "unicast_rcv_packets",
                                               "unicast_xmit_packets"};

// drivers/infiniband/hw/mlx5/counters.c (the *_q_cnts, extended_err_cnts and roce_accl_cnts tables),
// mlx5 non-switchdev, every capability.
const std::vector<std::string> kMlx5QCounters = {"rx_write_requests",
                                                 "rx_read_requests",
                                                 "rx_atomic_requests",
                                                 "rx_dct_connect",
                                                 "out_of_buffer",
                                                 "out_of_sequence",
                                                 "duplicate_request",
                                                 "rnr_nak_retry_err",
                                                 "packet_seq_err",
                                                 "implied_nak_seq_err",
                                                 "local_ack_timeout_err",
                                                 "resp_local_length_error",
                                                 "resp_cqe_error",
                                                 "req_cqe_error",
                                                 "req_remote_invalid_request",
                                                 "req_remote_access_errors",
                                                 "resp_remote_access_errors",
                                                 "resp_cqe_flush_error",
                                                 "req_cqe_flush_error",
                                                 "req_transport_retries_exceeded",
                                                 "req_rnr_retries_exceeded"};
const std::vector<std::string> kMlx5RoceCounters = {
    "roce_adp_retrans",       "roce_adp_retrans_to",        "roce_slow_restart",
    "roce_slow_restart_cnps", "roce_slow_restart_trans",    "rp_cnp_ignored",
    "rp_cnp_handled",         "np_ecn_marked_roce_packets", "np_cnp_sent",
    "rx_icrc_encapsulated"};

TEST(SimulatorTree, DefaultNodeHasEightRocePortsAndOneInfinibandPort) {
  TempDir dir;
  Simulator sim(optionsFor(dir));
  ASSERT_TRUE(sim.init().ok());
  const auto ports = sim.ports();
  ASSERT_EQ(ports.size(), 9u);
  std::set<std::string> names;
  for (size_t i = 0; i < ports.size(); ++i) {
    EXPECT_EQ(ports[i].device, "mlx5_" + std::to_string(i));
    EXPECT_EQ(ports[i].linkLayer, i < 8 ? "Ethernet" : "InfiniBand");
    names.insert(ports[i].interface);
  }
  EXPECT_EQ(names.size(), 9u) << "interface names must be unique";
  EXPECT_EQ(ports[0].interface, "enp24s0np0");
  EXPECT_EQ(ports[0].pciAddress, "0000:18:00.0");
  EXPECT_EQ(sim.sysfsRoot(), dir.path() / "sys");
  EXPECT_EQ(sim.ethtoolDir(), dir.path() / "ethtool");
  EXPECT_EQ(sim.dcbDir(), dir.path() / "dcb");
}

TEST(SimulatorTree, EveryPortHasTheFilesTheContractReads) {
  TempDir dir;
  Simulator sim(optionsFor(dir));
  ASSERT_TRUE(sim.init().ok());
  const fs::path sys = sim.sysfsRoot();
  for (const SimPort& p : sim.ports()) {
    SCOPED_TRACE(p.device);
    const fs::path cls = sys / "class/infiniband" / p.device;
    ASSERT_TRUE(fs::is_symlink(cls));
    // Into the PCI tree: a compute NIC behind its root port and PCIe switch, the others on the root complex.
    EXPECT_EQ(fs::read_symlink(cls).string().rfind("../../devices/pci0000:00/", 0), 0u) << fs::read_symlink(cls);
    EXPECT_EQ(fs::read_symlink(cls).parent_path().parent_path().filename(), p.pciAddress);
    ASSERT_TRUE(fs::is_directory(cls));
    ASSERT_TRUE(fs::is_symlink(cls / "device"));
    EXPECT_EQ(fs::read_symlink(cls / "device").filename(), p.pciAddress);
    EXPECT_TRUE(fs::is_directory(cls / "device"));

    EXPECT_EQ(readTrimmed(cls / "node_type"), "1: CA");
    EXPECT_EQ(readTrimmed(cls / "fw_ver"), "28.39.1002");
    EXPECT_EQ(readTrimmed(cls / "hca_type"), "MT4129");
    EXPECT_EQ(readTrimmed(cls / "board_id"), "MT_0000000838");
    const std::string guid = readTrimmed(cls / "node_guid");
    EXPECT_EQ(guid.size(), 19u);
    EXPECT_EQ(guid, readTrimmed(cls / "sys_image_guid"));
    EXPECT_TRUE(fs::exists(cls / "hw_rev"));

    const fs::path port = cls / "ports/1";
    EXPECT_EQ(readTrimmed(port / "state"), "4: ACTIVE");
    EXPECT_EQ(readTrimmed(port / "phys_state"), "5: LinkUp");
    EXPECT_EQ(readTrimmed(port / "rate"), "400 Gb/sec (4X NDR)");
    EXPECT_EQ(readTrimmed(port / "link_layer"), p.linkLayer);
    EXPECT_TRUE(fs::exists(port / "lid"));
    EXPECT_TRUE(fs::exists(port / "sm_lid"));
    for (const auto& c : kPmaCounters)
      EXPECT_TRUE(readCounter(port / "counters" / c).has_value()) << c;
    for (const auto& c : kMlx5QCounters)
      EXPECT_TRUE(readCounter(port / "hw_counters" / c).has_value()) << c;
    for (const auto& c : kMlx5RoceCounters) {
      EXPECT_EQ(fs::exists(port / "hw_counters" / c), p.linkLayer == "Ethernet") << c;
    }
    EXPECT_EQ(readTrimmed(port / "hw_counters/lifespan"), "10");

    // Both ways from the RDMA device to its netdev (docs/contract.md §2: support both).
    EXPECT_TRUE(fs::is_directory(cls / "device/net" / p.interface));
    const fs::path net = sys / "class/net" / p.interface;
    ASSERT_TRUE(fs::is_symlink(net));
    EXPECT_EQ(fs::read_symlink(net).parent_path().parent_path().filename(), p.pciAddress);
    EXPECT_EQ(fs::read_symlink(net / "device").filename(), p.pciAddress);
    EXPECT_EQ(readTrimmed(net / "operstate"), "up");
    EXPECT_EQ(readTrimmed(net / "carrier"), "1");
    for (const char* f :
         {"carrier_changes", "carrier_up_count", "carrier_down_count", "mtu", "speed"}) {
      EXPECT_TRUE(readCounter(net / f).has_value()) << f;
    }
    EXPECT_EQ(readTrimmed(net / "speed"), "400000");
    EXPECT_FALSE(readTrimmed(net / "address").empty());

    const bool roce = p.linkLayer == "Ethernet";
    if (roce) {
      EXPECT_EQ(readTrimmed(port / "gid_attrs/ndevs/0"), p.interface);
      EXPECT_EQ(readTrimmed(port / "gid_attrs/types/1"), "RoCE v2");
      EXPECT_EQ(readTrimmed(port / "lid"), "0x0");
      for (unsigned prio = 0; prio < 8; ++prio) {
        EXPECT_EQ(readTrimmed(net / "ecn/roce_np/enable" / std::to_string(prio)), "1");
        EXPECT_EQ(readTrimmed(net / "ecn/roce_rp/enable" / std::to_string(prio)), "1");
      }
      // NVIDIA firmware defaults (docs/simulator.md).
      EXPECT_EQ(readTrimmed(net / "ecn/roce_np/cnp_dscp"), "48");
      EXPECT_EQ(readTrimmed(net / "ecn/roce_np/cnp_802p_prio"), "6");
      EXPECT_EQ(readTrimmed(net / "ecn/roce_np/min_time_between_cnps"), "4");
      EXPECT_EQ(readTrimmed(net / "ecn/roce_rp/rpg_time_reset"), "300");
      EXPECT_EQ(readTrimmed(net / "ecn/roce_rp/rpg_byte_reset"), "32767");
      EXPECT_EQ(readTrimmed(net / "ecn/roce_rp/rpg_gd"), "11");
      EXPECT_EQ(readTrimmed(net / "ecn/roce_rp/dce_tcp_g"), "1019");
      EXPECT_EQ(readTrimmed(net / "ecn/roce_rp/initial_alpha_value"), "1023");
      size_t rpParams = 0;
      for (const auto& e : fs::directory_iterator(net / "ecn/roce_rp"))
        rpParams += e.is_regular_file();
      EXPECT_EQ(rpParams, 16u);
    } else {
      EXPECT_FALSE(fs::exists(port / "gid_attrs"));
      EXPECT_NE(readTrimmed(port / "lid"), "0x0");
      EXPECT_FALSE(fs::exists(net / "ecn"));
    }
    EXPECT_EQ(fs::exists(sim.ethtoolDir() / p.interface), roce);
    EXPECT_EQ(fs::exists(sim.dcbDir() / p.interface), roce);
  }
}

TEST(SimulatorTree, EthtoolFilesAreEthtoolDashSText) {
  TempDir dir;
  Simulator sim(optionsFor(dir, "congested"));
  ASSERT_TRUE(sim.init().ok());
  ASSERT_TRUE(sim.tick(1s).ok());
  for (const SimPort& p : sim.ports()) {
    if (p.linkLayer != "Ethernet") continue;
    SCOPED_TRACE(p.interface);
    std::string err;
    const auto stats = parseEthtool(readFile(sim.ethtoolDir() / p.interface), &err);
    ASSERT_TRUE(stats.has_value()) << err;
    EXPECT_GT(stats->size(), 500u) << "a ConnectX-7 lists hundreds of stats";
    for (unsigned prio = 0; prio < 8; ++prio) {
      const std::string rx = "rx_prio" + std::to_string(prio),
                        tx = "tx_prio" + std::to_string(prio);
      for (const std::string& n :
           {rx + "_bytes", rx + "_packets", rx + "_discards", tx + "_bytes", tx + "_packets",
            rx + "_buf_discard", rx + "_cong_discard", rx + "_marked"}) {
        EXPECT_EQ(stats->count(n), 1u) << n;
      }
      // PFC stats exist only for the PFC-enabled priority.
      for (const std::string& n : {rx + "_pause", rx + "_pause_duration", tx + "_pause",
                                   tx + "_pause_duration", rx + "_pause_transition"}) {
        EXPECT_EQ(stats->count(n), prio == 3 ? 1u : 0u) << n;
      }
    }
    EXPECT_EQ(stats->count("rx_global_pause"), 0u);
    for (const char* n : {"tx_pause_storm_warning_events",
                          "tx_pause_storm_error_events",
                          "link_down_events_phy",
                          "rx_symbol_err_phy",
                          "rx_crc_errors_phy",
                          "rx_pcs_symbol_err_phy",
                          "rx_corrected_bits_phy",
                          "rx_bits_phy",
                          "rx_discards_phy",
                          "tx_discards_phy",
                          "rx_out_of_buffer",
                          "rx_buffer_passed_thres_phy",
                          "rx_pause_ctrl_phy",
                          "tx_pause_ctrl_phy",
                          "rx_vport_rdma_unicast_bytes",
                          "tx_vport_rdma_unicast_bytes",
                          "rx_vport_rdma_unicast_packets",
                          "tx_vport_rdma_unicast_packets",
                          "outbound_pci_stalled_rd",
                          "outbound_pci_stalled_wr"}) {
      EXPECT_EQ(stats->count(n), 1u) << n;
    }
  }
}

TEST(SimulatorTree, EthtoolParserRejectsWhatEthtoolNeverPrints) {
  EXPECT_FALSE(parseEthtool("rx_bytes: 1\n").has_value());
  EXPECT_FALSE(parseEthtool("NIC statistics:\n     rx_bytes 1\n").has_value());
  EXPECT_FALSE(parseEthtool("NIC statistics:\n     rx_bytes: -1\n").has_value());
  EXPECT_FALSE(parseEthtool("NIC statistics:\n     a: 1\n     a: 2\n").has_value());
  EXPECT_TRUE(parseEthtool("NIC statistics:\n     a: 1\n").has_value());
}

TEST(SimulatorTree, DcbFilesAreTheContractYaml) {
  TempDir dir;
  Simulator sim(optionsFor(dir));
  ASSERT_TRUE(sim.init().ok());
  for (const SimPort& p : sim.ports()) {
    if (p.linkLayer != "Ethernet") continue;
    const YAML::Node dcb = YAML::LoadFile((sim.dcbDir() / p.interface).string());
    ASSERT_TRUE(dcb["pfc_enabled"].IsSequence());
    EXPECT_EQ(dcb["pfc_enabled"].as<std::vector<unsigned>>(), std::vector<unsigned>{3});
    EXPECT_EQ(dcb["trust"].as<std::string>(), "dscp");
    const auto map = dcb["dscp_to_priority"].as<std::map<unsigned, unsigned>>();
    EXPECT_EQ(map, (std::map<unsigned, unsigned>{{26, 3}, {48, 6}}));
  }
}

TEST(SimulatorTree, UpstreamDriverPutsDcqcnParametersInDebugfs) {
  TempDir dir;
  SimOptions o = optionsFor(dir);
  o.upstreamDriver = true;
  Simulator sim(o);
  ASSERT_TRUE(sim.init().ok());
  for (const SimPort& p : sim.ports()) {
    const fs::path cc = sim.sysfsRoot() / "kernel/debug/mlx5" / p.pciAddress / "cc_params";
    if (p.linkLayer != "Ethernet") {
      EXPECT_FALSE(fs::exists(cc));
      continue;
    }
    EXPECT_FALSE(fs::exists(sim.sysfsRoot() / "class/net" / p.interface / "ecn"));
    EXPECT_EQ(readTrimmed(cc / "np_cnp_dscp"), "48");
    EXPECT_EQ(readTrimmed(cc / "np_cnp_prio"), "6");
    EXPECT_EQ(readTrimmed(cc / "rp_time_reset"), "300");
    EXPECT_EQ(readTrimmed(cc / "rp_gd"), "11");
  }
}

TEST(SimulatorTree, SmallerNodes) {
  TempDir dir;
  SimOptions o = optionsFor(dir);
  o.rocePorts = 2;
  o.infinibandPort = false;
  Simulator sim(o);
  ASSERT_TRUE(sim.init().ok());
  EXPECT_EQ(sim.ports().size(), 2u);
  EXPECT_FALSE(fs::exists(sim.sysfsRoot() / "class/infiniband/mlx5_2"));
}

struct BadOptionsCase {
  const char* what;
  std::string scenario;
  unsigned rocePorts;
  bool upstream;
};

TEST(SimulatorApi, InitRejectsBadOptions) {
  const BadOptionsCase cases[] = {
      {"unknown scenario", "meltdown", 8, false},
      {"too many ports", "healthy", 17, false},
      {"fault without a RoCE port", "congested", 0, false},
      {"np enable bits without the ecn tree", "dcqcn-np-disabled", 8, true},
      {"rp enable bits without the ecn tree", "dcqcn-rp-disabled", 8, true},
  };
  for (const auto& c : cases) {
    TempDir dir;
    SimOptions o = optionsFor(dir, c.scenario);
    o.rocePorts = c.rocePorts;
    o.upstreamDriver = c.upstream;
    Simulator sim(o);
    const Status st = sim.init();
    EXPECT_FALSE(st.ok()) << c.what;
    EXPECT_FALSE(st.error().message.empty()) << c.what;
  }
}

TEST(SimulatorApi, TickNeedsInitAndANonNegativeStep) {
  TempDir dir;
  Simulator sim(optionsFor(dir));
  EXPECT_FALSE(sim.tick(1s).ok());
  ASSERT_TRUE(sim.init().ok());
  EXPECT_FALSE(sim.init().ok());
  EXPECT_FALSE(sim.tick(std::chrono::duration<double>(-1)).ok());
  ASSERT_TRUE(sim.tick(1500ms).ok());
  ASSERT_TRUE(sim.tick(0s).ok());
  EXPECT_DOUBLE_EQ(sim.now(), 1.5);
}

TEST(SimulatorApi, ListsEveryScenarioWithADescription) {
  const auto names = Simulator::scenarios();
  const std::set<std::string_view> expected = {
      "healthy",           "congested",         "pause-storm",
      "dcqcn-np-disabled", "dcqcn-rp-disabled", "pfc-without-ecn",
      "link-flap",         "cable-errors",      "lossy",
      "degraded-port",     "counter-reset",     "busy-pause",
      "port-down",         "port-disabled",     "unused-port",
      "device-missing",    "driver-reload",     "pfc-protection-off",
      "global-pause",      "lossless-shared",   "reordering",
      "pcie-aer",          "pcie-aer-background", "nic-fw-fatal",
      "hot-module",        "optic-degrading",   "optic-marginal",
      "module-swap",       "dirty-connector",   "fec-uncorrectable"};
  EXPECT_EQ(std::set<std::string_view>(names.begin(), names.end()), expected);
  for (auto n : names) EXPECT_FALSE(Simulator::describe(n).empty()) << n;
  EXPECT_TRUE(Simulator::describe("nope").empty());
}

TEST(SimulatorFiles, RewrittenInPlaceAndVisibleThroughAnFdOpenedBefore) {
  TempDir dir;
  Simulator sim(optionsFor(dir, "link-flap"));
  ASSERT_TRUE(sim.init().ok());
  const fs::path sys = sim.sysfsRoot();
  const std::vector<fs::path> files = {
      sys / "class/infiniband/mlx5_0/ports/1/counters/port_xmit_data",
      sys / "class/infiniband/mlx5_0/ports/1/hw_counters/rx_write_requests",
      sys / "class/infiniband/mlx5_0/ports/1/state",
      sys / "class/net/enp24s0np0/operstate",
      sim.ethtoolDir() / "enp24s0np0",
  };
  std::vector<int> fds;
  std::vector<ino_t> inodes;
  for (const auto& f : files) {
    fds.push_back(::open(f.c_str(), O_RDONLY));
    ASSERT_GE(fds.back(), 0) << f;
    struct stat st {};
    ASSERT_EQ(::stat(f.c_str(), &st), 0);
    inodes.push_back(st.st_ino);
  }
  const std::string stateBefore = readFile(files[2]);
  ASSERT_TRUE(sim.tick(5s).ok());  // link down since t = 4
  EXPECT_NE(readFile(files[2]), stateBefore);
  for (size_t i = 0; i < files.size(); ++i) {
    SCOPED_TRACE(files[i]);
    struct stat st {};
    ASSERT_EQ(::fstat(fds[i], &st), 0);
    EXPECT_EQ(st.st_ino, inodes[i]);
    std::string buf(static_cast<size_t>(st.st_size) + 1, '\0');
    const ssize_t n = ::pread(fds[i], buf.data(), buf.size(), 0);
    ASSERT_GT(n, 0);
    buf.resize(static_cast<size_t>(n));
    EXPECT_EQ(buf, readFile(files[i]));
    ::close(fds[i]);
  }
  EXPECT_EQ(readTrimmed(files[2]), "1: DOWN");
  EXPECT_EQ(readTrimmed(files[3]), "down");
}

TEST(SimulatorFiles, UnchangedFilesAreNotRewritten) {
  TempDir dir;
  Simulator sim(optionsFor(dir));
  ASSERT_TRUE(sim.init().ok());
  const uint64_t afterInit = sim.fileWrites();
  ASSERT_TRUE(sim.tick(1s).ok());
  const uint64_t perTick = sim.fileWrites() - afterInit;
  EXPECT_GT(perTick, 8u * 3) << "traffic counters and ethtool files move";
  EXPECT_LT(perTick, afterInit / 3)
      << "static files (fw_ver, ecn parameters, zero error counters) stay";
}

TEST(SimulatorFiles, SameSeedSameFilesOtherSeedOtherFiles) {
  TempDir a, b, c;
  SimOptions oc = optionsFor(c, "congested");
  oc.seed = 2;
  Simulator sa(optionsFor(a, "congested")), sb(optionsFor(b, "congested")), sc(oc);
  for (Simulator* s : {&sa, &sb, &sc}) {
    ASSERT_TRUE(s->init().ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(s->tick(1s).ok());
  }
  EXPECT_EQ(snapshot(sa), snapshot(sb));
  EXPECT_NE(snapshot(sa), snapshot(sc));
  EXPECT_EQ(readFile(a.path() / "ethtool/enp24s0np0"), readFile(b.path() / "ethtool/enp24s0np0"));
  EXPECT_EQ(readFile(a.path() / "sys/class/infiniband/mlx5_3/node_guid"),
            readFile(b.path() / "sys/class/infiniband/mlx5_3/node_guid"));
}

// Counters never go down (except in counter-reset), in every scenario and on every port.
class MonotonicTest : public ::testing::TestWithParam<std::string_view> {};

TEST_P(MonotonicTest, CountersOnlyGoUp) {
  TempDir dir;
  Simulator sim(optionsFor(dir, std::string(GetParam())));
  ASSERT_TRUE(sim.init().ok());
  auto prev = snapshot(sim);
  for (int i = 0; i < 32; ++i) {
    ASSERT_TRUE(sim.tick(std::chrono::duration<double>(i % 2 ? 0.5 : 1.5)).ok());
    auto cur = snapshot(sim);
    ASSERT_EQ(cur.size(), prev.size());
    for (const auto& [key, value] : cur)
      ASSERT_GE(value, prev.at(key)) << key << " at t=" << sim.now();
    prev = std::move(cur);
  }
}

INSTANTIATE_TEST_SUITE_P(AllButCounterReset, MonotonicTest, ::testing::ValuesIn([] {
                           std::vector<std::string_view> v;
                           for (auto s : Simulator::scenarios()) {
                             // These restart the device's counters (and remove its files).
                             if (s != "counter-reset" && s != "device-missing" && s != "driver-reload") v.push_back(s);
                           }
                           return v;
                         }()),
                         [](const auto& info) {
                           std::string n(info.param);
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

TEST(SimulatorFiles, CounterResetRestartsEveryCounterOfOneDeviceAfterTenSeconds) {
  TempDir dir;
  Simulator sim(optionsFor(dir, "counter-reset"));
  ASSERT_TRUE(sim.init().ok());
  ASSERT_TRUE(sim.tick(9s).ok());
  const auto before = snapshot(sim);
  ASSERT_TRUE(sim.tick(2s).ok());  // t = 11: reloaded at t = 10
  const auto after = snapshot(sim);
  ASSERT_TRUE(sim.tick(5s).ok());
  const auto later = snapshot(sim);

  const std::string dev = "mlx5_0/", eth = "enp24s0np0/ethtool/";
  for (const std::string& key :
       {dev + "counters/port_xmit_data", dev + "counters/port_rcv_packets",
        dev + "hw_counters/rx_write_requests", eth + "rx_prio3_bytes", eth + "tx_prio0_packets",
        eth + "rx_bits_phy", eth + "rx_corrected_bits_phy"}) {
    SCOPED_TRACE(key);
    EXPECT_LT(delta(before, after, key), 0) << "restarted";
    EXPECT_GT(delta(after, later, key), 0) << "rising again";
  }
  // One second of traffic since the reload, at most line rate.
  EXPECT_LE(after.at(dev + "counters/port_xmit_data") * 4.0, 50e9 * 1.0);
  EXPECT_GT(after.at(dev + "counters/port_xmit_data"), 0u);
  // Every counter of the device is at most what one second can produce: nothing kept its old value.
  for (const auto& [key, value] : after) {
    if (key.rfind(dev, 0) == 0 || key.rfind("enp24s0np0/ethtool/", 0) == 0) {
      EXPECT_LE(value, before.at(key)) << key;
      if (before.at(key) > 1000000) {
        EXPECT_LT(value, before.at(key) / 10) << key;
      }
    }
  }
  // The other devices carry on.
  EXPECT_GT(delta(before, after, "mlx5_1/counters/port_xmit_data"), 0);
  EXPECT_GT(delta(before, after, "enp64s0np0/ethtool/rx_prio3_bytes"), 0);
  // The shrunk files hold exactly the new text (no leftover digits or padding).
  const fs::path f = sim.sysfsRoot() / "class/infiniband/mlx5_0/ports/1/counters/port_xmit_data";
  EXPECT_EQ(readFile(f), std::to_string(later.at(dev + "counters/port_xmit_data")) + "\n");
  EXPECT_TRUE(parseEthtool(readFile(sim.ethtoolDir() / "enp24s0np0")).has_value());
}

}  // namespace
}  // namespace fabricmon::sim

namespace fabricmon::sim::test {
namespace {

// --fault-at: healthy until the onset, then the fault; events are timed from the onset.
TEST(SimulatorFaultAt, HealthyUntilTheOnsetThenTheFault) {
  TempDir dir;
  SimOptions o;
  o.root = dir.path();
  o.scenario = "pause-storm";
  o.faultAt = 5;
  Simulator sim(o);
  ASSERT_TRUE(sim.init().ok());
  const std::string iface = sim.ports().front().interface;
  const std::string pause = iface + "/ethtool/rx_prio3_pause_duration";
  const std::string warning = iface + "/ethtool/tx_pause_storm_warning_events";
  const Snapshot start = snapshot(sim);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(sim.tick(std::chrono::seconds(1)).ok());
  const Snapshot before = snapshot(sim);
  EXPECT_LT(delta(start, before, pause) / 1e6, 0.5) << "paused before the onset";
  // One tick across the onset is split there: 1 s healthy, 1 s of storm.
  ASSERT_TRUE(sim.tick(std::chrono::seconds(2)).ok());
  const Snapshot after = snapshot(sim);
  EXPECT_NEAR(delta(before, after, pause) / 1e6, 1.0, 0.05);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sim.tick(std::chrono::seconds(1)).ok());  // t = 9
  EXPECT_EQ(delta(start, snapshot(sim), warning), 0) << "the storm warning comes 5 s after the onset";
  ASSERT_TRUE(sim.tick(std::chrono::seconds(1)).ok());
  EXPECT_EQ(delta(start, snapshot(sim), warning), 1);
}

// --fault-port: the fault moves to another port; the first one stays healthy.
TEST(SimulatorFaultPort, TheStormHitsTheChosenPortOnly) {
  TempDir dir;
  SimOptions o = optionsFor(dir, "pause-storm");
  o.faultPort = 2;
  Simulator sim(o);
  ASSERT_TRUE(sim.init().ok());
  const auto ports = sim.ports();
  ASSERT_EQ(sim.affected().size(), 1u);
  EXPECT_EQ(sim.affected().front().interface, ports[2].interface);
  const Snapshot start = snapshot(sim);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sim.tick(std::chrono::seconds(1)).ok());
  const Snapshot end = snapshot(sim);
  EXPECT_NEAR(delta(start, end, ports[2].interface + "/ethtool/rx_prio3_pause_duration") / 1e6, 3.0, 0.1);
  EXPECT_LT(delta(start, end, ports[0].interface + "/ethtool/rx_prio3_pause_duration") / 1e6, 1.0);
}

TEST(SimulatorFaultPort, RejectsAPortThatIsNotRoce) {
  TempDir dir;
  SimOptions o = optionsFor(dir, "pause-storm");
  o.faultPort = 8;  // the InfiniBand port
  EXPECT_FALSE(Simulator(o).init().ok());
}

TEST(SimulatorFaultAt, RejectsANegativeOnset) {
  TempDir dir;
  SimOptions o;
  o.root = dir.path();
  o.faultAt = -1;
  EXPECT_FALSE(Simulator(o).init().ok());
}

}  // namespace
}  // namespace fabricmon::sim::test

namespace fabricmon::sim::test {
namespace {

TEST(SimulatorMixedNode, AddsBlueFieldAndBroadcomPorts) {
  TempDir dir;
  SimOptions o;
  o.root = dir.path();
  o.mixedNode = true;
  Simulator sim(o);
  ASSERT_TRUE(sim.init().ok());
  const auto ports = sim.ports();
  ASSERT_EQ(ports.size(), 8u + 3u + 1u);
  const auto cls = dir.path() / "sys/class/infiniband";
  EXPECT_EQ(readTrimmed(cls / ports[8].device / "hca_type"), "MT41692");
  EXPECT_EQ(readTrimmed(cls / ports[8].device / "ports/1/rate"), "200 Gb/sec (4X HDR)");
  EXPECT_EQ(ports[10].device, "bnxt_re0");
  EXPECT_FALSE(std::filesystem::exists(cls / "bnxt_re0/hca_type")) << "bnxt_re has no hca_type";
  EXPECT_EQ(readTrimmed(cls / "bnxt_re0/ports/1/rate"), "100 Gb/sec (4X EDR)");
  const auto driver = std::filesystem::read_symlink(dir.path() / "sys/class/net" / ports[10].interface / "device/driver");
  EXPECT_EQ(driver.filename(), "bnxt_en");
  EXPECT_EQ(ports.back().linkLayer, "InfiniBand");
}

}  // namespace
}  // namespace fabricmon::sim::test

namespace fabricmon::sim::test {
namespace {

TEST(SimulatorLldp, EveryLinkedRocePortFacesItsRailsLeafAtTheNodesSwitchPort) {
  TempDir dir;
  // The first port's link is down: lldpd has no neighbour for it.
  SimOptions o = optionsFor(dir, "unused-port");
  o.lldpPod = "su2";
  o.nodeIndex = 5;
  Simulator sim(o);
  ASSERT_TRUE(sim.init().ok());
  const auto ports = sim.ports();
  const nlohmann::json doc = nlohmann::json::parse(readFile(dir.path() / "lldp/neighbors.json"));
  std::map<std::string, std::pair<std::string, std::string>> seen;  // interface → (chassis, port)
  std::set<std::string> chassisIds;
  for (const auto& iface : doc.at("lldp").at(0).at("interface")) {
    const auto& chassis = iface.at("chassis").at(0);
    seen[iface.at("name").get<std::string>()] = {chassis.at("name").at(0).at("value").get<std::string>(),
                                                 iface.at("port").at(0).at("id").at(0).at("value").get<std::string>()};
    chassisIds.insert(chassis.at("id").at(0).at("value").get<std::string>());
  }
  ASSERT_EQ(seen.size(), 7u) << "8 RoCE ports, one of them down; the InfiniBand port has no LLDP";
  EXPECT_EQ(seen.count(ports[0].interface), 0u);
  for (size_t i = 1; i < 8; ++i) {
    ASSERT_EQ(seen.count(ports[i].interface), 1u) << ports[i].interface;
    EXPECT_EQ(seen[ports[i].interface].first, "su2-leaf" + std::to_string(i));
    EXPECT_EQ(seen[ports[i].interface].second, "swp5");
  }
  EXPECT_EQ(chassisIds.size(), 7u) << "each leaf switch has its own chassis ID";
}

// lldpcli's output is replaced whole (written aside, then renamed): a reader that opened the old
// file reads all of it, never a half-written one, and no temporary file stays behind.
TEST(SimulatorLldp, TheNeighbourFileIsReplacedAtomically) {
  TempDir dir;
  SimOptions o = optionsFor(dir, "link-flap");
  o.lldpPod = "su2";
  Simulator sim(o);
  ASSERT_TRUE(sim.init().ok());
  const auto file = dir.path() / "lldp/neighbors.json";
  const std::string before = readFile(file);
  struct stat old {};
  ASSERT_EQ(::stat(file.c_str(), &old), 0);
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  // The flapping port's neighbour leaves when its link goes down (within the 6 s cycle).
  std::string after = before;
  for (int i = 0; i < 12 && after == before; ++i) {
    ASSERT_TRUE(sim.tick(std::chrono::milliseconds(500)).ok());
    after = readFile(file);
  }
  ASSERT_NE(after, before) << "the link-flap scenario changes the neighbours";
  struct stat now {};
  ASSERT_EQ(::stat(file.c_str(), &now), 0);
  EXPECT_NE(now.st_ino, old.st_ino) << "a new file, not the old one rewritten in place";
  std::string held(before.size() + 1, '\0');
  const ssize_t n = ::pread(fd, held.data(), held.size(), 0);
  ::close(fd);
  ASSERT_GE(n, 0);
  held.resize(static_cast<size_t>(n));
  EXPECT_EQ(held, before) << "the reader of the old file still reads all of it";
  EXPECT_TRUE(nlohmann::json::accept(after)) << "the new file is whole";
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "lldp/neighbors.json.tmp"));
}

}  // namespace
}  // namespace fabricmon::sim::test
