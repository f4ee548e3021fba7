// MAD attribute decoding (collectors/sources/mad_fields.cpp) on SMP data captured from ibsim; the
// expected values are what smpquery printed for the same attributes (tests/fixtures/mad/README.md).
#include "collectors/sources/mad_fields.hpp"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace fabricmon::mad {
namespace {

Payload load(const std::string& name) {
  std::ifstream in(std::string(FABRICMON_FIXTURE_DIR) + "/mad/" + name);
  std::stringstream text;
  text << in.rdbuf();
  auto p = payloadFromHex(text.str());
  EXPECT_TRUE(p.has_value()) << name;
  return p.value_or(Payload{});
}

TEST(MadFields, NodeInfoOfTheSwitchFacingUs) {
  auto n = decodeNodeInfo(load("nodeinfo.hex"));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->type, NodeType::kSwitch);
  EXPECT_EQ(nodeTypeName(n->type), "switch");
  EXPECT_EQ(n->numPorts, 8u);
  EXPECT_EQ(n->nodeGuid, 0x0000000000200000u);
  EXPECT_EQ(n->localPort, 1u);
}

TEST(MadFields, NodeInfoOutsideItsDomainIsRejected) {
  Payload p = load("nodeinfo.hex");
  p[36] = 9;  // LocalPortNum (byte 36, IBA 14.2.5.3) 9 on an 8-port switch
  EXPECT_FALSE(decodeNodeInfo(p));
  p = load("nodeinfo.hex");
  for (int i = 12; i < 20; ++i) p[i] = 0;  // NodeGUID 0
  EXPECT_FALSE(decodeNodeInfo(p));
  EXPECT_FALSE(decodeNodeInfo(std::span<const uint8_t>(p.data(), 10)));
}

TEST(MadFields, NodeDescriptionIsTrimmedAndLabelSafe) {
  EXPECT_EQ(decodeNodeDescription(load("nodedesc.hex")), "Switch1");
  Payload p{};
  const char text[] = "sw \"a\"\\b\x01  ";
  for (size_t i = 0; i + 1 < sizeof text; ++i) p[i] = static_cast<uint8_t>(text[i]);
  EXPECT_EQ(decodeNodeDescription(p), "sw ?a??b?");
}

TEST(MadFields, PortInfoOfALinkAt4XSdr) {
  for (const char* file : {"portinfo_switch_port1.hex", "portinfo_local.hex"}) {
    auto pi = decodePortInfo(load(file));
    ASSERT_TRUE(pi) << file;
    EXPECT_EQ(pi->state, 4u) << file;      // Active
    EXPECT_EQ(pi->physState, 5u) << file;  // LinkUp
    EXPECT_EQ(pi->widthActive, 4u) << file;
    EXPECT_EQ(pi->widthEnabled, 4u) << file;
    EXPECT_EQ(pi->widthSupported, 12u) << file;  // "1X or 4X or 8X or 12X or 2X"
    EXPECT_DOUBLE_EQ(pi->laneGbpsActive, 2.5) << file;
    EXPECT_DOUBLE_EQ(pi->laneGbpsEnabled, 2.5) << file;
    EXPECT_DOUBLE_EQ(pi->laneGbpsSupported, 10) << file;
  }
  EXPECT_EQ(decodePortInfo(load("portinfo_local.hex"))->lid, 2u);  // ibstat: Base lid 2
}

TEST(MadFields, PortInfoWithAStateOutsideItsDomainIsRejected) {
  Payload p = load("portinfo_local.hex");
  p[32] = (p[32] & 0xf0) | 7;  // PortState 7: reserved
  EXPECT_FALSE(decodePortInfo(p));
}

TEST(MadFields, WidthAndSpeedEncodings) {
  EXPECT_EQ(widthLanes(1), 1u);
  EXPECT_EQ(widthLanes(2), 4u);
  EXPECT_EQ(widthLanes(16), 2u);
  EXPECT_EQ(widthLanes(3), 0u);
  EXPECT_EQ(widestLanes(1 | 2 | 16), 4u);
  EXPECT_DOUBLE_EQ(fastestSpeedGbps(7, 0), 10);
  EXPECT_DOUBLE_EQ(fastestSpeedGbps(7, 4), 53.125);   // HDR
  EXPECT_DOUBLE_EQ(fastestSpeedGbps(1, 8), 106.25);   // NDR
  EXPECT_DOUBLE_EQ(fastestSpeedGbps(0, 0), 0);
}

TEST(MadFields, LaneRatesAsTheKernelReportsThem) {
  // drivers/infiniband/core/sysfs.c rate_show: a 4X NDR port's rate file says 400 Gb/sec.
  EXPECT_DOUBLE_EQ(4 * kernelLaneGbps(fastestSpeedGbps(1, 8)), 400);
  EXPECT_DOUBLE_EQ(kernelLaneGbps(53.125), 50);
  EXPECT_DOUBLE_EQ(kernelLaneGbps(25.78125), 25);
  EXPECT_DOUBLE_EQ(kernelLaneGbps(14.0625), 14);
  EXPECT_DOUBLE_EQ(kernelLaneGbps(10), 10);
  EXPECT_DOUBLE_EQ(kernelLaneGbps(5), 5);
  EXPECT_DOUBLE_EQ(kernelLaneGbps(2.5), 2.5);
  EXPECT_DOUBLE_EQ(kernelLaneGbps(0), 0);
}

TEST(MadFields, BadHexIsRejected) {
  EXPECT_FALSE(payloadFromHex("0g"));
  EXPECT_FALSE(payloadFromHex("abc"));
  EXPECT_TRUE(payloadFromHex("ab cd\n01"));
}

}  // namespace
}  // namespace fabricmon::mad
