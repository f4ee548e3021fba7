#pragma once
// Decoding of the MAD attributes the peer_port collector reads (IBA vol. 1 ch. 14 SMP attributes,
// ch. 16.1 PMA attributes). Pure functions over the attribute's data area, as libibmad returns it
// from smp_query_via / pma_query_via, so they are tested on captured buffers
// (tests/fixtures/mad/README.md) without a fabric.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fabricmon::mad {

/// The data area of one MAD response: 64 bytes for an SMP, up to 192 for a PMA (GMP) attribute.
using Payload = std::array<uint8_t, 256>;

/// IBA NodeInfo.NodeType.
enum class NodeType : uint8_t { kUnknown = 0, kCa = 1, kSwitch = 2, kRouter = 3 };
std::string_view nodeTypeName(NodeType type);  ///< "ca", "switch", "router", "unknown"

struct NodeInfo {
  NodeType type = NodeType::kUnknown;
  unsigned numPorts = 0;
  uint64_t nodeGuid = 0;
  unsigned localPort = 0;  ///< the port of that node through which the query arrived: the one facing us
};
std::optional<NodeInfo> decodeNodeInfo(std::span<const uint8_t> data);

/// NodeDescription: 64 bytes of text, NUL-padded. Non-printable bytes become '?', so the value is
/// always a valid label.
std::string decodeNodeDescription(std::span<const uint8_t> data);

struct PortInfo {
  unsigned lid = 0;
  unsigned state = 0;       ///< PortState: 1 Down, 2 Init, 3 Armed, 4 Active
  unsigned physState = 0;   ///< PortPhysicalState: 5 LinkUp
  unsigned widthActive = 0;     ///< lanes (1, 2, 4, 8, 12); 0 = unknown encoding
  unsigned widthEnabled = 0;    ///< the widest enabled, in lanes
  unsigned widthSupported = 0;  ///< the widest supported, in lanes
  double laneGbpsActive = 0;    ///< per-lane signalling rate, Gb/s (SDR 2.5 ... NDR 106.25)
  double laneGbpsEnabled = 0;   ///< the fastest enabled
  double laneGbpsSupported = 0; ///< the fastest supported
  /// CapabilityMask bit 15 (IsCapabilityMask2Supported) and CapabilityMask2 bit 1
  /// (IsPortInfoExtendedSupported): PortInfoExtended (0x33) answers, with the FEC the link runs. On
  /// a switch, valid in port 0's PortInfo only (the capability masks of its external ports are
  /// reserved, IBA 14.2.5.6).
  bool portInfoExtended = false;
};
/// `capMask` bit 14 (IsExtendedSpeedsSupported) says whether the LinkSpeedExt fields are valid.
std::optional<PortInfo> decodePortInfo(std::span<const uint8_t> data);

/// IBA LinkWidth encodings (1 = 1X, 2 = 4X, 4 = 8X, 8 = 12X, 16 = 2X) as lanes; the widest of a mask.
unsigned widthLanes(unsigned encoding);
unsigned widestLanes(unsigned mask);
/// Per-lane Gb/s of LinkSpeed (1 SDR, 2 DDR, 4 QDR) and LinkSpeedExt (1 FDR, 2 EDR, 4 HDR, 8 NDR)
/// masks: the fastest set bit; 0 when none.
double fastestSpeedGbps(unsigned speedMask, unsigned extMask);
/// The per-lane rate the kernel reports in ports/<p>/rate for a signalling rate from the masks
/// above: FDR 14, EDR 25, HDR 50, NDR 100 Gb/s (the data rates the kernel's rate_show uses,
/// drivers/infiniband/core/sysfs.c); SDR, DDR and QDR as they are. A port read over MADs then has
/// the rate sysfs would show for it (a 4X NDR port is 400 Gb/s, not 425).
double kernelLaneGbps(double signallingGbps);

