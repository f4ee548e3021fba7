// rtnetlink DCB message building and parsing over buffers laid out byte by byte the way the kernel
// sends them (net/dcb/dcbnl.c: dcbnl_newmsg, dcbnl_ieee_fill, dcbnl_getdcbx; netlink_ack for
// errors).

#include <gtest/gtest.h>

#include <limits>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "collectors/sources/dcb_netlink_msg.hpp"

namespace fabricmon {
namespace {

using Bytes = std::vector<uint8_t>;

// Netlink is host byte order; these tests describe the little-endian layout of x86-64 and arm64.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "byte-level fixtures are little-endian");

void u8(Bytes& b, uint8_t v) { b.push_back(v); }
void u16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void u32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void u64(Bytes& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void pad4(Bytes& b) {
  while (b.size() % 4 != 0) b.push_back(0);
}

/// rtattr: u16 len (header + payload, unpadded), u16 type, payload, zero padding to 4.
Bytes attr(uint16_t type, const Bytes& payload) {
  Bytes b;
  u16(b, static_cast<uint16_t>(4 + payload.size()));
  u16(b, type);
  b.insert(b.end(), payload.begin(), payload.end());
  pad4(b);
  return b;
}

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes b;
  for (const auto& p : parts) b.insert(b.end(), p.begin(), p.end());
  return b;
}

/// nlmsghdr {len, type, flags, seq, pid} + body.
Bytes nlmsg(uint16_t type, uint32_t seq, const Bytes& body, uint16_t flags = 0) {
  Bytes b;
  u32(b, static_cast<uint32_t>(16 + body.size()));
  u16(b, type);
  u16(b, flags);
  u32(b, seq);
  u32(b, 4242);  // the kernel addresses the reply to our port id
  b.insert(b.end(), body.begin(), body.end());
  return b;
}

/// struct dcbmsg {u8 dcb_family, u8 cmd, u16 dcb_pad}.
Bytes dcbmsgHeader(uint8_t cmd) {
  Bytes b;
  u8(b, AF_UNSPEC);
  u8(b, cmd);
  u16(b, 0);
  return b;
}

Bytes ifnameAttr(const char* name) {
  Bytes p(name, name + std::strlen(name) + 1);
  return attr(DCB_ATTR_IFNAME, p);
}

/// struct ieee_pfc: pfc_cap, pfc_en, mbc, (pad), u16 delay, u64 requests[8], u64 indications[8].
Bytes ieeePfc(uint8_t pfcEn, const std::array<uint64_t, 8>& req,
              const std::array<uint64_t, 8>& ind) {
  Bytes b;
  u8(b, 8);  // pfc_cap: mlx5 reports 8 PFC-capable traffic classes
  u8(b, pfcEn);
  u8(b, 0);   // mbc
  u8(b, 0);   // padding before the u16
  u16(b, 0);  // delay
  u16(b, 0);  // padding to the u64 array
  for (auto v : req) u64(b, v);
  for (auto v : ind) u64(b, v);
  return b;
}

/// struct dcb_app {u8 selector, u8 priority, u16 protocol}.
Bytes dcbApp(uint8_t selector, uint8_t priority, uint16_t protocol) {
  Bytes b;
  u8(b, selector);
  u8(b, priority);
  u16(b, protocol);
  return attr(DCB_ATTR_IEEE_APP, b);
}

Bytes etsAttr() {
  Bytes ets(sizeof(ieee_ets), 0);  // content is not exported; only its presence matters
  ets[0] = 1;
  return attr(DCB_ATTR_IEEE_ETS, ets);
}

constexpr std::array<uint64_t, 8> kReq{0, 0, 0, 123456789012ULL, 0, 0, 0, 0};
constexpr std::array<uint64_t, 8> kInd{0, 0, 0, 5678, 0, 0, 1, 0};

/// The full DCB_CMD_IEEE_GET reply of an mlx5 port in trust-dscp mode (RoCE on 3, CNP on 6).
Bytes ieeeReply(uint32_t seq, const Bytes& appEntries,
                uint8_t dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) {
  const Bytes ieee =
      attr(DCB_ATTR_IEEE, cat({etsAttr(), attr(DCB_ATTR_IEEE_PFC, ieeePfc(0x08, kReq, kInd)),
                               attr(DCB_ATTR_IEEE_APP_TABLE, appEntries)}));
  return nlmsg(
      RTM_GETDCB, seq,
      cat({dcbmsgHeader(DCB_CMD_IEEE_GET), ifnameAttr("eth0"), ieee, attr(DCB_ATTR_DCBX, {dcbx})}));
}

Bytes dscpApps() {
  return cat(
      {dcbApp(IEEE_8021QAZ_APP_SEL_DSCP, 3, 26), dcbApp(IEEE_8021QAZ_APP_SEL_DSCP, 6, 48),
       dcbApp(IEEE_8021QAZ_APP_SEL_ETHERTYPE, 3, 0x8915)});  // RoCEv1 ethertype entry: not DSCP
}

/// NLMSG_ERROR: struct nlmsgerr {int error; struct nlmsghdr msg} (the request header echoed).
Bytes errorReply(uint32_t seq, int error) {
  Bytes body;
  u32(body, static_cast<uint32_t>(error));
  Bytes echoed = dcbnl::buildGetRequest(DCB_CMD_IEEE_GET, "vethA", seq);
  body.insert(body.end(), echoed.begin(), echoed.begin() + 16);
  return nlmsg(NLMSG_ERROR, seq, body);
}

TEST(DcbNetlinkMsg, BuildsTheRequestTheKernelExpects) {
  const Bytes req = dcbnl::buildGetRequest(DCB_CMD_IEEE_GET, "eth0", 7);
  Bytes want;
  u32(want, 32);          // 16 header + 4 dcbmsg + 12 (4 + "eth0\0" padded)
  u16(want, RTM_GETDCB);  // 78
  u16(want, NLM_F_REQUEST);
  u32(want, 7);
  u32(want, 0);
  u8(want, AF_UNSPEC);
  u8(want, DCB_CMD_IEEE_GET);
  u16(want, 0);
  u16(want, 9);  // rta_len = 4 + strlen("eth0") + NUL
  u16(want, DCB_ATTR_IFNAME);
  for (char c : std::string("eth0")) u8(want, static_cast<uint8_t>(c));
  u8(want, 0);
  pad4(want);
  EXPECT_EQ(req, want);
}

TEST(DcbNetlinkMsg, ParsesPfcBitmapAndCounters) {
  auto r = dcbnl::parseReply(ieeeReply(11, dscpApps()), 11, DCB_CMD_IEEE_GET);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->kernelErrno, 0);
  ASSERT_TRUE(r->pfcEnabledBitmap.has_value());
  EXPECT_EQ(*r->pfcEnabledBitmap, 0x08);
  ASSERT_TRUE(r->pfcRequests && r->pfcIndications);
  EXPECT_EQ(*r->pfcRequests, kReq);
  EXPECT_EQ(*r->pfcIndications, kInd);
  EXPECT_EQ(r->dcbxMode, static_cast<unsigned>(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE));
}

TEST(DcbNetlinkMsg, ParsesDscpEntriesOfTheAppTable) {
  auto r = dcbnl::parseReply(ieeeReply(3, dscpApps()), 3, DCB_CMD_IEEE_GET);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->hasAppTable);
  EXPECT_EQ(r->dscpToPriority, (std::map<unsigned, unsigned>{{26, 3}, {48, 6}}));
  EXPECT_EQ(dcbnl::inferTrust(*r), "dscp");
}

