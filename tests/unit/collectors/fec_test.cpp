// The fec group: the fec_dir YAML parser, the ethtool generic-netlink messages (built and parsed
// byte by byte), the fec collector over the file source, and the ethtool dialects' pre-FEC names.

#include <gtest/gtest.h>

#include <limits>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "collectors/error_tracker.hpp"
#include "collectors/ethtool_dialects/dialect.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/fec_netlink_msg.hpp"
#include "collectors/sources/netlink_socket.hpp"
#include "model/families/ethtool.hpp"
#include "model/families/fec.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

// ---- the file source ----

TEST(FecYaml, CountersWithAndWithoutLanes) {
  auto info = parseFecYaml(
      "mode: rs\nspeed_mbps: 400000\nlanes: 4\ncorrected_blocks: [10, 1, 2, 3, 4]\nuncorrectable_blocks: 0\n"
      "corrected_bits: 99\n");
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(*info->mode, "rs");
  EXPECT_EQ(*info->speedMbps, 400000u);
  EXPECT_EQ(*info->lanes, 4u);
  EXPECT_EQ(*info->corrected.total, 10u);
  EXPECT_EQ(info->corrected.lanes, (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(*info->uncorrectable.total, 0u);
  EXPECT_TRUE(info->uncorrectable.lanes.empty());
  EXPECT_EQ(*info->correctedBits.total, 99u);
}

TEST(FecYaml, EveryKeyIsOptional) {
  auto info = parseFecYaml("mode: off\n");
  ASSERT_TRUE(info);
  EXPECT_FALSE(info->corrected.total);
  EXPECT_FALSE(info->speedMbps);
}

TEST(FecYaml, ValuesOutsideTheirDomainAreErrors) {
  for (const char* bad : {"mode: fast\n", "lanes: 9\n", "lanes: 0\n", "speed_mbps: 0\n", "speed_mbps: -1\n",
                          "corrected_blocks: -5\n", "corrected_blocks: 1.5\n", "corrected_blocks: [1,2,3,4,5,6,7,8,9,10]\n",
                          "corrected_blocks: []\n", "speed: 1\n", "mode: rs\nmode: off\n", "[1, 2]\n",
                          "corrected_blocks: 18446744073709551616\n", "corrected_blocks: {a: 1}\n"}) {
    EXPECT_FALSE(parseFecYaml(bad)) << bad;
  }
}

TEST(FecFileSource, MissingFileIsNoDataAndBadFileAnError) {
  testing::TempDir dir;
  auto src = makeFecFileSource(dir.path());
  auto none = src->read("eth0");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());
  dir.write("eth1", "");
  EXPECT_FALSE(src->read("eth1"));
  dir.write("eth2", "mode: [\n");
  EXPECT_FALSE(src->read("eth2"));
  EXPECT_FALSE(src->read("../etc"));
  dir.write("eth3", "mode: rs\ncorrected_blocks: 7\n");
  auto ok = src->read("eth3");
  ASSERT_TRUE(ok);
  ASSERT_TRUE(ok->has_value());
  EXPECT_EQ(*(*ok)->corrected.total, 7u);
}

// ---- the netlink messages ----

struct Reply {
  std::vector<uint8_t> bytes;
  explicit Reply(uint16_t type, uint8_t cmd, uint32_t seq) {
    bytes.resize(NLMSG_HDRLEN + GENL_HDRLEN);
    nlmsghdr h{};
    h.nlmsg_type = type;
    h.nlmsg_seq = seq;
    std::memcpy(bytes.data(), &h, sizeof h);
    genlmsghdr g{};
    g.cmd = cmd;
    std::memcpy(bytes.data() + NLMSG_HDRLEN, &g, sizeof g);
  }
  template <class T>
  void add(uint16_t type, T v) {
    ethnl::putAttr(bytes, type, {reinterpret_cast<const uint8_t*>(&v), sizeof v});
  }
  void nest(uint16_t type, const std::vector<uint8_t>& inner) { ethnl::putAttr(bytes, type | NLA_F_NESTED, inner); }
  std::span<const uint8_t> done() {
    const auto len = static_cast<uint32_t>(bytes.size());
    std::memcpy(bytes.data(), &len, sizeof len);
    return bytes;
  }
};

std::vector<uint8_t> u64s(std::initializer_list<uint64_t> v) {
  std::vector<uint8_t> out(v.size() * 8);
  std::memcpy(out.data(), std::data(v), out.size());
  return out;
}

TEST(EthtoolNetlink, RequestCarriesTheInterfaceAndTheStatsFlag) {
  auto msg = ethnl::buildGetRequest(27, ETHTOOL_MSG_FEC_GET, "eth0", ETHTOOL_FLAG_STATS, 5);
  nlmsghdr h{};
  std::memcpy(&h, msg.data(), sizeof h);
  EXPECT_EQ(h.nlmsg_len, msg.size());
  EXPECT_EQ(h.nlmsg_type, 27);
  EXPECT_EQ(h.nlmsg_seq, 5u);
  EXPECT_EQ(msg[NLMSG_HDRLEN], ETHTOOL_MSG_FEC_GET);
  // header nest: DEV_NAME "eth0\0", FLAGS = STATS
  const uint8_t* nest = msg.data() + NLMSG_HDRLEN + GENL_HDRLEN;
  nlattr a{};
  std::memcpy(&a, nest, sizeof a);
  EXPECT_EQ(a.nla_type, ETHTOOL_A_FEC_HEADER | NLA_F_NESTED);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(nest + 2 * NLA_HDRLEN)), "eth0");
  uint32_t flags = 0;
  std::memcpy(&flags, nest + NLA_HDRLEN + 12 + NLA_HDRLEN, sizeof flags);  // "eth0\0" padded to 8
  EXPECT_EQ(flags, static_cast<uint32_t>(ETHTOOL_FLAG_STATS));
}

