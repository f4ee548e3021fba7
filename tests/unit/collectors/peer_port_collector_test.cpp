// The peer_port collector's logic over a fake MadSource (collectors/sources/mad_source.hpp): a
// small fabric model that answers SMPs and PMA queries with buffers encoded by libibmad's own field
// tables, so the collector's decoding path is the real one. The same collector against a real
// simulated fabric is tests/ibsim/ibsim_test.sh.
#include "collectors/peer_port_collector.hpp"

#include <infiniband/mad.h>

#include <cerrno>
#include <map>
#include <optional>
#include <set>

#include <gtest/gtest.h>

#include "collectors/error_tracker.hpp"
#include "collectors/sources/mad_source.hpp"

namespace fabricmon {
namespace {

/// One end of a cable as the fake fabric knows it.
struct FakePort {
  uint64_t guid = 0;
  unsigned port = 1;
  mad::NodeType type = mad::NodeType::kSwitch;
  std::string description;
  unsigned lid = 0;
  unsigned state = 4, physState = 5;    // Active, LinkUp
  unsigned widthActive = 2;             // encoding 2 = 4X
  unsigned widthEnabled = 2 | 1;        // 4X or 1X
  unsigned speedExtActive = 0;          // LinkSpeedExtActive (8 = NDR); 0 = QDR, no extended speeds
  uint16_t pmaCapMask = (1u << 9) | (1u << 12);  // PortCountersExtended, PortXmitWait
  std::map<MAD_FIELDS, uint64_t> counters;
  /// PortInfoExtended.FECModeActive; unset: PortInfo says PortInfoExtended does not answer.
  std::optional<unsigned> fecMode;
  /// PortExtendedSpeedsCounters fields; unset: the PMA does not answer the attribute.
  std::optional<std::map<MAD_FIELDS, uint64_t>> extendedSpeeds;
};

class FakeMadSource final : public MadSource {
 public:
  std::vector<UmadPort> localPorts;
  std::map<std::string, FakePort> local;       ///< "ca/port" → our port
  std::map<std::string, FakePort> neighbours;  ///< "ca/port" → the port at the other end
  std::set<std::string> dead;                  ///< "ca/port" whose MADs time out
  std::set<std::string> deadPma;               ///< "ca/port" whose PMA MADs (only) time out
  std::map<std::string, unsigned> sentTo;      ///< MADs per "ca/port"
  std::map<unsigned, unsigned> pmaSent;        ///< PMA MADs per attribute
  bool extendedSpeedsTimeOut = false;          ///< PortExtendedSpeedsCounters MADs (only) time out
  bool portInfoExtendedFails = false;          ///< PortInfoExtended SMPs (only) are refused
  unsigned reopens = 0;

  Result<std::vector<UmadPort>> ports() override { return localPorts; }

  Result<mad::Payload> smpDirected(const UmadPort& from, const std::vector<uint8_t>& hops, unsigned attr,
                                   unsigned modifier) override {
    const std::string k = key(from);
    ++sent_;
    ++sentTo[k];
    if (dead.count(k) != 0) return Error{"MAD timed out", ETIMEDOUT};
    if (attr == IB_ATTR_PORT_INFO_EXT && portInfoExtendedFails) return Error{"status 0xc", EPROTONOSUPPORT};
    if (hops.empty()) {
      if (attr == IB_ATTR_PORT_INFO_EXT) return portInfoExtended(local.at(k));
      return portInfo(local.at(k), local.at(k).lid, true);
    }
    const FakePort& n = neighbours.at(k);
    mad::Payload p{};
    switch (attr) {
      case IB_ATTR_PORT_INFO_EXT:
        return portInfoExtended(n);
      case IB_ATTR_NODE_INFO:
        mad_set_field(p.data(), 0, IB_NODE_TYPE_F, static_cast<uint32_t>(n.type));
        mad_set_field(p.data(), 0, IB_NODE_NPORTS_F, 36);
        mad_set_field64(p.data(), 0, IB_NODE_GUID_F, n.guid);
        mad_set_field(p.data(), 0, IB_NODE_LOCAL_PORT_F, n.port);
        return p;
      case IB_ATTR_NODE_DESC:
        std::copy(n.description.begin(), n.description.end(), p.begin());
        return p;
      case IB_ATTR_PORT_INFO:
        // A switch's LID is on its port 0 (IBA 14.2.5.6); the port itself carries none.
        // Its capability masks too: a switch's external ports have them reserved (zero here).
        return portInfo(n, modifier == 0 || n.type != mad::NodeType::kSwitch ? n.lid : 0,
                        modifier == 0 || n.type != mad::NodeType::kSwitch);
      default:
        return Error{"unexpected SMP attribute", EINVAL};
    }
  }