TEST(DcbNetlinkMsg, AppTableWithoutDscpEntriesMeansTrustPcp) {
  const Bytes ethertypeOnly = dcbApp(IEEE_8021QAZ_APP_SEL_ETHERTYPE, 3, 0x8915);
  for (const Bytes& apps : {Bytes{}, ethertypeOnly}) {
    auto r = dcbnl::parseReply(ieeeReply(3, apps), 3, DCB_CMD_IEEE_GET);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->hasAppTable);
    EXPECT_TRUE(r->dscpToPriority.empty());
    EXPECT_EQ(dcbnl::inferTrust(*r), "pcp");
  }
  dcbnl::DcbReply noTable;
  EXPECT_FALSE(dcbnl::inferTrust(noTable).has_value());
}

TEST(DcbNetlinkMsg, ParsesGdcbxReply) {
  // dcbnl_getdcbx: dcbmsg + DCB_ATTR_DCBX (u8), nothing else.
  const Bytes reply =
      nlmsg(RTM_GETDCB, 9, cat({dcbmsgHeader(DCB_CMD_GDCBX), attr(DCB_ATTR_DCBX, {0x0a})}));
  auto r = dcbnl::parseReply(reply, 9, DCB_CMD_GDCBX);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->dcbxMode, static_cast<unsigned>(DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE));
  EXPECT_FALSE(r->pfcEnabledBitmap.has_value());
  EXPECT_FALSE(r->hasAppTable);
}