/// ClassPortInfo of the PMA: which optional counters answer.
struct PmaCapabilities {
  uint16_t capMask = 0;
  bool extendedCounters() const { return (capMask & ((1u << 9) | (1u << 10))) != 0; }  ///< PortCountersExtended
  bool xmitWait() const { return (capMask & (1u << 12)) != 0; }  ///< PortCounters.PortXmitWait valid
  /// IsPortExtendedSpeedsRSFECCountersSupported: PortExtendedSpeedsCounters has the RS-FEC layout
  /// while an RS-FEC is active.
  bool rsfecCounters() const { return (capMask & (1u << 14)) != 0; }
};
std::optional<PmaCapabilities> decodeClassPortInfo(std::span<const uint8_t> data);

/// One counter of a PMA attribute: its name (the kernel's sysfs file name where there is one,
/// drivers/infiniband/core/sysfs.c), its value and its width in bits (narrow ones saturate).
struct Counter {
  std::string_view name;
  uint64_t value;
  unsigned bits;
};
/// PortCounters (attribute 0x12): the error counters, PortXmitWait (when `xmitWait`) and the 32-bit
/// data/packet counters.
std::vector<Counter> decodePortCounters(std::span<const uint8_t> data, bool xmitWait);
/// PortCountersExtended (0x1D): the 64-bit data and packet counters.
std::vector<Counter> decodePortCountersExtended(std::span<const uint8_t> data);
/// PortRcvErrorDetails (0x15) and PortXmitDiscardDetails (0x16): 16-bit counters.
std::vector<Counter> decodeRcvErrorDetails(std::span<const uint8_t> data);
std::vector<Counter> decodeXmitDiscardDetails(std::span<const uint8_t> data);

/// The FEC an InfiniBand link runs: PortInfoExtended.FECModeActive (IBA 14.2.5.22), when its
/// CapMask says the field is valid (IsFECModeSupported); std::nullopt otherwise.
std::optional<unsigned> decodeFecModeActive(std::span<const uint8_t> data);
/// FECModeActive as a `mode` label: "none", "firecode", "rs", "ll_rs", "rs2"; "unknown" beyond.
std::string_view ibFecModeName(unsigned mode);
/// The code of that mode, in the names link_ber's correction limits use (families::fec::fecCode):
/// FDR's FireCode is the (2112,2080) BASE-R code; Standard RS-FEC is RS(528,514) (EDR); Low-Latency
/// RS-FEC RS(271,257); mode 4, RS-FEC2, is the RS(544,514) "KP4" code of the 50G and 100G PAM4
/// lanes (HDR, NDR). "none" for no FEC, "" when unknown.
std::string_view ibFecCode(unsigned mode);

/// PortExtendedSpeedsCounters (0x1F, IBA 16.1.4.17): the FEC counters of the link's `lanes`. Two
/// layouts: with an RS-FEC active and the PMA's rsfecCounters(), corrected symbols per lane and
/// the port's corrected / uncorrectable codewords and corrected symbols; otherwise (FireCode),
/// correctable and uncorrectable blocks per lane, summed here into the port's. Every counter is
/// 32 bits wide and saturates (the watchdog's history knows: watchdog/input_families.cpp); a
/// FireCode sum is held at 2^32 - 1 once it reaches it or once one of its lanes sits there.
struct ExtendedSpeedsFec {
  uint64_t correctedBlocks = 0;
  uint64_t uncorrectableBlocks = 0;
  std::optional<uint64_t> correctedSymbols;  ///< RS-FEC layout only
  std::vector<uint64_t> laneCorrected;       ///< symbols (RS-FEC) or blocks (FireCode), per lane
};
std::optional<ExtendedSpeedsFec> decodeExtendedSpeedsFec(std::span<const uint8_t> data, bool rsfec, unsigned lanes);

/// Parses "0a 1b ..." hex text (whitespace and newlines ignored) into a payload; used for fixtures.
std::optional<Payload> payloadFromHex(std::string_view hex);

}  // namespace fabricmon::mad