TEST(EthtoolNetlink, FecReplyWithPerLaneStats) {
  Reply r(27, ETHTOOL_MSG_FEC_GET_REPLY, 9);
  r.add<uint32_t>(ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_RS_BIT);
  std::vector<uint8_t> stats;
  ethnl::putAttr(stats, ETHTOOL_A_FEC_STAT_CORRECTED, u64s({30, 10, 20}));
  ethnl::putAttr(stats, ETHTOOL_A_FEC_STAT_UNCORR, u64s({2}));
  r.nest(ETHTOOL_A_FEC_STATS, stats);
  auto reply = ethnl::parseFecReply(r.done(), 9, 27);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->kernelErrno, 0);
  EXPECT_EQ(*reply->info.mode, "rs");
  EXPECT_EQ(*reply->info.corrected.total, 30u);
  EXPECT_EQ(reply->info.corrected.lanes, (std::vector<uint64_t>{10, 20}));
  EXPECT_EQ(*reply->info.uncorrectable.total, 2u);
  EXPECT_FALSE(reply->info.correctedBits.total);  // the driver does not report it
}

// net/ethtool/fec.c puts all three statistics whatever the driver filled: a group it left unset
// comes with an empty payload (ice fills no corrected bits; ionic no statistics at all).
TEST(EthtoolNetlink, AGroupTheDriverLeftUnsetIsNotReportedNotMalformed) {
  Reply r(27, ETHTOOL_MSG_FEC_GET_REPLY, 9);
  r.add<uint32_t>(ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_RS_BIT);
  std::vector<uint8_t> stats;
  ethnl::putAttr(stats, ETHTOOL_A_FEC_STAT_CORRECTED, u64s({30}));
  ethnl::putAttr(stats, ETHTOOL_A_FEC_STAT_UNCORR, u64s({2}));
  ethnl::putAttr(stats, ETHTOOL_A_FEC_STAT_CORR_BITS, {});
  r.nest(ETHTOOL_A_FEC_STATS, stats);
  auto reply = ethnl::parseFecReply(r.done(), 9, 27);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(*reply->info.mode, "rs");
  EXPECT_EQ(*reply->info.corrected.total, 30u);
  EXPECT_EQ(*reply->info.uncorrectable.total, 2u);
  EXPECT_FALSE(reply->info.correctedBits.total);

  Reply none(27, ETHTOOL_MSG_FEC_GET_REPLY, 10);
  none.add<uint32_t>(ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_RS_BIT);
  std::vector<uint8_t> empty;
  for (uint16_t type : {ETHTOOL_A_FEC_STAT_CORRECTED, ETHTOOL_A_FEC_STAT_UNCORR, ETHTOOL_A_FEC_STAT_CORR_BITS}) {
    ethnl::putAttr(empty, type, {});
  }
  none.nest(ETHTOOL_A_FEC_STATS, empty);
  reply = ethnl::parseFecReply(none.done(), 10, 27);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(*reply->info.mode, "rs") << "the mode is still known";
  EXPECT_FALSE(reply->info.corrected.total);
  EXPECT_FALSE(reply->info.uncorrectable.total);
}