  Result<mad::Payload> pma(const UmadPort& from, unsigned lid, unsigned portSelect, unsigned attr) override {
    const std::string k = key(from);
    ++sent_;
    ++sentTo[k];
    ++pmaSent[attr];
    if (dead.count(k) != 0 || deadPma.count(k) != 0) return Error{"MAD timed out", ETIMEDOUT};
    const FakePort* target = nullptr;
    if (neighbours.count(k) != 0 && neighbours.at(k).lid == lid) target = &neighbours.at(k);
    if (local.at(k).lid == lid) target = &local.at(k);
    if (target == nullptr || portSelect != target->port) return Error{"no such LID or port", EHOSTUNREACH};
    mad::Payload p{};
    if (attr == CLASS_PORT_INFO) {
      mad_set_field(p.data(), 0, IB_CPI_BASEVER_F, 1);
      mad_set_field(p.data(), 0, IB_CPI_CAPMASK_F, target->pmaCapMask);
      return p;
    }
    if (attr == IB_GSI_PORT_RCV_ERROR_DETAILS || attr == IB_GSI_PORT_XMIT_DISCARD_DETAILS) {
      return Error{"attribute not supported", EPROTONOSUPPORT};  // optional (IBA 16.1.4)
    }
    if (attr == IB_GSI_PORT_EXT_SPEEDS_COUNTERS) {
      if (!target->extendedSpeeds) return Error{"attribute not supported", EPROTONOSUPPORT};
      if (extendedSpeedsTimeOut) return Error{"MAD timed out", ETIMEDOUT};
      for (const auto& [field, value] : *target->extendedSpeeds) {
        mad_set_field(p.data(), 0, field, static_cast<uint32_t>(value));
      }
      return p;
    }
    for (const auto& [field, value] : target->counters) {
      const bool extended = field >= IB_PC_EXT_FIRST_F && field < IB_PC_EXT_LAST_F;
      if (extended != (attr == IB_GSI_PORT_COUNTERS_EXT)) continue;
      if (extended) {
        mad_set_field64(p.data(), 0, field, value);
      } else {
        mad_set_field(p.data(), 0, field, static_cast<uint32_t>(value));
      }
    }
    return p;
  }

  void reopen(const UmadPort&) override { ++reopens; }
  uint64_t madsSent() const override { return sent_; }

 private:
  static std::string key(const UmadPort& p) { return p.ca + "/" + std::to_string(p.port); }
  static mad::Payload portInfo(const FakePort& port, unsigned lid, bool capabilities) {
    mad::Payload p{};
    mad_set_field(p.data(), 0, IB_PORT_LID_F, lid);
    mad_set_field(p.data(), 0, IB_PORT_STATE_F, port.state);
    mad_set_field(p.data(), 0, IB_PORT_PHYS_STATE_F, port.physState);
    mad_set_field(p.data(), 0, IB_PORT_LINK_WIDTH_ACTIVE_F, port.widthActive);
    mad_set_field(p.data(), 0, IB_PORT_LINK_WIDTH_ENABLED_F, port.widthEnabled);
    mad_set_field(p.data(), 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, 3);
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);   // QDR
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_ENABLED_F, 7);
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_SUPPORTED_F, 7);
    if (port.fecMode && capabilities) {
      mad_set_field(p.data(), 0, IB_PORT_CAPMASK_F, 1u << 15);     // IsCapabilityMask2Supported
      mad_set_field(p.data(), 0, IB_PORT_CAPMASK2_F, 1u << 1);     // IsPortInfoExtendedSupported
    }
    if (port.speedExtActive != 0) {
      mad_set_field(p.data(), 0, IB_PORT_CAPMASK_F, (capabilities && port.fecMode ? 1u << 15 : 0) | 1u << 14);
      mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, port.speedExtActive);
      mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, port.speedExtActive);
      mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, port.speedExtActive);
    }
    return p;
  }
  static mad::Payload portInfoExtended(const FakePort& port) {
    mad::Payload p{};
    mad_set_field(p.data(), 0, IB_PORT_EXT_CAPMASK_F, 1);  // IsFECModeSupported
    mad_set_field(p.data(), 0, IB_PORT_EXT_FEC_MODE_ACTIVE_F, port.fecMode.value_or(0));
    return p;
  }
  uint64_t sent_ = 0;
};

/// A fabric of one local CA port (mlx5_0/1, LID 2) cabled to port 17 of switch "leaf-3" (LID 10).
std::shared_ptr<FakeMadSource> oneCable() {
  auto src = std::make_shared<FakeMadSource>();
  src->localPorts.push_back(UmadPort{"mlx5_0", 1, true, 2, 4, 5, 40});
  FakePort ours;
  ours.guid = 0x1111;
  ours.type = mad::NodeType::kCa;
  ours.lid = 2;
  ours.counters = {{IB_PC_ERR_SYM_F, 3}, {IB_PC_XMT_WAIT_F, 1000}, {IB_PC_EXT_XMT_BYTES_F, 250}};
  src->local["mlx5_0/1"] = ours;
  FakePort sw;
  sw.guid = 0x0002c90300a1b2c3;
  sw.port = 17;
  sw.description = "leaf-3 \"MF0\"";
  sw.lid = 10;
  sw.counters = {{IB_PC_ERR_SYM_F, 7},           {IB_PC_ERR_RCV_F, 65535},  // 16 bit: saturated
                 {IB_PC_LINK_DOWNED_F, 1},       {IB_PC_XMT_WAIT_F, 123456},
                 {IB_PC_EXT_XMT_BYTES_F, 1000},  {IB_PC_EXT_RCV_PKTS_F, 42},
                 {IB_PC_EXT_XMT_UPKTS_F, 9}};
  src->neighbours["mlx5_0/1"] = sw;
  return src;
}

