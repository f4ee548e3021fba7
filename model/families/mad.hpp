#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// Read over MADs: the neighbour port at the far end of an InfiniBand cable, and the local port's
// link width and speed (peer_port). docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp
// checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::mad {

extern const FamilyDef kPeerInfo;               // fabricmon_peer_port_info
extern const FamilyDef kPeerTransmitBytes;      // fabricmon_peer_port_transmit_bytes_total
extern const FamilyDef kPeerReceiveBytes;       // fabricmon_peer_port_receive_bytes_total
extern const FamilyDef kPeerTransmitPackets;    // fabricmon_peer_port_transmit_packets_total
extern const FamilyDef kPeerReceivePackets;     // fabricmon_peer_port_receive_packets_total
extern const FamilyDef kPeerTransmitWait;       // fabricmon_peer_port_transmit_wait_total
extern const FamilyDef kPeerSymbolErrors;       // fabricmon_peer_port_symbol_errors_total
extern const FamilyDef kPeerLinkErrorRecovery;  // fabricmon_peer_port_link_error_recovery_total
extern const FamilyDef kPeerLinkDowned;         // fabricmon_peer_port_link_downed_total
extern const FamilyDef kPeerReceiveErrors;      // fabricmon_peer_port_receive_errors_total
extern const FamilyDef kPeerTransmitDiscards;   // fabricmon_peer_port_transmit_discards_total
extern const FamilyDef kPeerStat;               // fabricmon_peer_pma_stat_total
extern const FamilyDef kPeerSaturated;          // fabricmon_peer_port_pma_saturated
extern const FamilyDef kPeerState;              // fabricmon_peer_port_state
extern const FamilyDef kPeerPhysicalState;      // fabricmon_peer_port_physical_state
extern const FamilyDef kWidthActive;            // fabricmon_port_link_width_active_lanes
extern const FamilyDef kWidthEnabled;           // fabricmon_port_link_width_enabled_lanes
extern const FamilyDef kSpeedActive;            // fabricmon_port_lane_speed_active_bytes_per_second
extern const FamilyDef kSpeedEnabled;      // fabricmon_port_lane_speed_enabled_bytes_per_second
extern const FamilyDef kDownObserved;      // fabricmon_port_link_down_observed_total
extern const FamilyDef kPeerWidthActive;   // fabricmon_peer_port_link_width_active_lanes
extern const FamilyDef kPeerWidthEnabled;  // fabricmon_peer_port_link_width_enabled_lanes
extern const FamilyDef kPeerSpeedActive;   // fabricmon_peer_port_lane_speed_active_bytes_per_second
extern const FamilyDef
    kPeerSpeedEnabled;  // fabricmon_peer_port_lane_speed_enabled_bytes_per_second
extern const FamilyDef kPeerDownObserved;  // fabricmon_peer_port_link_down_observed_total
// The link's FEC, both ends (PortInfoExtended, PortExtendedSpeedsCounters; docs/metrics.md,
// "Physical layer").
extern const FamilyDef kFecInfo;                     // fabricmon_port_fec_info
extern const FamilyDef kFecCorrectedBlocks;          // fabricmon_port_fec_corrected_blocks_total
extern const FamilyDef kFecUncorrectableBlocks;      // fabricmon_port_fec_uncorrectable_blocks_total
extern const FamilyDef kFecCorrectedSymbols;         // fabricmon_port_fec_corrected_symbols_total
extern const FamilyDef kFecLaneCorrectedSymbols;     // fabricmon_port_fec_lane_corrected_symbols_total
extern const FamilyDef kFecLaneCorrectedBlocks;      // fabricmon_port_fec_lane_corrected_blocks_total
extern const FamilyDef kPeerFecInfo;                 // fabricmon_peer_port_fec_info
extern const FamilyDef kPeerFecCorrectedBlocks;      // fabricmon_peer_port_fec_corrected_blocks_total
extern const FamilyDef kPeerFecUncorrectableBlocks;  // fabricmon_peer_port_fec_uncorrectable_blocks_total
extern const FamilyDef kPeerFecCorrectedSymbols;     // fabricmon_peer_port_fec_corrected_symbols_total
extern const FamilyDef kPeerFecLaneCorrectedSymbols; // fabricmon_peer_port_fec_lane_corrected_symbols_total
extern const FamilyDef kPeerFecLaneCorrectedBlocks;  // fabricmon_peer_port_fec_lane_corrected_blocks_total

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

/// A quantity of an InfiniBand port read for both ends of the cable: the local port's family and
/// the neighbour's (same unit and labels, `fabricmon_peer_` in place of `fabricmon_`; docs/contract.md
/// §4), labelled with the local device and port either way.
struct LocalPeer {
  const FamilyDef* local;
  const FamilyDef* peer;
};
/// The PMA counter families (families::pma), the port state families (families::port) and the
/// PortInfo width/speed/down families above, each with its neighbour's.
std::span<const LocalPeer> localPeerPairs();
/// The neighbour's family of `local`, or nullptr when it has none.
const FamilyDef* peerOf(const FamilyDef& local);

}  // namespace fabricmon::families::mad
