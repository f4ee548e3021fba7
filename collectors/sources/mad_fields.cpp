#include "collectors/sources/mad_fields.hpp"

#include <infiniband/mad.h>

#include <cctype>

namespace fabricmon::mad {
namespace {

// libibmad's field tables know every attribute's bit layout; its getters take a non-const buffer
// but only read it.
uint32_t get(std::span<const uint8_t> data, MAD_FIELDS field) {
  return mad_get_field(const_cast<uint8_t*>(data.data()), 0, field);
}
uint64_t get64(std::span<const uint8_t> data, MAD_FIELDS field) {
  return mad_get_field64(const_cast<uint8_t*>(data.data()), 0, field);
}

constexpr size_t kSmpData = 64;   // IBA 14.2.1.1: SMP data area
constexpr size_t kPmaData = 192;  // IBA 13.4.3: GMP data area after the class header

// PortInfo.CapabilityMask bit 14: IsExtendedSpeedsSupported (LinkSpeedExt* valid).
constexpr uint32_t kExtendedSpeedsSupported = 1u << 14;
// LinkSpeedEnabled = 15 and LinkSpeedExtEnabled = 30 mean "as supported"; 31 = extended speeds off
// (IBA 14.2.5.6, PortInfo).
constexpr unsigned kSpeedEnabledAsSupported = 15;
constexpr unsigned kExtEnabledAsSupported = 30;
constexpr unsigned kExtDisabled = 31;
// PortInfo.CapabilityMask bit 15: IsCapabilityMask2Supported; CapabilityMask2 bit 1:
// IsPortInfoExtendedSupported (IBA 14.2.5.6). A switch keeps both on its port 0 only.
constexpr uint32_t kCapabilityMask2Supported = 1u << 15;
constexpr uint32_t kPortInfoExtendedSupported = 1u << 1;
// PortInfoExtended.CapMask bit 0: IsFECModeSupported (FECModeActive valid; IBA 14.2.5.22).
constexpr uint32_t kFecModeSupported = 1u << 0;
// PortExtendedSpeedsCounters (IBA 16.1.4.17): 12 lanes at most, 32-bit counters that saturate.
constexpr unsigned kMaxLanes = 12;
constexpr uint64_t kMax32 = 0xffffffffu;

}  // namespace

std::string_view nodeTypeName(NodeType type) {
  switch (type) {
    case NodeType::kCa: return "ca";
    case NodeType::kSwitch: return "switch";
    case NodeType::kRouter: return "router";
    default: return "unknown";
  }
}

std::optional<NodeInfo> decodeNodeInfo(std::span<const uint8_t> data) {
  if (data.size() < kSmpData) return std::nullopt;
  NodeInfo n;
  const uint32_t type = get(data, IB_NODE_TYPE_F);
  n.type = type >= 1 && type <= 3 ? static_cast<NodeType>(type) : NodeType::kUnknown;
  n.numPorts = get(data, IB_NODE_NPORTS_F);
  n.nodeGuid = get64(data, IB_NODE_GUID_F);
  n.localPort = get(data, IB_NODE_LOCAL_PORT_F);
  // A NodeInfo whose facing port is outside the node's ports (port 0 is a switch's own management
  // port, never the end of a cable) is not one we can use.
  if (n.nodeGuid == 0 || n.localPort == 0 || n.localPort > n.numPorts) return std::nullopt;
  return n;
}

std::string decodeNodeDescription(std::span<const uint8_t> data) {
  std::string out;
  for (size_t i = 0; i < std::min(data.size(), kSmpData) && data[i] != 0; ++i) {
    const unsigned char c = data[i];
    out.push_back(std::isprint(c) && c != '"' && c != '\\' ? static_cast<char>(c) : '?');
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

unsigned widthLanes(unsigned encoding) {
  switch (encoding) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
  }
}

unsigned widestLanes(unsigned mask) {
  unsigned best = 0;
  for (unsigned bit = 1; bit <= 16; bit <<= 1) {
    if ((mask & bit) != 0) best = std::max(best, widthLanes(bit));
  }
  return best;
}

double fastestSpeedGbps(unsigned speedMask, unsigned extMask) {
  // IBA 14.2.5.6 LinkSpeed / LinkSpeedExt: SDR 2.5, DDR 5, QDR 10; FDR 14.0625, EDR 25.78125,
  // HDR 53.125, NDR 106.25 Gb/s per lane (signalling rate).
  double best = 0;
  if (extMask & 8) best = 106.25;
  else if (extMask & 4) best = 53.125;
  else if (extMask & 2) best = 25.78125;
  else if (extMask & 1) best = 14.0625;
  if (best > 0) return best;
  if (speedMask & 4) return 10;
  if (speedMask & 2) return 5;
  if (speedMask & 1) return 2.5;
  return 0;
}

double kernelLaneGbps(double signallingGbps) {
  if (signallingGbps >= 106) return 100;
  if (signallingGbps >= 53) return 50;
  if (signallingGbps >= 25) return 25;
  if (signallingGbps >= 14) return 14;
  return signallingGbps;
}

std::optional<PortInfo> decodePortInfo(std::span<const uint8_t> data) {
  if (data.size() < kSmpData) return std::nullopt;
  PortInfo p;
  p.lid = get(data, IB_PORT_LID_F);
  p.state = get(data, IB_PORT_STATE_F);
  p.physState = get(data, IB_PORT_PHYS_STATE_F);
  if (p.state < 1 || p.state > 4) return std::nullopt;  // 0 = no state change, 5+ reserved
  p.widthActive = widthLanes(get(data, IB_PORT_LINK_WIDTH_ACTIVE_F));
  p.widthEnabled = widestLanes(get(data, IB_PORT_LINK_WIDTH_ENABLED_F));
  p.widthSupported = widestLanes(get(data, IB_PORT_LINK_WIDTH_SUPPORTED_F));

  const bool ext = (get(data, IB_PORT_CAPMASK_F) & kExtendedSpeedsSupported) != 0;
  const unsigned speedSupported = get(data, IB_PORT_LINK_SPEED_SUPPORTED_F);
  unsigned speedEnabled = get(data, IB_PORT_LINK_SPEED_ENABLED_F);
  if (speedEnabled == kSpeedEnabledAsSupported) speedEnabled = speedSupported;
  unsigned extActive = 0, extSupported = 0, extEnabled = 0;
  if (ext) {
    extActive = get(data, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
    extSupported = get(data, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
    extEnabled = get(data, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
    if (extEnabled == kExtEnabledAsSupported) extEnabled = extSupported;
    if (extEnabled == kExtDisabled) extEnabled = 0;
  }
  // An active extended speed overrides LinkSpeedActive (IBA 14.2.5.6).
  p.laneGbpsActive = fastestSpeedGbps(get(data, IB_PORT_LINK_SPEED_ACTIVE_F), extActive);
  p.laneGbpsEnabled = fastestSpeedGbps(speedEnabled, extEnabled);
  p.laneGbpsSupported = fastestSpeedGbps(speedSupported, extSupported);
  p.portInfoExtended = (get(data, IB_PORT_CAPMASK_F) & kCapabilityMask2Supported) != 0 &&
                       (get(data, IB_PORT_CAPMASK2_F) & kPortInfoExtendedSupported) != 0;
  return p;
}

std::optional<unsigned> decodeFecModeActive(std::span<const uint8_t> data) {
  if (data.size() < kSmpData) return std::nullopt;
  if ((get(data, IB_PORT_EXT_CAPMASK_F) & kFecModeSupported) == 0) return std::nullopt;
  return get(data, IB_PORT_EXT_FEC_MODE_ACTIVE_F);
}

std::string_view ibFecModeName(unsigned mode) {
  switch (mode) {
    case 0: return "none";
    case 1: return "firecode";
    case 2: return "rs";
    case 3: return "ll_rs";
    case 4: return "rs2";
    default: return "unknown";
  }
}

std::string_view ibFecCode(unsigned mode) {
  switch (mode) {
    case 0: return "none";
    case 1: return "BaseR(2112,2080)";
    case 2: return "RS(528,514)";
    case 3: return "RS(271,257)";
    case 4: return "RS(544,514)";
    default: return "";
  }
}

std::optional<ExtendedSpeedsFec> decodeExtendedSpeedsFec(std::span<const uint8_t> data, bool rsfec, unsigned lanes) {
  if (data.size() < kPmaData || lanes == 0 || lanes > kMaxLanes) return std::nullopt;
  ExtendedSpeedsFec f;
  auto take = [&](MAD_FIELDS field) { return uint64_t{get(data, field)}; };
  // The lane fields are consecutive in libibmad's tables (lane 0 .. lane 11).
  // A FireCode port total is its lanes' sum, held at a 32-bit counter's maximum once it reaches it
  // or once one of its lanes sits there (from then on the sum no longer tells the truth): the
  // port's totals saturate as the RS-FEC layout's own do.
  bool correctedStuck = false, uncorrectableStuck = false;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    const auto at = [lane](MAD_FIELDS first) { return static_cast<MAD_FIELDS>(first + lane); };
    if (rsfec) {
      f.laneCorrected.push_back(take(at(IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE0_F)));
    } else {
      f.laneCorrected.push_back(take(at(IB_PESC_FEC_CORR_BLOCK_CTR_LANE0_F)));
      const uint64_t uncorrectable = take(at(IB_PESC_FEC_UNCORR_BLOCK_CTR_LANE0_F));
      correctedStuck |= f.laneCorrected.back() >= kMax32;
      uncorrectableStuck |= uncorrectable >= kMax32;
      f.correctedBlocks += f.laneCorrected.back();
      f.uncorrectableBlocks += uncorrectable;
    }
  }
  if (!rsfec) {
    if (correctedStuck || f.correctedBlocks > kMax32) f.correctedBlocks = kMax32;
    if (uncorrectableStuck || f.uncorrectableBlocks > kMax32) f.uncorrectableBlocks = kMax32;
  } else {
    f.correctedBlocks = take(IB_PESC_PORT_FEC_CORR_BLOCK_CTR_F);
    f.uncorrectableBlocks = take(IB_PESC_PORT_FEC_UNCORR_BLOCK_CTR_F);
    f.correctedSymbols = take(IB_PESC_PORT_FEC_CORR_SYMBOL_CTR_F);
  }
  return f;
}

std::optional<PmaCapabilities> decodeClassPortInfo(std::span<const uint8_t> data) {
  if (data.size() < kPmaData) return std::nullopt;
  // BaseVersion 1 is the only one (IBA 13.4.8.1); anything else is not a ClassPortInfo.
  if (get(data, IB_CPI_BASEVER_F) != 1) return std::nullopt;
  return PmaCapabilities{static_cast<uint16_t>(get(data, IB_CPI_CAPMASK_F))};
}

namespace {

struct Field {
  MAD_FIELDS field;
  std::string_view name;
  unsigned bits;
};

std::vector<Counter> decodeFields(std::span<const uint8_t> data, std::span<const Field> fields) {
  std::vector<Counter> out;
  if (data.size() < kPmaData) return out;
  out.reserve(fields.size());
  for (const Field& f : fields) {
    out.push_back(Counter{f.name, f.bits == 64 ? get64(data, f.field) : get(data, f.field), f.bits});
  }
  return out;
}

// IBA 16.1.3.5 PortCounters; names as the kernel's ports/<p>/counters/ files.
constexpr Field kPortCounters[] = {
    {IB_PC_ERR_SYM_F, "symbol_error", 16},
    {IB_PC_LINK_RECOVERS_F, "link_error_recovery", 8},
    {IB_PC_LINK_DOWNED_F, "link_downed", 8},
    {IB_PC_ERR_RCV_F, "port_rcv_errors", 16},
    {IB_PC_ERR_PHYSRCV_F, "port_rcv_remote_physical_errors", 16},
    {IB_PC_ERR_SWITCH_REL_F, "port_rcv_switch_relay_errors", 16},
    {IB_PC_XMT_DISCARDS_F, "port_xmit_discards", 16},
    {IB_PC_ERR_XMTCONSTR_F, "port_xmit_constraint_errors", 8},
    {IB_PC_ERR_RCVCONSTR_F, "port_rcv_constraint_errors", 8},
    {IB_PC_ERR_LOCALINTEG_F, "local_link_integrity_errors", 4},
    {IB_PC_ERR_EXCESS_OVR_F, "excessive_buffer_overrun_errors", 4},
    {IB_PC_VL15_DROPPED_F, "VL15_dropped", 16},
    {IB_PC_XMT_BYTES_F, "port_xmit_data", 32},
    {IB_PC_RCV_BYTES_F, "port_rcv_data", 32},
    {IB_PC_XMT_PKTS_F, "port_xmit_packets", 32},
    {IB_PC_RCV_PKTS_F, "port_rcv_packets", 32},
};
constexpr Field kXmitWait{IB_PC_XMT_WAIT_F, "port_xmit_wait", 32};

// IBA 16.1.4.11 PortCountersExtended: the 64-bit data and packet counters.
constexpr Field kPortCountersExt[] = {
    {IB_PC_EXT_XMT_BYTES_F, "port_xmit_data", 64},
    {IB_PC_EXT_RCV_BYTES_F, "port_rcv_data", 64},
    {IB_PC_EXT_XMT_PKTS_F, "port_xmit_packets", 64},
    {IB_PC_EXT_RCV_PKTS_F, "port_rcv_packets", 64},
    {IB_PC_EXT_XMT_UPKTS_F, "unicast_xmit_packets", 64},
    {IB_PC_EXT_RCV_UPKTS_F, "unicast_rcv_packets", 64},
    {IB_PC_EXT_XMT_MPKTS_F, "multicast_xmit_packets", 64},
    {IB_PC_EXT_RCV_MPKTS_F, "multicast_rcv_packets", 64},
};

// IBA 16.1.4.1 PortRcvErrorDetails, 16.1.4.2 PortXmitDiscardDetails.
constexpr Field kRcvErrorDetails[] = {
    {IB_PC_RCV_LOCAL_PHY_ERR_F, "port_local_physical_errors", 16},
    {IB_PC_RCV_MALFORMED_PKT_ERR_F, "port_malformed_packet_errors", 16},
    {IB_PC_RCV_BUF_OVR_ERR_F, "port_buffer_overrun_errors", 16},
    {IB_PC_RCV_DLID_MAP_ERR_F, "port_dlid_mapping_errors", 16},
    {IB_PC_RCV_VL_MAP_ERR_F, "port_vl_mapping_errors", 16},
    {IB_PC_RCV_LOOPING_ERR_F, "port_looping_errors", 16},
};
constexpr Field kXmitDiscardDetails[] = {
    {IB_PC_XMT_INACT_DISC_F, "port_inactive_discards", 16},
    {IB_PC_XMT_NEIGH_MTU_DISC_F, "port_neighbor_mtu_discards", 16},
    {IB_PC_XMT_SW_LIFE_DISC_F, "port_sw_lifetime_limit_discards", 16},
    {IB_PC_XMT_SW_HOL_DISC_F, "port_sw_hoq_lifetime_limit_discards", 16},
};

}  // namespace

std::vector<Counter> decodePortCounters(std::span<const uint8_t> data, bool xmitWait) {
  auto out = decodeFields(data, kPortCounters);
  if (xmitWait && !out.empty()) out.push_back(decodeFields(data, std::span(&kXmitWait, 1)).front());
  return out;
}
std::vector<Counter> decodePortCountersExtended(std::span<const uint8_t> data) {
  return decodeFields(data, kPortCountersExt);
}
std::vector<Counter> decodeRcvErrorDetails(std::span<const uint8_t> data) { return decodeFields(data, kRcvErrorDetails); }
std::vector<Counter> decodeXmitDiscardDetails(std::span<const uint8_t> data) {
  return decodeFields(data, kXmitDiscardDetails);
}

std::optional<Payload> payloadFromHex(std::string_view hex) {
  Payload p{};
  size_t n = 0;
  int high = -1;
  for (char c : hex) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else return std::nullopt;
    if (high < 0) {
      high = v;
    } else {
      if (n >= p.size()) return std::nullopt;
      p[n++] = static_cast<uint8_t>(high << 4 | v);
      high = -1;
    }
  }
  if (high >= 0) return std::nullopt;
  return p;
}

}  // namespace fabricmon::mad