TEST(EthtoolNetlink, KernelRefusalIsAnErrnoNotAnError) {
  std::vector<uint8_t> b(NLMSG_HDRLEN + sizeof(nlmsgerr), 0);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(b.size());
  h.nlmsg_type = NLMSG_ERROR;
  h.nlmsg_seq = 3;
  std::memcpy(b.data(), &h, sizeof h);
  const int err = -EOPNOTSUPP;
  std::memcpy(b.data() + NLMSG_HDRLEN, &err, sizeof err);
  auto reply = ethnl::parseFecReply(b, 3, 27);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->kernelErrno, EOPNOTSUPP);
}

// Found by tests/fuzz/fec_netlink_fuzz.cpp's sibling dcb_netlink: an error of INT_MIN was negated
// (signed overflow, UB), a positive one became a negative errno.
TEST(EthtoolNetlink, AnErrorOutsideMinusMaxErrnoIsMalformed) {
  for (int err : {std::numeric_limits<int>::min(), -4096, 1, EOPNOTSUPP}) {
    std::vector<uint8_t> b(NLMSG_HDRLEN + sizeof(nlmsgerr), 0);
    nlmsghdr h{};
    h.nlmsg_len = static_cast<uint32_t>(b.size());
    h.nlmsg_type = NLMSG_ERROR;
    h.nlmsg_seq = 3;
    std::memcpy(b.data(), &h, sizeof h);
    std::memcpy(b.data() + NLMSG_HDRLEN, &err, sizeof err);
    auto reply = ethnl::parseFecReply(b, 3, 27);
    ASSERT_FALSE(reply) << err;
    EXPECT_EQ(reply.error().errnum, EPROTO) << err;
  }
}

TEST(EthtoolNetlink, MalformedRepliesAreErrors) {
  {
    Reply r(27, ETHTOOL_MSG_FEC_GET_REPLY, 1);
    std::vector<uint8_t> stats;
    ethnl::putAttr(stats, ETHTOOL_A_FEC_STAT_CORRECTED, std::vector<uint8_t>(12, 0));  // not whole u64s
    r.nest(ETHTOOL_A_FEC_STATS, stats);
    EXPECT_FALSE(ethnl::parseFecReply(r.done(), 1, 27));
  }
  {
    Reply r(27, ETHTOOL_MSG_FEC_GET_REPLY, 1);
    r.add<uint32_t>(ETHTOOL_A_FEC_ACTIVE, 50);
    auto bytes = r.done();
    std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 2);  // truncated datagram
    EXPECT_FALSE(ethnl::parseFecReply(cut, 1, 27));
  }
  {
    Reply r(27, ETHTOOL_MSG_FEC_GET_REPLY, 1);
    EXPECT_FALSE(ethnl::parseFecReply(r.done(), 2, 27));  // another request's answer
  }
}

TEST(EthtoolNetlink, LinkModesSpeedAndLanes) {
  Reply r(27, ETHTOOL_MSG_LINKMODES_GET_REPLY, 4);
  r.add<uint32_t>(ETHTOOL_A_LINKMODES_SPEED, 400000);
  r.add<uint32_t>(ETHTOOL_A_LINKMODES_LANES, 4);
  auto reply = ethnl::parseLinkModesReply(r.done(), 4, 27);
  ASSERT_TRUE(reply);
  EXPECT_EQ(*reply->info.speedMbps, 400000u);
  EXPECT_EQ(*reply->info.lanes, 4u);
  Reply down(27, ETHTOOL_MSG_LINKMODES_GET_REPLY, 5);
  down.add<uint32_t>(ETHTOOL_A_LINKMODES_SPEED, static_cast<uint32_t>(SPEED_UNKNOWN));
  auto d = ethnl::parseLinkModesReply(down.done(), 5, 27);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->info.speedMbps);
}

