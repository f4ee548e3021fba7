// The simulator's NIC vendors (SimOptions::vendor) and the NIC counter refresh cadence
// (SimOptions::counterRefresh): each vendor writes its driver's `ethtool -S` names and device/driver
// link, scenarios move the same quantities under every vendor, and a NIC with a refresh period
// publishes its ethtool and hw_counters files only at refresh boundaries, latched.

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>

#include "sim/simulator.hpp"
#include "sim_test_util.hpp"

namespace fabricmon::sim {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::parseEthtool;
using test::readFile;
using test::TempDir;

SimOptions optionsFor(const TempDir& dir, std::string vendor, std::string scenario = "healthy") {
  SimOptions o;
  o.root = dir.path();
  o.vendor = std::move(vendor);
  o.scenario = std::move(scenario);
  o.rocePorts = 2;
  return o;
}

std::string linkBasename(const fs::path& link) {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink(link.c_str(), buf.data(), buf.size() - 1);
  if (n < 0) return {};
  return fs::path(std::string(buf.data(), static_cast<size_t>(n))).filename().string();
}

std::map<std::string, uint64_t> ethtoolOf(const Simulator& sim, const std::string& ifname) {
  std::string error;
  auto stats = parseEthtool(readFile(sim.ethtoolDir() / ifname), &error);
  EXPECT_TRUE(stats) << error;
  return stats ? *stats : std::map<std::string, uint64_t>{};
}

struct VendorCase {
  const char* vendor;
  const char* driver;
  std::vector<const char*> present;  // names of the driver's dialect (collectors/ethtool_dialects)
  std::vector<const char*> absent;
};
void PrintTo(const VendorCase& c, std::ostream* os) { *os << c.vendor; }

class SimVendorTest : public ::testing::TestWithParam<VendorCase> {};

TEST_P(SimVendorTest, WritesTheDriversNamesAndDriverLink) {
  const VendorCase& c = GetParam();
  TempDir dir;
  Simulator sim(optionsFor(dir, c.vendor));
  ASSERT_TRUE(sim.init());
  for (const SimPort& p : sim.ports()) {
    SCOPED_TRACE(p.interface);
    const std::string driver =
        linkBasename(sim.sysfsRoot() / "class/net" / p.interface / "device/driver");
    if (p.linkLayer == "InfiniBand") {
      EXPECT_EQ(driver, "mlx5_core");  // the IB port stays a ConnectX-7
      continue;
    }
    EXPECT_EQ(driver, c.driver);
    EXPECT_TRUE(fs::is_directory(sim.sysfsRoot() / "class/net" / p.interface / "device/driver"));
    const auto stats = ethtoolOf(sim, p.interface);
    for (const char* name : c.present) EXPECT_TRUE(stats.count(name)) << name;
    for (const char* name : c.absent) EXPECT_FALSE(stats.count(name)) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Vendors, SimVendorTest,
    ::testing::Values(
        VendorCase{"mlx5",
                   "mlx5_core",
                   {"rx_prio3_pause", "rx_prio3_pause_duration", "tx_prio3_pause"},
                   {"rx_pfc_ena_frames_pri3", "rx_priority_3_xoff.nic"}},
        VendorCase{"bnxt",
                   "bnxt_en",
                   {"rx_pfc_ena_frames_pri3", "tx_pfc_ena_frames_pri3", "pfc_pri3_rx_duration_us",
                    "pfc_pri3_tx_duration_us", "pfc_pri3_rx_transitions", "rx_bytes_pri3",
                    "tx_packets_pri0", "rx_pause_frames", "[0]: rx_ucast_packets"},
                   {"rx_prio3_pause", "rx_prio3_pause_duration", "tx_pause_storm_warning_events"}},
        VendorCase{"ice",
                   "ice",
                   {"rx_priority_3_xoff.nic", "tx_priority_3_xoff.nic", "rx_priority_3_xon.nic",
                    "link_xoff_rx.nic", "rx_bytes.nic", "tx_queue_0_packets"},
                   {"rx_prio3_pause", "rx_prio3_pause_duration", "pfc_pri3_rx_duration_us"}},
        VendorCase{"ionic",
                   "ionic",
                   {"rx_pripause_3_1us_count", "tx_pripause_3_1us_count", "frames_rx_pause",
                    "rx_pause_1us_count", "frames_rx_pripause", "tx_0_pkts", "rx_15_bytes"},
                   {"rx_prio3_pause", "rx_priority_3_xoff.nic", "pfc_pri3_rx_duration_us"}}),
    [](const auto& info) { return std::string(info.param.vendor); });

// The FEC reply has codeword counters only where the driver has get_fec_stats (ionic has not).
TEST(SimVendor, FecCountersOnlyWhereTheDriverReportsThem) {
  for (const char* vendor : {"mlx5", "bnxt", "ice", "ionic"}) {
    SCOPED_TRACE(vendor);
    TempDir dir;
    Simulator sim(optionsFor(dir, vendor, "fec-uncorrectable"));
    ASSERT_TRUE(sim.init());
    for (const SimPort& p : sim.ports()) {
      if (p.linkLayer == "InfiniBand") continue;
      const std::string fec = readFile(dir.path() / "fec" / p.interface);
      EXPECT_NE(fec.find("mode: rs\n"), std::string::npos) << fec;
      const bool counted = std::string_view(vendor) != "ionic";
      EXPECT_EQ(fec.find("corrected_blocks:") != std::string::npos, counted) << fec;
      EXPECT_EQ(fec.find("uncorrectable_blocks:") != std::string::npos, counted) << fec;
    }
  }
}

TEST(SimVendor, UnknownVendorIsRejected) {
  TempDir dir;
  Simulator sim(optionsFor(dir, "qlogic"));
  auto st = sim.init();
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("vendor"), std::string::npos);
  EXPECT_EQ(Simulator::vendors().size(), 4u);
}

// Under pause-storm the affected port is paused continuously by received PFC on priority 3: the
// vendor's received-pause counters rise by the storm's rate every second.
struct StormCase {
  const char* vendor;
  const char* framesRx;    // received PFC frames of priority 3; "" when the driver has none
  const char* durationRx;  // µs paused by received PFC; "" when the driver has none
};
void PrintTo(const StormCase& c, std::ostream* os) { *os << c.vendor; }
class SimVendorStormTest : public ::testing::TestWithParam<StormCase> {};

TEST_P(SimVendorStormTest, PauseCountersRiseEverySecond) {
  const StormCase& c = GetParam();
  TempDir dir;
  Simulator sim(optionsFor(dir, c.vendor, "pause-storm"));
  ASSERT_TRUE(sim.init());
  const std::string ifname = sim.affected().at(0).interface;
  auto before = ethtoolOf(sim, ifname);
  for (int s = 0; s < 4; ++s) {
    ASSERT_TRUE(sim.tick(1s));
    const auto after = ethtoolOf(sim, ifname);
    if (*c.framesRx) {
      ASSERT_TRUE(after.count(c.framesRx));
      // 400G, 65535 quanta refreshed at half: ~23 800 frames/s (port_model.cpp).
      EXPECT_GT(after.at(c.framesRx), before.at(c.framesRx) + 10000) << "second " << s;
    }
    if (*c.durationRx) {
      const double paused = static_cast<double>(after.at(c.durationRx) - before.at(c.durationRx));
      EXPECT_GT(paused, 0.99e6) << "second " << s;
      EXPECT_LE(paused, 1.0e6 + 1) << "second " << s;
    }
    before = after;
  }
}

INSTANTIATE_TEST_SUITE_P(Vendors, SimVendorStormTest,
                         ::testing::Values(StormCase{"mlx5", "rx_prio3_pause", "rx_prio3_pause_duration"},
                                           StormCase{"bnxt", "rx_pfc_ena_frames_pri3",
                                                     "pfc_pri3_rx_duration_us"},
                                           StormCase{"ice", "rx_priority_3_xoff.nic", ""},
                                           StormCase{"ionic", "", "rx_pripause_3_1us_count"}),
                         [](const auto& info) { return std::string(info.param.vendor); });

// ---- counter refresh cadence ----

TEST(SimRefresh, DefaultsPerVendorAndAnOverride) {
  for (const auto& [vendor, want] : {std::pair{"mlx5", 0.0}, {"bnxt", 1.0}, {"ice", 0.0}, {"ionic", 0.0}}) {
    TempDir dir;
    Simulator sim(optionsFor(dir, vendor));
    ASSERT_TRUE(sim.init());
    EXPECT_DOUBLE_EQ(sim.counterRefresh(), want) << vendor;
  }
  TempDir dir;
  SimOptions o = optionsFor(dir, "bnxt");
  o.counterRefresh = 0s;
  Simulator sim(o);
  ASSERT_TRUE(sim.init());
  EXPECT_DOUBLE_EQ(sim.counterRefresh(), 0.0);
}

TEST(SimRefresh, NegativeRefreshIsRejected) {
  TempDir dir;
  SimOptions o = optionsFor(dir, "mlx5");
  o.counterRefresh = -1s;
  EXPECT_FALSE(Simulator(o).init());
}

std::string hwFile(const Simulator& sim, const char* counter) {
  return readFile(sim.sysfsRoot() / "class/infiniband/mlx5_0/ports/1/hw_counters" / counter);
}
// Received data keeps flowing in every scenario (a pause storm freezes transmit only).
std::string pmaFile(const Simulator& sim) {
  return readFile(sim.sysfsRoot() / "class/infiniband/mlx5_0/ports/1/counters/port_rcv_data");
}

TEST(SimRefresh, FilesChangeOnlyAtBoundaries) {
  TempDir dir;
  SimOptions o = optionsFor(dir, "mlx5");
  o.counterRefresh = 1s;
  Simulator sim(o);
  ASSERT_TRUE(sim.init());
  const std::string ifname = sim.ports().front().interface;
  const std::string eth0 = readFile(sim.ethtoolDir() / ifname);
  const std::string hw0 = hwFile(sim, "rx_write_requests");
  std::string pma = pmaFile(sim);
  for (int i = 1; i <= 3; ++i) {  // t = 0.25, 0.5, 0.75: inside the first refresh period
    ASSERT_TRUE(sim.tick(250ms));
    EXPECT_EQ(readFile(sim.ethtoolDir() / ifname), eth0) << "t=" << sim.now();
    EXPECT_EQ(hwFile(sim, "rx_write_requests"), hw0) << "t=" << sim.now();
    // The PMA counters are not the NIC's cached statistics: they move on every tick.
    const std::string pmaNow = pmaFile(sim);
    EXPECT_NE(pmaNow, pma) << "t=" << sim.now();
    pma = pmaNow;
  }
  ASSERT_TRUE(sim.tick(250ms));  // t = 1.0: the boundary itself
  const std::string eth1 = readFile(sim.ethtoolDir() / ifname);
  EXPECT_NE(eth1, eth0);
  EXPECT_NE(hwFile(sim, "rx_write_requests"), hw0);
  ASSERT_TRUE(sim.tick(500ms));  // t = 1.5
  EXPECT_EQ(readFile(sim.ethtoolDir() / ifname), eth1);
  ASSERT_TRUE(sim.tick(2s));  // t = 3.5 crosses 2 and 3: shows the values as of 3
  EXPECT_NE(readFile(sim.ethtoolDir() / ifname), eth1);
}

// A NIC with a refresh period shows, after any tick, exactly what a fresh-counter NIC showed at the
// last boundary: the same model, latched.
TEST(SimRefresh, PublishedValuesAreLatchedAtTheBoundary) {
  for (const char* vendor : {"mlx5", "bnxt", "ice", "ionic"}) {
    SCOPED_TRACE(vendor);
    TempDir dirA, dirB;
    SimOptions a = optionsFor(dirA, vendor, "pause-storm");
    a.counterRefresh = 1s;
    SimOptions b = optionsFor(dirB, vendor, "pause-storm");
    b.counterRefresh = 0s;
    Simulator latched(a), fresh(b);
    ASSERT_TRUE(latched.init());
    ASSERT_TRUE(fresh.init());
    for (int i = 0; i < 8; ++i) {  // both to t = 2.0
      ASSERT_TRUE(latched.tick(250ms));
      ASSERT_TRUE(fresh.tick(250ms));
    }
    ASSERT_TRUE(latched.tick(750ms));  // t = 2.75, last boundary 2.0
    const std::string ifname = fresh.ports().front().interface;
    EXPECT_EQ(readFile(latched.ethtoolDir() / ifname), readFile(fresh.ethtoolDir() / ifname));
    EXPECT_EQ(hwFile(latched, "np_ecn_marked_roce_packets"), hwFile(fresh, "np_ecn_marked_roce_packets"));
    EXPECT_NE(pmaFile(latched), pmaFile(fresh));  // the rest of the node is at 2.75
  }
}

TEST(SimRefresh, OneLongTickLatchesTheLastBoundaryInside) {
  TempDir dirA, dirB;
  SimOptions a = optionsFor(dirA, "bnxt");  // default 1 s
  SimOptions b = optionsFor(dirB, "bnxt");
  b.counterRefresh = 0s;
  Simulator latched(a), fresh(b);
  ASSERT_TRUE(latched.init());
  ASSERT_TRUE(fresh.init());
  // latched: one tick to 3.5 (internally advanced to 1, 2, 3 and latched at each); fresh: the same
  // spans, so the RNG draws match.
  ASSERT_TRUE(latched.tick(3500ms));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(fresh.tick(1s));
  const std::string ifname = fresh.ports().front().interface;
  EXPECT_EQ(readFile(latched.ethtoolDir() / ifname), readFile(fresh.ethtoolDir() / ifname));
}

}  // namespace
}  // namespace fabricmon::sim
