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

// Bytes placed where IBA 14.2.5.6 (PortInfo), 14.2.5.22 (PortInfoExtended) and 16.1.4.17
// (PortExtendedSpeedsCounters) put them, big-endian, independently of libibmad's field tables.
void put32(Payload& p, size_t byte, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[byte + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

TEST(MadFields, ThePortInfoExtendedCapabilityAndTheFecModeActive) {
  Payload pi = load("portinfo_local.hex");
  EXPECT_FALSE(decodePortInfo(pi)->portInfoExtended);  // ibsim: CapabilityMask2 0x30
  pi[61] |= 0x02;  // CapabilityMask2 (bytes 60-61) bit 1: IsPortInfoExtendedSupported
  EXPECT_TRUE(decodePortInfo(pi)->portInfoExtended);
  pi[22] &= 0x7f;  // CapabilityMask (bytes 20-23) bit 15 clear: CapabilityMask2 is not valid
  EXPECT_FALSE(decodePortInfo(pi)->portInfoExtended);

  Payload pie{};
  pie[5] = 4;  // FECModeActive (bytes 4-5) = RS-FEC2
  EXPECT_FALSE(decodeFecModeActive(pie)) << "CapMask bit 0 (IsFECModeSupported) clear: not valid";
  pie[3] = 1;
  EXPECT_EQ(decodeFecModeActive(pie), 4u);
  EXPECT_EQ(ibFecModeName(4), "rs2");
  EXPECT_EQ(ibFecCode(4), "RS(544,514)");
  EXPECT_EQ(ibFecCode(2), "RS(528,514)");
  EXPECT_EQ(ibFecCode(0), "none");
  EXPECT_EQ(ibFecCode(9), "");
  EXPECT_EQ(ibFecModeName(9), "unknown");
}

TEST(MadFields, ExtendedSpeedsCountersInBothLayouts) {
  Payload p{};
  put32(p, 44, 11);   // lane 0: FECCorrectedSymbolCounter (RS-FEC) / FECCorrectableBlockCounter
  put32(p, 48, 12);   // lane 1
  put32(p, 56, 99);   // lane 3, beyond a 2X link
  put32(p, 92, 3);    // lane 0 FECUncorrectableBlockCounter (FireCode layout)
  put32(p, 140, 70);  // PortFECCorrectableBlockCounter (RS-FEC layout)
  put32(p, 144, 4);   // PortFECUncorrectableBlockCounter
  put32(p, 148, 0xffffffff);  // PortFECCorrectedSymbolCounter, saturated

  auto rs = decodeExtendedSpeedsFec(p, true, 2);
  ASSERT_TRUE(rs);
  EXPECT_EQ(rs->laneCorrected, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(rs->correctedBlocks, 70u);
  EXPECT_EQ(rs->uncorrectableBlocks, 4u);
  EXPECT_EQ(rs->correctedSymbols, 0xffffffffu);

  auto fc = decodeExtendedSpeedsFec(p, false, 2);
  ASSERT_TRUE(fc);
  EXPECT_EQ(fc->laneCorrected, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(fc->correctedBlocks, 23u);
  EXPECT_EQ(fc->uncorrectableBlocks, 3u);
  EXPECT_FALSE(fc->correctedSymbols);

  // A FireCode sum is held at the 32-bit maximum once one of its lanes sits there.
  put32(p, 48, 0xffffffff);
  EXPECT_EQ(decodeExtendedSpeedsFec(p, false, 2)->correctedBlocks, 0xffffffffu);
  EXPECT_EQ(decodeExtendedSpeedsFec(p, false, 2)->uncorrectableBlocks, 3u);

  EXPECT_FALSE(decodeExtendedSpeedsFec(p, true, 0));
  EXPECT_FALSE(decodeExtendedSpeedsFec(p, true, 13));
  EXPECT_FALSE(decodeExtendedSpeedsFec(std::span<const uint8_t>(p.data(), 100), true, 4));
}

TEST(MadFields, BadHexIsRejected) {
  EXPECT_FALSE(payloadFromHex("0g"));
  EXPECT_FALSE(payloadFromHex("abc"));
  EXPECT_TRUE(payloadFromHex("ab cd\n01"));
}

}  // namespace
}  // namespace fabricmon::mad