TEST(EthtoolNetlink, FamilyId) {
  Reply r(GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, 1);
  r.add<uint16_t>(CTRL_ATTR_FAMILY_ID, 21);
  auto reply = genl::parseFamilyReply(r.done(), 1);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->id, 21);
  // The request names the family, NUL included, in a CTRL_CMD_GETFAMILY of the controller.
  const auto request = genl::buildFamilyRequest(ETHTOOL_GENL_NAME, 7);
  nlmsghdr h;
  std::memcpy(&h, request.data(), sizeof h);
  EXPECT_EQ(h.nlmsg_len, request.size());
  EXPECT_EQ(h.nlmsg_type, GENL_ID_CTRL);
  EXPECT_EQ(h.nlmsg_seq, 7u);
  const std::string tail(request.end() - NLA_ALIGN(sizeof ETHTOOL_GENL_NAME), request.end());
  EXPECT_EQ(tail.substr(0, sizeof ETHTOOL_GENL_NAME), std::string(ETHTOOL_GENL_NAME, sizeof ETHTOOL_GENL_NAME));
  // ENOENT from the controller: no ethtool netlink in this kernel.
  std::vector<uint8_t> error(NLMSG_HDRLEN + sizeof(int32_t));
  nlmsghdr eh{};
  eh.nlmsg_len = static_cast<uint32_t>(error.size());
  eh.nlmsg_type = NLMSG_ERROR;
  eh.nlmsg_seq = 2;
  std::memcpy(error.data(), &eh, sizeof eh);
  const int32_t noent = -ENOENT;
  std::memcpy(error.data() + NLMSG_HDRLEN, &noent, sizeof noent);
  auto none = genl::parseFamilyReply(error, 2);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->kernelErrno, ENOENT);
  EXPECT_FALSE(genl::parseFamilyReply(error, 3)) << "a reply to another request";
}

// ---- the collector ----

double valueOf(const std::vector<Sample>& samples, const std::string& key) {
  for (const auto& s : samples) {
    if (s.series->key == key) return s.value;
  }
  return -1;
}

TEST(FecCollector, ExportsBlocksLanesModeAndCode) {
  testing::TempDir dir;
  dir.write("eth0", "mode: rs\nspeed_mbps: 400000\nlanes: 4\ncorrected_blocks: [10, 4, 6]\nuncorrectable_blocks: 3\n");
  dir.write("eth1", "mode: rs\nspeed_mbps: 100000\nlanes: 4\ncorrected_blocks: 1\n");
  dir.write("eth2", "lanes: [\n");
  Sources sources;
  sources.fec = makeFecFileSource(dir.path());
  auto c = makeCollector("fec", sources, Config{});
  Topology topo;
  for (const char* n : {"eth0", "eth1", "eth2", "eth3"}) topo.netdevs.push_back(Netdev{n, "", "", 0});
  Batch batch;
  ErrorTracker errors("fec");
  CollectOutput out(batch, errors);
  const std::vector<Sample>& samples = batch.samples;
  EXPECT_EQ(c->collect(topo, out), CollectStatus::kOk);
  EXPECT_EQ(out.errorCount(), 1u);  // eth2's broken file; eth3 has none
  EXPECT_EQ(valueOf(samples, R"(fabricmon_fec_corrected_blocks_total{interface="eth0"})"), 10);
  EXPECT_EQ(valueOf(samples, R"(fabricmon_fec_lane_corrected_blocks_total{interface="eth0",lane="1"})"), 6);
  EXPECT_EQ(valueOf(samples, R"(fabricmon_fec_uncorrectable_blocks_total{interface="eth0"})"), 3);
  EXPECT_EQ(valueOf(samples, R"(fabricmon_link_lanes{interface="eth0"})"), 4);
  EXPECT_EQ(valueOf(samples, R"(fabricmon_link_speed_bytes_per_second{interface="eth0"})"), 5e10);
  EXPECT_EQ(valueOf(samples, R"k(fabricmon_fec_info{interface="eth0",mode="rs",code="RS(544,514)"})k"), 1);
  // 100G over 4 lanes is 25G NRZ: Clause 91's RS(528,514).
  EXPECT_EQ(valueOf(samples, R"k(fabricmon_fec_info{interface="eth1",mode="rs",code="RS(528,514)"})k"), 1);
  EXPECT_EQ(valueOf(samples, R"(fabricmon_fec_uncorrectable_blocks_total{interface="eth1"})"), -1);
}