/// One collector run: the samples by series key, and the number of per-file errors.
struct PollResult {
  std::map<std::string, double> values;
  std::set<std::string> unread;  ///< Batch::unread, by series key
  uint64_t errors = 0;
  CollectStatus status{};
  bool has(std::string_view prefix) const {
    for (const auto& [k, v] : values) {
      if (k.starts_with(prefix)) return true;
    }
    return false;
  }
  std::optional<double> value(const std::string& key) const {
    auto it = values.find(key);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
};

class PeerPortCollectorTest : public ::testing::Test {
 protected:
  PollResult run(Collector& c, const Topology& topology = {}) {
    Batch batch;
    CollectOutput out(batch, errors_);
    const std::vector<Sample>& samples = batch.samples;
    PollResult r;
    r.status = c.collect(topology, out);
    for (const Sample& s : samples) r.values[s.series->key] = s.value;
    for (const SeriesPtr& s : batch.unread) r.unread.insert(s->key);
    r.errors = out.errorCount();
    return r;
  }
  ErrorTracker errors_{"peer_port"};
};

const std::string kPort = R"(device="mlx5_0",port="1")";

TEST_F(PeerPortCollectorTest, ExportsTheNeighboursIdentityAndCountersUnderTheLocalPortsLabels) {
  auto src = oneCable();
  auto c = makePeerPortCollector(src);
  const PollResult r = run(*c);
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.value(R"(fabricmon_peer_port_info{device="mlx5_0",port="1",peer_guid="0x0002c90300a1b2c3",)"
                    R"(peer_port="17",peer_description="leaf-3 ?MF0?",peer_type="switch"})"),
            1.0);
  EXPECT_EQ(r.value(R"(fabricmon_port_neighbor_info{device="mlx5_0",port="1",interface="",chassis_name="leaf-3 ?MF0?",)"
                    R"(chassis_id="0x0002c90300a1b2c3",port_id="17",port_description="",source="mad"})"),
            1.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_symbol_errors_total{" + kPort + "}"), 7.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_link_downed_total{" + kPort + "}"), 1.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_transmit_wait_total{" + kPort + "}"), 123456.0);
  // PortCountersExtended: data in 4-byte words, as bytes.
  EXPECT_EQ(r.value("fabricmon_peer_port_transmit_bytes_total{" + kPort + "}"), 4000.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_receive_packets_total{" + kPort + "}"), 42.0);
  EXPECT_EQ(r.value("fabricmon_peer_pma_stat_total{" + kPort + R"(,counter="unicast_xmit_packets"})"), 9.0);
  // A 16-bit counter at its maximum is flagged; one below it is not.
  EXPECT_EQ(r.value("fabricmon_peer_port_pma_saturated{" + kPort + R"(,counter="port_rcv_errors"})"), 1.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_pma_saturated{" + kPort + R"(,counter="symbol_error"})"), 0.0);
  // Width and speed of both ends: 4X QDR, 1X or 4X enabled.
  EXPECT_EQ(r.value("fabricmon_peer_port_link_width_active_lanes{" + kPort + "}"), 4.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_link_width_enabled_lanes{" + kPort + "}"), 4.0);
  EXPECT_EQ(r.value("fabricmon_port_lane_speed_active_bytes_per_second{" + kPort + "}"), 10e9 / 8);
  EXPECT_EQ(r.value("fabricmon_peer_port_state{" + kPort + "}"), 4.0);
}

TEST_F(PeerPortCollectorTest, FillsTheLocalPortFromMadsOnlyWhereSysfsDoesNotShowIt) {
  auto src = oneCable();
  auto c = makePeerPortCollector(src);
  const PollResult bare = run(*c);
  EXPECT_EQ(bare.value("fabricmon_port_symbol_errors_total{" + kPort + "}"), 3.0);
  EXPECT_EQ(bare.value("fabricmon_port_transmit_wait_total{" + kPort + "}"), 1000.0);
  EXPECT_EQ(bare.value(R"(fabricmon_port_info{device="mlx5_0",port="1",interface="",link_layer="InfiniBand",)"
                       R"x(rate="40 Gb/sec (4X)"})x"),
            1.0);
  EXPECT_EQ(bare.value("fabricmon_port_rate_bytes_per_second{" + kPort + "}"), 40e9 / 8);

  // An NDR port over MADs gets the rate its sysfs rate file would show (400 Gb/s), not the
  // signalling rate (4 x 106.25 = 425): the same port must not change rate between the two.
  auto ndr = oneCable();
  ndr->local["mlx5_0/1"].speedExtActive = 8;
  auto cNdr = makePeerPortCollector(ndr);
  const PollResult fast = run(*cNdr);
  EXPECT_EQ(fast.value("fabricmon_port_rate_bytes_per_second{" + kPort + "}"), 400e9 / 8);

  Topology sysfs;
  sysfs.devices.push_back(RdmaDevice{"mlx5_0", "0000:17:00.0", 1, {RdmaPort{1, "InfiniBand", {"ib0"}}}});
  auto c2 = makePeerPortCollector(src);
  const PollResult withSysfs = run(*c2, sysfs);
  EXPECT_FALSE(withSysfs.has("fabricmon_port_symbol_errors_total"));
  EXPECT_FALSE(withSysfs.has("fabricmon_port_info{"));
  EXPECT_TRUE(withSysfs.has("fabricmon_peer_port_symbol_errors_total"));
  // The neighbour's interface label is the port's netdev when sysfs shows one.
  EXPECT_TRUE(withSysfs.has(R"(fabricmon_port_neighbor_info{device="mlx5_0",port="1",interface="ib0",)"));
}

// A device that sysfs has shown and that is away for a moment (removed and not yet discovered
// again) is still rdma_port's: peer_port does not fill the gap with series rdma_port's next batch
// would also carry (found by scripts/soak's device churn: 37 clashing series, and a MAD-computed
// rate that made port_degraded fire).
TEST_F(PeerPortCollectorTest, ADeviceSysfsHasShownStaysRdmaPortsWhileItIsAway) {
  auto src = oneCable();
  auto c = makePeerPortCollector(src);
  Topology sysfs;
  sysfs.devices.push_back(RdmaDevice{"mlx5_0", "0000:17:00.0", 1, {RdmaPort{1, "InfiniBand", {"ib0"}}}});
  EXPECT_FALSE(run(*c, sysfs).has("fabricmon_port_info{"));
  // Away: its umad port goes too (the port's memory is dropped) ...
  const std::vector<UmadPort> ports = src->localPorts;
  src->localPorts.clear();
  EXPECT_FALSE(run(*c, Topology{}).has("fabricmon_port_info{"));
  // ... and answers MADs again before discovery sees the device.
  src->localPorts = ports;
  const PollResult away = run(*c, Topology{});
  EXPECT_FALSE(away.has("fabricmon_port_info{"));
  EXPECT_FALSE(away.has("fabricmon_port_rate_bytes_per_second{"));
  EXPECT_FALSE(away.has("fabricmon_port_symbol_errors_total"));
  EXPECT_TRUE(away.has("fabricmon_peer_port_symbol_errors_total"));
}

TEST_F(PeerPortCollectorTest, PortXmitWaitOnlyWhereTheCapabilityMaskSaysItIsValid) {
  auto src = oneCable();
  src->neighbours["mlx5_0/1"].pmaCapMask = 1u << 9;  // no bit 12
  auto c = makePeerPortCollector(src);
  const PollResult r = run(*c);
  EXPECT_FALSE(r.has("fabricmon_peer_port_transmit_wait_total"));
  EXPECT_TRUE(r.has("fabricmon_peer_port_symbol_errors_total"));
}

TEST_F(PeerPortCollectorTest, RoceOnlyNodeIsNoDataAndSendsNoMad) {
  auto src = std::make_shared<FakeMadSource>();
  src->localPorts.push_back(UmadPort{"mlx5_0", 1, false, 0, 4, 5, 400});
  auto c = makePeerPortCollector(src);
  const PollResult r = run(*c);
  EXPECT_EQ(r.status, CollectStatus::kNoData);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_TRUE(r.values.empty());
  EXPECT_EQ(src->madsSent(), 0u);
}

TEST_F(PeerPortCollectorTest, ANewNeighbourReplacesTheOldOnesSeries) {
  auto src = oneCable();
  auto c = makePeerPortCollector(src);
  ASSERT_TRUE(run(*c).has(R"(fabricmon_peer_port_info{device="mlx5_0",port="1",peer_guid="0x0002c90300a1b2c3")"));
  // Re-cabled to another switch.
  FakePort& n = src->neighbours["mlx5_0/1"];
  n.guid = 0x0002c90300ffff01;
  n.description = "leaf-4";
  n.port = 5;
  const PollResult r = run(*c);
  EXPECT_FALSE(r.has(R"(fabricmon_peer_port_info{device="mlx5_0",port="1",peer_guid="0x0002c90300a1b2c3")"));
  EXPECT_TRUE(r.has(R"(fabricmon_peer_port_info{device="mlx5_0",port="1",peer_guid="0x0002c90300ffff01",peer_port="5",peer_description="leaf-4")"));
  EXPECT_FALSE(r.has(R"(fabricmon_port_neighbor_info{device="mlx5_0",port="1",interface="",chassis_name="leaf-3)"));
  EXPECT_TRUE(r.has(R"(fabricmon_port_neighbor_info{device="mlx5_0",port="1",interface="",chassis_name="leaf-4",chassis_id="0x0002c90300ffff01",port_id="5")"));
}

TEST_F(PeerPortCollectorTest, ATimedOutPortIsAnErrorOfThatPortOnlyAndIsReopenedAfterThreePolls) {
  auto src = oneCable();
  src->localPorts.push_back(UmadPort{"mlx5_1", 1, true, 3, 4, 5, 40});
  src->local["mlx5_1/1"] = src->local["mlx5_0/1"];
  src->local["mlx5_1/1"].lid = 3;
  src->neighbours["mlx5_1/1"] = src->neighbours["mlx5_0/1"];
  src->neighbours["mlx5_1/1"].port = 18;
  auto c = makePeerPortCollector(src);
  ASSERT_EQ(run(*c).errors, 0u);

  src->dead.insert("mlx5_0/1");
  for (int poll = 1; poll <= 3; ++poll) {
    const unsigned before = src->sentTo["mlx5_0/1"];
    const PollResult r = run(*c);
    EXPECT_EQ(r.status, CollectStatus::kOk);
    EXPECT_GE(r.errors, 1u);
    // The dead port's first MAD fails and nothing more is sent to it in that poll.
    EXPECT_EQ(src->sentTo["mlx5_0/1"] - before, 1u);
    EXPECT_FALSE(r.has(R"(fabricmon_peer_port_info{device="mlx5_0")"));
    EXPECT_FALSE(r.has("fabricmon_peer_port_symbol_errors_total{" + kPort + "}"));
    // The other port goes on.
    EXPECT_TRUE(r.has(R"(fabricmon_peer_port_info{device="mlx5_1",port="1")"));
    EXPECT_EQ(src->reopens, poll < 3 ? 0u : 1u) << "poll " << poll;
  }
  src->dead.clear();
  const PollResult back = run(*c);
  EXPECT_EQ(back.errors, 0u);
  EXPECT_TRUE(back.unread.empty());
  EXPECT_EQ(back.value("fabricmon_peer_port_symbol_errors_total{" + kPort + "}"), 7.0);
}

// A MAD that times out is a dead or busy peer, not a port that left: what the port's reads gave
// before and not this time is unread (Batch::unread), so the watchdog keeps its history and the
// findings it holds up.
TEST_F(PeerPortCollectorTest, WhatATimedOutReadDidNotGiveIsUnreadNotGone) {
  auto src = oneCable();
  auto c = makePeerPortCollector(src);
  const PollResult good = run(*c);
  ASSERT_EQ(good.errors, 0u);
  EXPECT_TRUE(good.unread.empty());
  const std::string downs = "fabricmon_port_link_down_observed_total{" + kPort + "}";
  const std::string peerDowns = "fabricmon_peer_port_link_down_observed_total{" + kPort + "}";

  // The switch's PMA stops answering while its SMA still does: its counters are unread, the rest
  // of the port is read.
  src->deadPma.insert("mlx5_0/1");
  PollResult r = run(*c);
  EXPECT_GE(r.errors, 1u);
  EXPECT_TRUE(r.has("fabricmon_peer_port_info{"));
  EXPECT_EQ(r.unread.count("fabricmon_peer_port_symbol_errors_total{" + kPort + "}"), 1u);
  EXPECT_EQ(r.unread.count("fabricmon_port_symbol_errors_total{" + kPort + "}"), 1u) << "ours over MADs too";
  for (const std::string& key : r.unread) {
    EXPECT_EQ(good.values.count(key), 1u) << "only what the last good read gave: " << key;
    EXPECT_EQ(r.values.count(key), 0u) << "given and unread: " << key;
  }
  for (const auto& [key, value] : good.values) {
    EXPECT_EQ(r.values.count(key) + r.unread.count(key), 1u) << "neither given nor unread: " << key;
  }

  // Every MAD of the port times out: all of it is unread but the down counts, which are ours.
  src->deadPma.clear();
  src->dead.insert("mlx5_0/1");
  r = run(*c);
  EXPECT_EQ(r.values.size(), 2u);
  EXPECT_EQ(r.values.count(downs) + r.values.count(peerDowns), 2u);
  EXPECT_EQ(r.unread.size() + 2, good.values.size());
  EXPECT_EQ(r.unread.count(R"(fabricmon_peer_port_info{device="mlx5_0",port="1",peer_guid="0x0002c90300a1b2c3",)"
                           R"(peer_port="17",peer_description="leaf-3 ?MF0?",peer_type="switch"})"),
            1u);

  // Once sysfs shows the device, its own series are rdma_port's and pma_counters': peer_port no
  // longer reports them, even unread (one series, one source).
  Topology sysfs;
  sysfs.devices.push_back(RdmaDevice{"mlx5_0", "0000:17:00.0", 1, {RdmaPort{1, "InfiniBand", {"ib0"}}}});
  r = run(*c, sysfs);
  EXPECT_EQ(r.unread.count("fabricmon_port_symbol_errors_total{" + kPort + "}"), 0u);
  EXPECT_EQ(r.unread.count("fabricmon_port_rate_bytes_per_second{" + kPort + "}"), 0u);
  for (const std::string& key : r.unread) EXPECT_EQ(key.find("fabricmon_port_info{"), std::string::npos) << key;
  EXPECT_EQ(r.unread.count("fabricmon_peer_port_symbol_errors_total{" + kPort + "}"), 1u);
  EXPECT_EQ(r.unread.count("fabricmon_port_lane_speed_active_bytes_per_second{" + kPort + "}"), 1u)
      << "the port's MAD-only quantities stay peer_port's";
}

// A port whose link is down is read fine: its neighbour is not there to be read, and its series
// leave rather than being held.
TEST_F(PeerPortCollectorTest, ALinkDownIsNotAnUnreadNeighbour) {
  auto src = oneCable();
  auto c = makePeerPortCollector(src);
  ASSERT_TRUE(run(*c).has("fabricmon_peer_port_info{"));
  src->local["mlx5_0/1"].state = 1;
  src->local["mlx5_0/1"].physState = 3;
  const PollResult r = run(*c);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_TRUE(r.unread.empty());
  EXPECT_FALSE(r.has("fabricmon_peer_port_info{"));
}

TEST_F(PeerPortCollectorTest, LosingTheNeighbourCountsADownOnItsSide) {
  auto src = oneCable();
  auto c = makePeerPortCollector(src);
  run(*c);
  src->neighbours["mlx5_0/1"].state = 1;  // the switch port went Down; ours still up (a moment)
  src->neighbours["mlx5_0/1"].physState = 3;
  const PollResult r = run(*c);
  EXPECT_EQ(r.value("fabricmon_peer_port_link_down_observed_total{" + kPort + "}"), 1.0);
  EXPECT_EQ(r.value("fabricmon_port_link_down_observed_total{" + kPort + "}"), 0.0);
  src->local["mlx5_0/1"].state = 1;  // now ours too
  const PollResult r2 = run(*c);
  EXPECT_EQ(r2.value("fabricmon_port_link_down_observed_total{" + kPort + "}"), 1.0);
  EXPECT_EQ(r2.value("fabricmon_peer_port_link_down_observed_total{" + kPort + "}"), 1.0);
}

TEST_F(PeerPortCollectorTest, DevicesIncludeAndExcludeSelectTheLocalCas) {
  auto src = oneCable();
  src->localPorts.push_back(UmadPort{"mlx5_9", 1, true, 3, 4, 5, 40});
  src->local["mlx5_9/1"] = src->local["mlx5_0/1"];
  src->neighbours["mlx5_9/1"] = src->neighbours["mlx5_0/1"];
  auto c = makePeerPortCollector(src, NameFilter({"mlx5_.*"}, {"mlx5_9"}, "devices"));
  const PollResult r = run(*c);
  EXPECT_TRUE(r.has(R"(fabricmon_peer_port_info{device="mlx5_0")"));
  EXPECT_FALSE(r.has(R"(fabricmon_peer_port_info{device="mlx5_9")"));
  EXPECT_EQ(src->sentTo["mlx5_9/1"], 0u) << "an excluded device is not even asked";
}

// ---- the link's FEC, both ends (PortInfoExtended, PortExtendedSpeedsCounters) ----

/// An NDR link: 4X, RS-FEC2 (RS(544,514)) on both ends, the PMAs with the RS-FEC layout.
std::shared_ptr<FakeMadSource> rsFecCable() {
  auto src = oneCable();
  for (FakePort* p : {&src->local["mlx5_0/1"], &src->neighbours["mlx5_0/1"]}) {
    p->speedExtActive = 8;
    p->fecMode = 4;
    p->pmaCapMask |= 1u << 14;  // IsPortExtendedSpeedsRSFECCountersSupported
  }
  src->local["mlx5_0/1"].extendedSpeeds = std::map<MAD_FIELDS, uint64_t>{
      {IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE0_F, 10}, {IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE1_F, 20},
      {IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE2_F, 30}, {IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE3_F, 40},
      {IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE4_F, 999},  // beyond the 4 lanes the link trained to
      {IB_PESC_PORT_FEC_CORR_BLOCK_CTR_F, 95},           {IB_PESC_PORT_FEC_UNCORR_BLOCK_CTR_F, 2},
      {IB_PESC_PORT_FEC_CORR_SYMBOL_CTR_F, 100}};
  src->neighbours["mlx5_0/1"].extendedSpeeds = std::map<MAD_FIELDS, uint64_t>{
      {IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE2_F, 7000}, {IB_PESC_PORT_FEC_CORR_SYMBOL_CTR_F, 7000},
      {IB_PESC_PORT_FEC_CORR_BLOCK_CTR_F, 6500}};
  return src;
}

TEST_F(PeerPortCollectorTest, BothEndsFecModeAndCountersInTheRsFecLayout) {
  auto src = rsFecCable();
  auto c = makePeerPortCollector(src);
  const PollResult r = run(*c);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(r.value("fabricmon_port_fec_info{" + kPort + R"x(,mode="rs2",code="RS(544,514)"})x"), 1.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_fec_info{" + kPort + R"x(,mode="rs2",code="RS(544,514)"})x"), 1.0);
  EXPECT_EQ(r.value("fabricmon_port_fec_corrected_symbols_total{" + kPort + "}"), 100.0);
  EXPECT_EQ(r.value("fabricmon_port_fec_corrected_blocks_total{" + kPort + "}"), 95.0);
  EXPECT_EQ(r.value("fabricmon_port_fec_uncorrectable_blocks_total{" + kPort + "}"), 2.0);
  for (int lane = 0; lane < 4; ++lane) {
    EXPECT_EQ(r.value("fabricmon_port_fec_lane_corrected_symbols_total{" + kPort + ",lane=\"" + std::to_string(lane) +
                      "\"}"),
              10.0 * (lane + 1));
  }
  EXPECT_FALSE(r.has("fabricmon_port_fec_lane_corrected_symbols_total{" + kPort + ",lane=\"4\""));
  EXPECT_FALSE(r.has("fabricmon_port_fec_lane_corrected_blocks_total"));
  EXPECT_EQ(r.value("fabricmon_peer_port_fec_corrected_symbols_total{" + kPort + "}"), 7000.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_fec_lane_corrected_symbols_total{" + kPort + ",lane=\"2\"}"), 7000.0);
  EXPECT_EQ(r.value("fabricmon_peer_port_fec_corrected_blocks_total{" + kPort + "}"), 6500.0);
}

TEST_F(PeerPortCollectorTest, AFireCodeLinksLanesAreSummedIntoThePorts) {
  auto src = rsFecCable();
  FakePort& ours = src->local["mlx5_0/1"];
  ours.fecMode = 1;  // FireCode (FDR): the per-lane block layout, whatever the PMA supports
  ours.extendedSpeeds = std::map<MAD_FIELDS, uint64_t>{
      {IB_PESC_FEC_CORR_BLOCK_CTR_LANE0_F, 5},   {IB_PESC_FEC_CORR_BLOCK_CTR_LANE3_F, 6},
      {IB_PESC_FEC_UNCORR_BLOCK_CTR_LANE1_F, 1}, {IB_PESC_FEC_UNCORR_BLOCK_CTR_LANE2_F, 2}};
  auto c = makePeerPortCollector(src);
  const PollResult r = run(*c);
  EXPECT_EQ(r.value("fabricmon_port_fec_info{" + kPort + R"x(,mode="firecode",code="BaseR(2112,2080)"})x"), 1.0);
  EXPECT_EQ(r.value("fabricmon_port_fec_corrected_blocks_total{" + kPort + "}"), 11.0);
  EXPECT_EQ(r.value("fabricmon_port_fec_uncorrectable_blocks_total{" + kPort + "}"), 3.0);
  EXPECT_EQ(r.value("fabricmon_port_fec_lane_corrected_blocks_total{" + kPort + ",lane=\"3\"}"), 6.0);
  EXPECT_FALSE(r.has("fabricmon_port_fec_corrected_symbols_total{" + kPort));
  // One lane's counter stopped at its 32-bit maximum: the port's sum no longer tells the truth and
  // stops there too, where the watchdog sees a saturated counter (watchdog/input_families.cpp).
  (*ours.extendedSpeeds)[IB_PESC_FEC_CORR_BLOCK_CTR_LANE3_F] = 0xffffffff;
  EXPECT_EQ(run(*c).value("fabricmon_port_fec_corrected_blocks_total{" + kPort + "}"), 4294967295.0);
  // The RS-FEC layout needs both the mode and the PMA's capability.
  src->local["mlx5_0/1"].fecMode = 4;
  src->local["mlx5_0/1"].pmaCapMask &= ~(1u << 14);
  auto fresh = makePeerPortCollector(src);
  EXPECT_FALSE(run(*fresh).has("fabricmon_port_fec_corrected_symbols_total{" + kPort));
}

// PortExtendedSpeedsCounters are optional (IBA 16.1.4) and have no capability bit of their own:
// ibsim, for one, never answers them.
TEST_F(PeerPortCollectorTest, APmaThatNeverAnswersExtendedSpeedsCountersIsAskedThreeTimes) {
  auto src = oneCable();
  auto c = makePeerPortCollector(src);
  for (int poll = 0; poll < 6; ++poll) {
    const PollResult r = run(*c);
    EXPECT_EQ(r.errors, 0u) << poll;
    EXPECT_TRUE(r.unread.empty()) << poll;
    EXPECT_FALSE(r.has("fabricmon_port_fec_")) << poll;
    EXPECT_FALSE(r.has("fabricmon_peer_port_fec_")) << poll;
  }
  EXPECT_EQ(src->pmaSent[IB_GSI_PORT_EXT_SPEEDS_COUNTERS], 6u);  // three for each end, then never
  EXPECT_EQ(run(*c).errors, 0u);
  EXPECT_EQ(src->pmaSent[IB_GSI_PORT_EXT_SPEEDS_COUNTERS], 6u);
}

TEST_F(PeerPortCollectorTest, FecCountersThatAnsweredAndThenTimeOutAreAnErrorAndUnread) {
  auto src = rsFecCable();
  auto c = makePeerPortCollector(src);
  ASSERT_EQ(run(*c).errors, 0u);
  src->extendedSpeedsTimeOut = true;
  const PollResult r = run(*c);
  EXPECT_GE(r.errors, 1u);
  EXPECT_TRUE(r.unread.contains("fabricmon_port_fec_corrected_symbols_total{" + kPort + "}"));
  EXPECT_TRUE(r.unread.contains("fabricmon_peer_port_fec_corrected_symbols_total{" + kPort + "}"));
  EXPECT_FALSE(r.has("fabricmon_port_fec_corrected_symbols_total"));
  src->extendedSpeedsTimeOut = false;
  const PollResult back = run(*c);
  EXPECT_EQ(back.errors, 0u);
  EXPECT_EQ(back.value("fabricmon_port_fec_corrected_symbols_total{" + kPort + "}"), 100.0);
}

// While the link is down nothing is read, and nothing of the link's FEC is lost: link_ber holds
// what it judged until the link is back.
TEST_F(PeerPortCollectorTest, ALinkDownHoldsBothEndsFecSeriesUnread) {
  auto src = rsFecCable();
  auto c = makePeerPortCollector(src);
  ASSERT_EQ(run(*c).errors, 0u);
  src->local["mlx5_0/1"].state = 1;
  src->local["mlx5_0/1"].physState = 2;
  const PollResult down = run(*c);
  EXPECT_EQ(down.errors, 0u);
  EXPECT_FALSE(down.has("fabricmon_port_fec_"));
  for (const char* name : {"fabricmon_port_fec_corrected_symbols_total", "fabricmon_peer_port_fec_corrected_symbols_total",
                           "fabricmon_port_fec_uncorrectable_blocks_total"}) {
    EXPECT_TRUE(down.unread.contains(name + ("{" + kPort + "}"))) << name;
  }
  EXPECT_TRUE(down.unread.contains("fabricmon_port_fec_info{" + kPort + R"x(,mode="rs2",code="RS(544,514)"})x"));
}

// A link that retrained narrower (4X to 1X: a failing cable's symptom) keeps its RS-FEC port
// totals, which do not depend on the lanes, and loses the lanes it left. Another layout (RS-FEC to
// FireCode) is other counters under the same names: the old series leave for one run, so no rule
// reads the change as a jump in them.
TEST_F(PeerPortCollectorTest, ANarrowerLinkKeepsItsTotalsAndAnotherLayoutStartsAgain) {
  auto src = rsFecCable();
  auto c = makePeerPortCollector(src);
  ASSERT_TRUE(run(*c).has("fabricmon_port_fec_lane_corrected_symbols_total{" + kPort + ",lane=\"3\"}"));
  src->local["mlx5_0/1"].widthActive = 1;  // 1X
  const PollResult narrower = run(*c);
  EXPECT_EQ(narrower.value("fabricmon_port_fec_corrected_symbols_total{" + kPort + "}"), 100.0);
  EXPECT_TRUE(narrower.has("fabricmon_port_fec_lane_corrected_symbols_total{" + kPort + ",lane=\"0\"}"));
  EXPECT_FALSE(narrower.has("fabricmon_port_fec_lane_corrected_symbols_total{" + kPort + ",lane=\"1\"}"));
  src->deadPma.insert("mlx5_0/1");  // a failed read afterwards: the lanes it left are not held
  const PollResult failed = run(*c);
  EXPECT_FALSE(failed.unread.contains("fabricmon_port_fec_lane_corrected_symbols_total{" + kPort + ",lane=\"1\"}"));
  src->deadPma.clear();

  src->local["mlx5_0/1"].fecMode = 1;  // FireCode
  const PollResult changed = run(*c);
  EXPECT_FALSE(changed.has("fabricmon_port_fec_corrected_blocks_total{" + kPort));
  EXPECT_FALSE(changed.unread.contains("fabricmon_port_fec_corrected_blocks_total{" + kPort + "}"));
  EXPECT_TRUE(changed.has("fabricmon_peer_port_fec_corrected_symbols_total{" + kPort)) << "the other end goes on";
  const PollResult next = run(*c);
  EXPECT_TRUE(next.has("fabricmon_port_fec_corrected_blocks_total{" + kPort));
  EXPECT_FALSE(next.has("fabricmon_port_fec_corrected_symbols_total{" + kPort));
}

// Where PortInfo promises PortInfoExtended, the counters are read in the layout its mode gives:
// not before it has answered once (a FireCode decode of RS-FEC counters is garbage), and in the
// last mode it gave while it does not answer. Neither is a failed read of the port.
TEST_F(PeerPortCollectorTest, ThePromisedFecModeDecidesTheLayoutAndItsLastAnswerHolds) {
  auto src = rsFecCable();
  src->portInfoExtendedFails = true;
  auto c = makePeerPortCollector(src);
  const PollResult never = run(*c);
  EXPECT_EQ(never.errors, 0u);
  EXPECT_TRUE(never.unread.empty());
  EXPECT_TRUE(never.has("fabricmon_peer_port_symbol_errors_total{" + kPort));
  EXPECT_FALSE(never.has("fabricmon_port_fec_"));
  EXPECT_FALSE(never.has("fabricmon_peer_port_fec_"));

  src->portInfoExtendedFails = false;
  ASSERT_EQ(run(*c).value("fabricmon_port_fec_corrected_symbols_total{" + kPort + "}"), 100.0);
  src->portInfoExtendedFails = true;
  const PollResult after = run(*c);
  EXPECT_EQ(after.errors, 0u);
  EXPECT_EQ(after.value("fabricmon_port_fec_corrected_symbols_total{" + kPort + "}"), 100.0);
  EXPECT_EQ(after.value("fabricmon_port_fec_info{" + kPort + R"x(,mode="rs2",code="RS(544,514)"})x"), 1.0);
}

}  // namespace
}  // namespace fabricmon
