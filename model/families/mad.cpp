#include "model/families/mad.hpp"

#include <array>

#include "model/families/pma.hpp"
#include "model/families/port.hpp"

namespace fabricmon::families::mad {

using enum MetricType;

const FamilyDef kPeerInfo{
    "fabricmon_peer_port_info",
    "The node at the far end of an InfiniBand port's cable (SMP NodeInfo and NodeDescription by "
    "directed route); "
    "always 1. peer_port is the neighbour's port facing us, peer_type ca, switch or router.",
    kGauge, "1", "device,port,peer_guid,peer_port,peer_description,peer_type"};
const FamilyDef kPeerTransmitBytes{
    "fabricmon_peer_port_transmit_bytes_total",
    "Bytes the neighbour's port facing us transmitted (towards us): PMA PortXmitData "
    "(4-byte words) x 4, 64-bit PortCountersExtended where the PMA has it.",
    kCounter, "bytes", "device,port"};
const FamilyDef kPeerReceiveBytes{
    "fabricmon_peer_port_receive_bytes_total",
    "Bytes the neighbour's port facing us received (from us): PMA PortRcvData x 4.", kCounter,
    "bytes", "device,port"};
const FamilyDef kPeerTransmitPackets{
    "fabricmon_peer_port_transmit_packets_total",
    "Packets the neighbour's port facing us transmitted: PMA PortXmitPkts.", kCounter, "packets",
    "device,port"};
const FamilyDef kPeerReceivePackets{
    "fabricmon_peer_port_receive_packets_total",
    "Packets the neighbour's port facing us received: PMA PortRcvPkts.", kCounter, "packets",
    "device,port"};
const FamilyDef kPeerTransmitWait{
    "fabricmon_peer_port_transmit_wait_total",
    "Ticks the neighbour's port facing us had data for us but no credits: PMA "
    "PortXmitWait (32-bit, saturates). Rising means this node is a slow receiver.",
    kCounter, "ticks", "device,port"};
const FamilyDef kPeerSymbolErrors{
    "fabricmon_peer_port_symbol_errors_total",
    "Symbol errors the neighbour's port detected on the lanes from us: PMA "
    "SymbolErrorCounter (16-bit, saturates).",
    kCounter, "errors", "device,port"};
const FamilyDef kPeerLinkErrorRecovery{
    "fabricmon_peer_port_link_error_recovery_total",
    "Link error recoveries of the neighbour's port: PMA LinkErrorRecoveryCounter "
    "(8-bit, saturates).",
    kCounter, "events", "device,port"};
const FamilyDef kPeerLinkDowned{
    "fabricmon_peer_port_link_downed_total",
    "Times the neighbour's port went down: PMA LinkDownedCounter (8-bit, saturates).", kCounter,
    "events", "device,port"};
const FamilyDef kPeerReceiveErrors{
    "fabricmon_peer_port_receive_errors_total",
    "Packets from us the neighbour's port received with errors: PMA PortRcvErrors "
    "(16-bit, saturates).",
    kCounter, "packets", "device,port"};
const FamilyDef kPeerTransmitDiscards{
    "fabricmon_peer_port_transmit_discards_total",
    "Packets for us the neighbour's port discarded: PMA PortXmitDiscards (16-bit, "
    "saturates).",
    kCounter, "packets", "device,port"};
const FamilyDef kPeerStat{
    "fabricmon_peer_pma_stat_total",
    "Every other PMA counter of the neighbour's port (PortCounters, PortRcvErrorDetails, "
    "PortXmitDiscardDetails), named as the kernel's counters/ files where it has one.",
    kCounter, "as the counter", "device,port,counter"};
const FamilyDef kPeerSaturated{
    "fabricmon_peer_port_pma_saturated",
    "1 when a narrow PMA counter of the neighbour's port sits at the maximum of its "
    "width (PMA counters saturate, they do not wrap), else 0.",
    kGauge, "0/1", "device,port,counter"};
const FamilyDef kPeerState{
    "fabricmon_peer_port_state",
    "Logical state of the neighbour's port facing us, PortInfo.PortState (1 DOWN, 2 INIT, "
    "3 ARMED, 4 ACTIVE).",
    kGauge, "enum", "device,port"};
const FamilyDef kPeerPhysicalState{"fabricmon_peer_port_physical_state",
                                   "Physical state of the neighbour's port facing us, "
                                   "PortInfo.PortPhysicalState (5 LinkUp).",
                                   kGauge, "enum", "device,port"};
const FamilyDef kWidthActive{
    "fabricmon_port_link_width_active_lanes",
    "Lanes the link trained to, PortInfo.LinkWidthActive (1, 2, 4, 8 or 12).", kGauge, "lanes",
    "device,port"};
const FamilyDef kWidthEnabled{
    "fabricmon_port_link_width_enabled_lanes",
    "The widest width enabled on the port, PortInfo.LinkWidthEnabled, in lanes.", kGauge, "lanes",
    "device,port"};
const FamilyDef kSpeedActive{
    "fabricmon_port_lane_speed_active_bytes_per_second",
    "Per-lane signalling rate the link trained to, PortInfo.LinkSpeedActive / "
    "LinkSpeedExtActive (SDR 2.5 ... NDR 106.25 Gb/s), in bytes per second.",
    kGauge, "bytes/s", "device,port"};
const FamilyDef kSpeedEnabled{
    "fabricmon_port_lane_speed_enabled_bytes_per_second",
    "The fastest per-lane rate enabled on the port, PortInfo.LinkSpeedEnabled / "
    "LinkSpeedExtEnabled, in bytes per second.",
    kGauge, "bytes/s", "device,port"};
const FamilyDef kDownObserved{
    "fabricmon_port_link_down_observed_total",
    "Times the MAD poller saw the port's link leave ACTIVE/LinkUp (PortInfo); a flap "
    "shorter than the peer_port interval is missed, link_downed counts those.",
    kCounter, "events", "device,port"};
const FamilyDef kPeerWidthActive{
    "fabricmon_peer_port_link_width_active_lanes",
    "Lanes of the neighbour's port facing us, PortInfo.LinkWidthActive.", kGauge, "lanes",
    "device,port"};
const FamilyDef kPeerWidthEnabled{
    "fabricmon_peer_port_link_width_enabled_lanes",
    "The widest width enabled on the neighbour's port facing us, in lanes.", kGauge, "lanes",
    "device,port"};
const FamilyDef kPeerSpeedActive{
    "fabricmon_peer_port_lane_speed_active_bytes_per_second",
    "Per-lane rate of the neighbour's port facing us, in bytes per second.", kGauge, "bytes/s",
    "device,port"};
const FamilyDef kPeerSpeedEnabled{
    "fabricmon_peer_port_lane_speed_enabled_bytes_per_second",
    "The fastest per-lane rate enabled on the neighbour's port facing us, in bytes "
    "per second.",
    kGauge, "bytes/s", "device,port"};
const FamilyDef kPeerDownObserved{
    "fabricmon_peer_port_link_down_observed_total",
    "Times the MAD poller lost the neighbour (directed-route NodeInfo unanswered) or "
    "saw its port facing us leave ACTIVE.",
    kCounter, "events", "device,port"};

const FamilyDef kFecInfo{
    "fabricmon_port_fec_info",
    "The FEC an InfiniBand port's link runs, PortInfoExtended.FECModeActive: mode none, firecode, rs, "
    "ll_rs or rs2, and the code it is (BaseR(2112,2080), RS(528,514), RS(271,257), RS(544,514)); always 1.",
    kGauge, "1", "device,port,mode,code"};
const FamilyDef kFecCorrectedBlocks{
    "fabricmon_port_fec_corrected_blocks_total",
    "FEC codewords (blocks) the port corrected on the lanes it receives: PortExtendedSpeedsCounters "
    "PortFECCorrectableBlockCounter, or the lanes' FECCorrectableBlockCounters summed (FireCode). "
    "32-bit, saturates.",
    kCounter, "blocks", "device,port"};
const FamilyDef kFecUncorrectableBlocks{
    "fabricmon_port_fec_uncorrectable_blocks_total",
    "FEC codewords the port could not correct (frames lost after the FEC): PortExtendedSpeedsCounters "
    "PortFECUncorrectableBlockCounter, or the lanes' counters summed. 32-bit, saturates.",
    kCounter, "blocks", "device,port"};
const FamilyDef kFecCorrectedSymbols{
    "fabricmon_port_fec_corrected_symbols_total",
    "RS-FEC symbols the port corrected: PortExtendedSpeedsCounters PortFECCorrectedSymbolCounter "
    "(RS-FEC layout only). Each holds at least one bit error; link_ber's pre-FEC BER counts them "
    "as one. 32-bit, saturates.",
    kCounter, "symbols", "device,port"};
const FamilyDef kFecLaneCorrectedSymbols{
    "fabricmon_port_fec_lane_corrected_symbols_total",
    "RS-FEC symbols the port corrected per lane: FECCorrectedSymbolCounterLane[n], the link's "
    "active lanes only. 32-bit, saturates.",
    kCounter, "symbols", "device,port,lane"};
const FamilyDef kFecLaneCorrectedBlocks{
    "fabricmon_port_fec_lane_corrected_blocks_total",
    "FireCode FEC blocks the port corrected per lane: FECCorrectableBlockCounterLane[n], the "
    "link's active lanes only. 32-bit, saturates.",
    kCounter, "blocks", "device,port,lane"};
const FamilyDef kPeerFecInfo{
    "fabricmon_peer_port_fec_info",
    "The FEC the neighbour's port facing us runs (PortInfoExtended.FECModeActive); always 1.", kGauge, "1",
    "device,port,mode,code"};
const FamilyDef kPeerFecCorrectedBlocks{
    "fabricmon_peer_port_fec_corrected_blocks_total",
    "FEC codewords the neighbour's port corrected on the lanes from us (PortExtendedSpeedsCounters).",
    kCounter, "blocks", "device,port"};
const FamilyDef kPeerFecUncorrectableBlocks{
    "fabricmon_peer_port_fec_uncorrectable_blocks_total",
    "FEC codewords from us the neighbour's port could not correct (PortExtendedSpeedsCounters).", kCounter,
    "blocks", "device,port"};
const FamilyDef kPeerFecCorrectedSymbols{
    "fabricmon_peer_port_fec_corrected_symbols_total",
    "RS-FEC symbols the neighbour's port corrected on the lanes from us (PortExtendedSpeedsCounters).",
    kCounter, "symbols", "device,port"};
const FamilyDef kPeerFecLaneCorrectedSymbols{
    "fabricmon_peer_port_fec_lane_corrected_symbols_total",
    "RS-FEC symbols the neighbour's port corrected per lane from us.", kCounter, "symbols",
    "device,port,lane"};
const FamilyDef kPeerFecLaneCorrectedBlocks{
    "fabricmon_peer_port_fec_lane_corrected_blocks_total",
    "FireCode FEC blocks the neighbour's port corrected per lane from us.", kCounter, "blocks",
    "device,port,lane"};

const std::array<const FamilyDef*, 37> kAll{
    &kPeerInfo,           &kPeerTransmitBytes, &kPeerReceiveBytes,     &kPeerTransmitPackets,
    &kPeerReceivePackets, &kPeerTransmitWait,  &kPeerSymbolErrors,     &kPeerLinkErrorRecovery,
    &kPeerLinkDowned,     &kPeerReceiveErrors, &kPeerTransmitDiscards, &kPeerStat,
    &kPeerSaturated,      &kPeerState,         &kPeerPhysicalState,    &kWidthActive,
    &kWidthEnabled,       &kSpeedActive,       &kSpeedEnabled,         &kDownObserved,
    &kPeerWidthActive,    &kPeerWidthEnabled,  &kPeerSpeedActive,      &kPeerSpeedEnabled,
    &kPeerDownObserved,   &kFecInfo,           &kFecCorrectedBlocks,   &kFecUncorrectableBlocks,
    &kFecCorrectedSymbols, &kFecLaneCorrectedSymbols, &kFecLaneCorrectedBlocks, &kPeerFecInfo,
    &kPeerFecCorrectedBlocks, &kPeerFecUncorrectableBlocks, &kPeerFecCorrectedSymbols,
    &kPeerFecLaneCorrectedSymbols, &kPeerFecLaneCorrectedBlocks};

std::span<const FamilyDef* const> all() { return kAll; }

const std::array<LocalPeer, 25> kPairs{{
    {&pma::kTransmitBytes, &kPeerTransmitBytes},
    {&pma::kReceiveBytes, &kPeerReceiveBytes},
    {&pma::kTransmitPackets, &kPeerTransmitPackets},
    {&pma::kReceivePackets, &kPeerReceivePackets},
    {&pma::kTransmitWait, &kPeerTransmitWait},
    {&pma::kSymbolErrors, &kPeerSymbolErrors},
    {&pma::kLinkErrorRecovery, &kPeerLinkErrorRecovery},
    {&pma::kLinkDowned, &kPeerLinkDowned},
    {&pma::kReceiveErrors, &kPeerReceiveErrors},
    {&pma::kTransmitDiscards, &kPeerTransmitDiscards},
    {&pma::kPortCounter, &kPeerStat},
    {&pma::kSaturated, &kPeerSaturated},
    {&port::kPortState, &kPeerState},
    {&port::kPortPhysicalState, &kPeerPhysicalState},
    {&kWidthActive, &kPeerWidthActive},
    {&kWidthEnabled, &kPeerWidthEnabled},
    {&kSpeedActive, &kPeerSpeedActive},
    {&kSpeedEnabled, &kPeerSpeedEnabled},
    {&kDownObserved, &kPeerDownObserved},
    {&kFecInfo, &kPeerFecInfo},
    {&kFecCorrectedBlocks, &kPeerFecCorrectedBlocks},
    {&kFecUncorrectableBlocks, &kPeerFecUncorrectableBlocks},
    {&kFecCorrectedSymbols, &kPeerFecCorrectedSymbols},
    {&kFecLaneCorrectedSymbols, &kPeerFecLaneCorrectedSymbols},
    {&kFecLaneCorrectedBlocks, &kPeerFecLaneCorrectedBlocks},
}};

std::span<const LocalPeer> localPeerPairs() { return kPairs; }

const FamilyDef* peerOf(const FamilyDef& local) {
  for (const LocalPeer& p : kPairs) {
    if (p.local == &local) return p.peer;
  }
  return nullptr;
}

}  // namespace fabricmon::families::mad