TEST(FecCollector, AnInterfaceThatCannotBeReadHasItsSeriesUnread) {
  testing::TempDir dir;
  const std::string good = "mode: rs\nspeed_mbps: 400000\nlanes: 4\ncorrected_blocks: [10, 4, 6]\n";
  dir.write("eth0", good);
  dir.write("eth1", "corrected_blocks: 1\n");
  Sources sources;
  sources.fec = makeFecFileSource(dir.path());
  auto c = makeCollector("fec", sources, Config{});
  Topology topo;
  for (const char* n : {"eth0", "eth1"}) topo.netdevs.push_back(Netdev{n, "", "", 0});
  ErrorTracker errors("fec");
  auto run = [&] {
    Batch batch;
    CollectOutput out(batch, errors);
    EXPECT_EQ(c->collect(topo, out), CollectStatus::kOk);
    std::set<std::string> given, unread;
    for (const Sample& s : batch.samples) given.insert(s.series->key);
    for (const SeriesPtr& s : batch.unread) unread.insert(s->key);
    return std::pair{given, unread};
  };
  const auto [first, none] = run();
  EXPECT_TRUE(none.empty());
  std::set<std::string> eth0;
  for (const std::string& key : first) {
    if (key.find(R"(interface="eth0")") != std::string::npos) eth0.insert(key);
  }
  ASSERT_EQ(eth0.size(), 6u);  // total, 2 lanes, lanes, speed, info
  dir.write("eth0", "lanes: [\n");
  const auto [given, unread] = run();
  // Not read is not gone: every series of eth0's last good read, its info series included.
  EXPECT_EQ(unread, eth0);
  for (const std::string& key : given) EXPECT_EQ(key.find(R"(interface="eth0")"), std::string::npos) << key;
  dir.write("eth0", good);
  const auto [again, after] = run();
  EXPECT_TRUE(after.empty());
  for (const std::string& key : eth0) EXPECT_EQ(again.count(key), 1u) << key;
}

TEST(FecCode, FromModeAndLaneSpeed) {
  using families::fec::fecCode;
  EXPECT_EQ(fecCode("rs", 100e9), "RS(544,514)");
  EXPECT_EQ(fecCode("rs", 50e9), "RS(544,514)");
  EXPECT_EQ(fecCode("rs", 25e9), "RS(528,514)");
  EXPECT_EQ(fecCode("rs", 0), "RS");
  EXPECT_EQ(fecCode("baser", 25e9), "BaseR(2112,2080)");
  EXPECT_EQ(fecCode("off", 25e9), "none");
}

// ---- the dialects' pre-FEC names ----

TEST(FecDialects, PerLaneCorrectedBitsAndBnxtNames) {
  auto lane = ethtool::mapStat("mlx5_core", "rx_err_lane_3_phy");
  EXPECT_EQ(lane.family, &families::ethtool::kPhyLaneCorrectedBits);
  EXPECT_EQ(lane.labels, (Labels{{"lane", "3"}}));
  EXPECT_EQ(ethtool::mapStat("mlx5_core", "rx_err_lane_8_phy").family, nullptr);
  EXPECT_EQ(ethtool::mapStat("mlx5_core", "rx_err_lane_33_phy").family, nullptr);
  EXPECT_EQ(ethtool::mapStat("bnxt_en", "rx_corrected_bits").family, &families::ethtool::kPhyCorrectedBits);
  auto bits = ethtool::mapStat("bnxt_en", "rx_bits");
  EXPECT_EQ(bits.family, &families::ethtool::kPhyReceivedBytes);
  EXPECT_DOUBLE_EQ(bits.scale, 1.0 / 8);
  // The blocks come from ethtool netlink (the fec collector), not twice from ethtool -S.
  EXPECT_EQ(ethtool::mapStat("bnxt_en", "rx_fec_corrected_blocks").family, nullptr);
}

}  // namespace
}  // namespace fabricmon