TEST(DcbNetlinkMsg, KernelRefusalIsReportedAsErrno) {
  auto r = dcbnl::parseReply(errorReply(5, -EOPNOTSUPP), 5, DCB_CMD_IEEE_GET);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->kernelErrno, EOPNOTSUPP);
  EXPECT_FALSE(r->pfcEnabledBitmap.has_value());

  auto nodev = dcbnl::parseReply(errorReply(6, -ENODEV), 6, DCB_CMD_IEEE_GET);
  ASSERT_TRUE(nodev.ok());
  EXPECT_EQ(nodev->kernelErrno, ENODEV);
}

// Found by tests/fuzz/dcb_netlink_fuzz.cpp: an error of INT_MIN was negated (signed overflow, UB).
TEST(DcbNetlinkMsg, AnErrorBeyondMaxErrnoIsAMalformedReply) {
  for (int error : {std::numeric_limits<int>::min(), -4096, 4096, std::numeric_limits<int>::max()}) {
    auto r = dcbnl::parseReply(errorReply(5, error), 5, DCB_CMD_IEEE_GET);
    ASSERT_FALSE(r.ok()) << error;
    EXPECT_EQ(r.error().errnum, EBADMSG) << error;
  }
  auto r = dcbnl::parseReply(errorReply(5, -4095), 5, DCB_CMD_IEEE_GET);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kernelErrno, 4095);
}

TEST(DcbNetlinkMsg, AckAfterDataIsSkipped) {
  const Bytes datagram = cat({ieeeReply(4, dscpApps()), errorReply(4, 0)});
  auto r = dcbnl::parseReply(datagram, 4, DCB_CMD_IEEE_GET);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r->pfcEnabledBitmap, 0x08);
  auto ackOnly = dcbnl::parseReply(errorReply(4, 0), 4, DCB_CMD_IEEE_GET);
  EXPECT_FALSE(ackOnly.ok());
}

TEST(DcbNetlinkMsg, WrongSequenceNumberIsAnError) {
  auto r = dcbnl::parseReply(ieeeReply(12, dscpApps()), 13, DCB_CMD_IEEE_GET);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("sequence number 12, expected 13"), std::string::npos)
      << r.error().message;
  // A stale kernel refusal must not be taken for the answer to the current request either.
  EXPECT_FALSE(dcbnl::parseReply(errorReply(12, -EOPNOTSUPP), 13, DCB_CMD_IEEE_GET).ok());
}

TEST(DcbNetlinkMsg, ReplyForAnotherCommandIsAnError) {
  EXPECT_FALSE(dcbnl::parseReply(ieeeReply(1, dscpApps()), 1, DCB_CMD_GDCBX).ok());
}

TEST(DcbNetlinkMsg, EveryTruncationIsAnErrorNotACrash) {
  const Bytes full = ieeeReply(2, dscpApps());
  ASSERT_TRUE(dcbnl::parseReply(full, 2, DCB_CMD_IEEE_GET).ok());
  for (size_t n = 0; n < full.size(); ++n) {
    // Copy into an exact-size heap buffer so a read past the end would hit the allocation's end.
    const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(dcbnl::parseReply(cut, 2, DCB_CMD_IEEE_GET).ok()) << "accepted " << n << " bytes";
  }
}

