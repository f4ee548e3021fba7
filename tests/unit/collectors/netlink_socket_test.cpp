// The one netlink socket of the DCB, FEC and module EEPROM sources (collectors/sources/
// netlink_socket.hpp) against the running kernel: generic-netlink family resolution (a known
// family, an unknown one), and the FEC source over it asking about loopback, which has no FEC;
// and the one reading of NLMSG_ERROR the netlink parsers share.
#include "collectors/sources/netlink_socket.hpp"

#include <gtest/gtest.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include "collectors/sources/fec_source.hpp"

namespace fabricmon {
namespace {

TEST(NetlinkSocket, ResolvesTheControllerItselfAndNotAnUnknownFamily) {
  NetlinkSocket socket({NETLINK_GENERIC, "test", std::chrono::seconds(2), 8192});
  // Every kernel with generic netlink has the controller family "nlctrl" at GENL_ID_CTRL.
  auto ctrl = socket.genlFamily("nlctrl");
  ASSERT_TRUE(ctrl) << ctrl.error().message;
  ASSERT_TRUE(ctrl->has_value());
  EXPECT_EQ(**ctrl, GENL_ID_CTRL);
  // Asked again: the answer is kept, and another family is asked of the kernel.
  auto again = socket.genlFamily("nlctrl");
  ASSERT_TRUE(again);
  EXPECT_EQ(**again, GENL_ID_CTRL);
  auto none = socket.genlFamily("fabricmon_none");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->has_value()) << "ENOENT from the controller is no family, not an error";
}

TEST(NetlinkSocket, AnswersEachRequestWithItsOwnReply) {
  NetlinkSocket socket({NETLINK_GENERIC, "test", std::chrono::seconds(2), 8192});
  for (int i = 0; i < 3; ++i) {
    const uint32_t seq = socket.nextSeq();
    auto reply = socket.exchange(genl::buildFamilyRequest("nlctrl", seq), seq, "GETFAMILY nlctrl");
    ASSERT_TRUE(reply) << reply.error().message;
    auto parsed = genl::parseFamilyReply(*reply, seq);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->id, GENL_ID_CTRL);
  }
}

TEST(FecNetlinkSource, LoopbackHasNoFecAndAMissingInterfaceIsNoData) {
  auto source = makeFecNetlinkSource();
  for (const char* ifname : {"lo", "lo", "fabricmon-none0"}) {
    auto info = source->read(ifname);
    ASSERT_TRUE(info) << ifname << ": " << info.error().message;
    EXPECT_FALSE(info->has_value()) << ifname;
  }
  EXPECT_FALSE(source->read("")) << "an empty name is refused before the kernel is asked";
}

}  // namespace
}  // namespace fabricmon

namespace fabricmon {
namespace {

std::vector<uint8_t> errorMessage(uint32_t seq, int32_t error) {
  std::vector<uint8_t> out(NLMSG_HDRLEN + sizeof error);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(out.size());
  h.nlmsg_type = NLMSG_ERROR;
  h.nlmsg_seq = seq;
  std::memcpy(out.data(), &h, sizeof h);
  std::memcpy(out.data() + NLMSG_HDRLEN, &error, sizeof error);
  return out;
}

// One reading of NLMSG_ERROR for every netlink parser (DCB, ethtool FEC, the genetlink controller):
// the kernel's -errno becomes an errno; what the kernel cannot send is malformed, never negated.
TEST(AckErrno, TheKernelsRangeOnly) {
  const auto body = [](int32_t e) {
    std::vector<uint8_t> b(sizeof e);
    std::memcpy(b.data(), &e, sizeof e);
    return b;
  };
  EXPECT_EQ(ackErrno(body(0)), 0);
  EXPECT_EQ(ackErrno(body(-ENOENT)), ENOENT);
  EXPECT_EQ(ackErrno(body(-4095)), 4095);
  for (int32_t e : {std::numeric_limits<int32_t>::min(), -4096, 1, std::numeric_limits<int32_t>::max()}) {
    EXPECT_FALSE(ackErrno(body(e)).has_value()) << e;
  }
  EXPECT_FALSE(ackErrno(std::vector<uint8_t>{0, 0}).has_value());
}

TEST(GenlFamilyReply, AnErrorBeyondMaxErrnoIsMalformedNotNegated) {
  auto enoent = genl::parseFamilyReply(errorMessage(3, -ENOENT), 3);
  ASSERT_TRUE(enoent.ok());
  EXPECT_EQ(enoent->kernelErrno, ENOENT);
  auto bad = genl::parseFamilyReply(errorMessage(3, std::numeric_limits<int32_t>::min()), 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().errnum, EPROTO);
}

}  // namespace
}  // namespace fabricmon