TEST(DcbNetlinkMsg, TruncatedAttributesInsideACompleteMessageAreErrors) {
  // The PFC attribute claims its full size but only 20 bytes follow: nlmsg_len is consistent, the
  // rtattr is not.
  Bytes pfc = ieeePfc(0x08, kReq, kInd);
  Bytes shortPfc;
  u16(shortPfc, static_cast<uint16_t>(4 + pfc.size()));
  u16(shortPfc, DCB_ATTR_IEEE_PFC);
  shortPfc.insert(shortPfc.end(), pfc.begin(), pfc.begin() + 20);
  Bytes ieee = attr(DCB_ATTR_IEEE, shortPfc);
  auto r = dcbnl::parseReply(nlmsg(RTM_GETDCB, 1, cat({dcbmsgHeader(DCB_CMD_IEEE_GET), ieee})), 1,
                             DCB_CMD_IEEE_GET);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("out of bounds"), std::string::npos) << r.error().message;

  // A PFC attribute whose own length says 24 bytes: shorter than struct ieee_pfc.
  Bytes small(pfc.begin(), pfc.begin() + 20);
  auto r2 = dcbnl::parseReply(nlmsg(RTM_GETDCB, 1,
                                    cat({dcbmsgHeader(DCB_CMD_IEEE_GET),
                                         attr(DCB_ATTR_IEEE, attr(DCB_ATTR_IEEE_PFC, small))})),
                              1, DCB_CMD_IEEE_GET);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("DCB_ATTR_IEEE_PFC payload"), std::string::npos)
      << r2.error().message;

  // rta_len below the header size would loop forever if accepted.
  Bytes zeroLen;
  u16(zeroLen, 0);
  u16(zeroLen, DCB_ATTR_IEEE);
  EXPECT_FALSE(
      dcbnl::parseReply(nlmsg(RTM_GETDCB, 1, cat({dcbmsgHeader(DCB_CMD_IEEE_GET), zeroLen})), 1,
                        DCB_CMD_IEEE_GET)
          .ok());

  // A short APP entry and an out-of-range DSCP entry.
  Bytes shortApp = attr(DCB_ATTR_IEEE_APP, {IEEE_8021QAZ_APP_SEL_DSCP, 3});
  EXPECT_FALSE(dcbnl::parseReply(ieeeReply(1, shortApp), 1, DCB_CMD_IEEE_GET).ok());
  EXPECT_FALSE(
      dcbnl::parseReply(ieeeReply(1, dcbApp(IEEE_8021QAZ_APP_SEL_DSCP, 3, 64)), 1, DCB_CMD_IEEE_GET)
          .ok());

  // nlmsg_len shorter than the header, and an NLMSG_ERROR without its errno.
  Bytes tiny = ieeeReply(1, {});
  tiny[0] = 8;
  tiny[1] = tiny[2] = tiny[3] = 0;
  EXPECT_FALSE(dcbnl::parseReply(tiny, 1, DCB_CMD_IEEE_GET).ok());
  EXPECT_FALSE(dcbnl::parseReply(nlmsg(NLMSG_ERROR, 1, {0xa1, 0xff}), 1, DCB_CMD_IEEE_GET).ok());
}

TEST(DcbNetlinkMsg, CorruptedBytesNeverReadOutOfBounds) {
  // Every byte of a valid reply overwritten with values that break lengths; run under
  // -fsanitize=address any read past the buffer fails the test. Lengths that grow must be rejected.
  const Bytes full = ieeeReply(2, dscpApps());
  size_t rejected = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    for (uint8_t v : {uint8_t{0x00}, uint8_t{0x03}, uint8_t{0x7f}, uint8_t{0xff}}) {
      Bytes bad = full;
      bad[i] = v;
      auto r = dcbnl::parseReply(bad, 2, DCB_CMD_IEEE_GET);
      rejected += r.ok() ? 0 : 1;
      if (i < 4 && v > full[i]) {
        EXPECT_FALSE(r.ok()) << "nlmsg_len grown at byte " << i;
      }
    }
  }
  EXPECT_GT(rejected, 0u);
}

TEST(DcbNetlinkMsg, StormPreventionTimeoutDecoding) {
  struct Case {
    uint16_t raw;
    unsigned ms;
  };
  for (const Case& c : {Case{0, 0}, Case{100, 100}, Case{8000, 8000}, Case{0xffff, 100}}) {
    EXPECT_EQ(dcbnl::decodePfcPreventionTimeoutMs(c.raw), c.ms) << "raw " << c.raw;
  }
}

}  // namespace
}  // namespace fabricmon
