#include "model/families/ethtool.hpp"

#include <array>

namespace fabricmon::families::ethtool {

using enum MetricType;

// Help texts name the mlx5 stat for reference; the other drivers' names for the same quantity are
// in docs/metrics.md ("Vendor dialects").
const FamilyDef kPfcPauseRx{"fabricmon_pfc_pause_frames_received_total",
                            "PFC pause frames received for a priority (ethtool rx_prio<N>_pause).",
                            kCounter, "frames", "interface,priority"};
const FamilyDef kPfcPauseTx{"fabricmon_pfc_pause_frames_transmitted_total",
                            "PFC pause frames sent for a priority (ethtool tx_prio<N>_pause).",
                            kCounter, "frames", "interface,priority"};
const FamilyDef kPfcPauseSeconds{"fabricmon_pfc_pause_seconds_total",
                                 "Time a priority was paused by PFC, received (rx) or sent (tx) "
                                 "(ethtool rx|tx_prio<N>_pause_duration, us).",
                                 kCounter, "seconds", "interface,priority,direction"};
const FamilyDef kPfcPauseTransitions{"fabricmon_pfc_pause_transitions_total",
                                     "Transitions of a priority between paused and not paused by "
                                     "received PFC (ethtool rx_prio<N>_pause_transition).",
                                     kCounter, "transitions", "interface,priority"};
const FamilyDef kGlobalPauseRx{
    "fabricmon_global_pause_frames_received_total",
    "IEEE 802.3x global pause frames received (ethtool rx_global_pause).", kCounter, "frames",
    "interface"};
const FamilyDef kGlobalPauseTx{"fabricmon_global_pause_frames_transmitted_total",
                               "IEEE 802.3x global pause frames sent (ethtool tx_global_pause).",
                               kCounter, "frames", "interface"};
const FamilyDef kGlobalPauseSeconds{"fabricmon_global_pause_seconds_total",
                                    "Time the port was paused by 802.3x global pause, received "
                                    "(rx) or sent (tx) (ethtool rx|tx_global_pause_duration, us).",
                                    kCounter, "seconds", "interface,direction"};
const FamilyDef kGlobalPauseTransitions{"fabricmon_global_pause_transitions_total",
                                        "Transitions between paused and not paused by received "
                                        "802.3x pause (ethtool rx_global_pause_transition).",
                                        kCounter, "transitions", "interface"};
const FamilyDef kStormWarning{"fabricmon_pause_storm_warning_events_total",
                              "Times the NIC had been sending pause for most of its "
                              "storm-prevention timeout (ethtool tx_pause_storm_warning_events).",
                              kCounter, "events", "interface"};
const FamilyDef kStormError{"fabricmon_pause_storm_error_events_total",
                            "Times the NIC stopped sending pause because its storm-prevention "
                            "timeout expired (ethtool tx_pause_storm_error_events).",
                            kCounter, "events", "interface"};
const FamilyDef kPrioRxBytes{"fabricmon_priority_receive_bytes_total",
                             "Bytes received on a priority (ethtool rx_prio<N>_bytes).", kCounter,
                             "bytes", "interface,priority"};
const FamilyDef kPrioTxBytes{"fabricmon_priority_transmit_bytes_total",
                             "Bytes sent on a priority (ethtool tx_prio<N>_bytes).", kCounter,
                             "bytes", "interface,priority"};
const FamilyDef kPrioRxPackets{"fabricmon_priority_receive_packets_total",
                               "Packets received on a priority (ethtool rx_prio<N>_packets).",
                               kCounter, "packets", "interface,priority"};
const FamilyDef kPrioTxPackets{"fabricmon_priority_transmit_packets_total",
                               "Packets sent on a priority (ethtool tx_prio<N>_packets).", kCounter,
                               "packets", "interface,priority"};
const FamilyDef kPrioDiscards{
    "fabricmon_priority_discards_total",
    "Received packets of a priority dropped: kind discards (rx_prio<N>_discards), buffer "
    "(_buf_discard), congestion (_cong_discard).",
    kCounter, "packets", "interface,priority,kind"};
const FamilyDef kPrioEcnMarked{
    "fabricmon_priority_ecn_marked_packets_total",
    "Received packets of a priority carrying an ECN congestion mark (ethtool rx_prio<N>_marked).",
    kCounter, "packets", "interface,priority"};
const FamilyDef kPhyLinkDown{"fabricmon_phy_link_down_events_total",
                             "Times the physical link went down (ethtool link_down_events_phy).",
                             kCounter, "events", "interface"};
const FamilyDef kPhySymbol{"fabricmon_phy_symbol_errors_total",
                           "Symbol errors seen by the PHY (ethtool rx_symbol_err_phy).", kCounter,
                           "errors", "interface"};
const FamilyDef kPhyCrc{"fabricmon_phy_crc_errors_total",
                        "Frames received with a bad CRC (ethtool rx_crc_errors_phy).", kCounter,
                        "frames", "interface"};
const FamilyDef kPhyPcsSymbol{
    "fabricmon_phy_pcs_symbol_errors_total",
    "Symbol errors after FEC at the PCS layer (ethtool rx_pcs_symbol_err_phy).", kCounter, "errors",
    "interface"};
const FamilyDef kPhyCorrectedBits{
    "fabricmon_phy_corrected_bit_errors_total",
    "Bit errors corrected by FEC, the pre-FEC error count (ethtool rx_corrected_bits_phy; bnxt_en "
    "rx_corrected_bits).",
    kCounter, "bit errors", "interface"};
const FamilyDef kPhyLaneCorrectedBits{
    "fabricmon_phy_lane_corrected_bit_errors_total",
    "Bit errors the FEC corrected on one lane, before correction (ethtool rx_err_lane_<N>_phy).",
    kCounter, "bit errors", "interface,lane"};
const FamilyDef kPhyReceivedBytes{
    "fabricmon_phy_received_bytes_total",
    "Data received by the PHY in bytes (ethtool rx_bits_phy / 8); x8 gives the bit error rate's "
    "denominator.",
    kCounter, "bytes", "interface"};
const FamilyDef kPhyTransmittedBytes{
    "fabricmon_phy_transmitted_bytes_total",
    "Bytes the port transmitted, every priority together (ice tx_bytes.nic); on NICs without "
    "per-priority packet counters it tells a stalled port from a busy one.",
    kCounter, "bytes", "interface"};
const FamilyDef kPhyRxDiscards{
    "fabricmon_phy_receive_discards_total",
    "Received packets the port dropped, e.g. for lack of buffer (ethtool rx_discards_phy).",
    kCounter, "packets", "interface"};
const FamilyDef kPhyTxDiscards{"fabricmon_phy_transmit_discards_total",
                               "Packets the port dropped on transmit (ethtool tx_discards_phy).",
                               kCounter, "packets", "interface"};
const FamilyDef kRxOutOfBuffer{
    "fabricmon_receive_out_of_buffer_total",
    "Packets dropped because no receive buffer was posted on the ring (ethtool rx_out_of_buffer).",
    kCounter, "packets", "interface"};
const FamilyDef kRxBufferPassedThreshold{
    "fabricmon_receive_buffer_passed_threshold_total",
    "Times the port receive buffer filled past its threshold (ethtool rx_buffer_passed_thres_phy).",
    kCounter, "events", "interface"};
const FamilyDef kRdmaVportBytes{
    "fabricmon_rdma_vport_bytes_total",
    "RDMA unicast bytes of the vport, rx or tx (ethtool rx|tx_vport_rdma_unicast_bytes).", kCounter,
    "bytes", "interface,direction"};
const FamilyDef kRdmaVportPackets{
    "fabricmon_rdma_vport_packets_total",
    "RDMA unicast packets of the vport, rx or tx (ethtool rx|tx_vport_rdma_unicast_packets).",
    kCounter, "packets", "interface,direction"};
const FamilyDef kPciStalled{
    "fabricmon_pci_outbound_stalled_ratio",
    "Fraction of the last second the NIC's outbound PCI reads (rd) or writes (wr) were stalled "
    "(ethtool outbound_pci_stalled_rd|wr, percent / 100).",
    kGauge, "ratio (0-1)", "interface,direction"};
const FamilyDef kEthtoolStat{"fabricmon_ethtool_stat_total",
                             "Any other ethtool statistic matched by ethtool.stats_include, raw "
                             "value as the driver reports it.",
                             kCounter, "as the driver reports", "interface,stat"};

const std::array kFamilies = {
    &kPfcPauseRx,
    &kPfcPauseTx,
    &kPfcPauseSeconds,
    &kPfcPauseTransitions,
    &kGlobalPauseRx,
    &kGlobalPauseTx,
    &kGlobalPauseSeconds,
    &kGlobalPauseTransitions,
    &kStormWarning,
    &kStormError,
    &kPrioRxBytes,
    &kPrioTxBytes,
    &kPrioRxPackets,
    &kPrioTxPackets,
    &kPrioDiscards,
    &kPrioEcnMarked,
    &kPhyLinkDown,
    &kPhySymbol,
    &kPhyCrc,
    &kPhyPcsSymbol,
    &kPhyCorrectedBits,
    &kPhyLaneCorrectedBits,
    &kPhyReceivedBytes,
    &kPhyTransmittedBytes,
    &kPhyRxDiscards,
    &kPhyTxDiscards,
    &kRxOutOfBuffer,
    &kRxBufferPassedThreshold,
    &kRdmaVportBytes,
    &kRdmaVportPackets,
    &kPciStalled,
    &kEthtoolStat,
};

std::span<const FamilyDef* const> all() { return kFamilies; }

}  // namespace fabricmon::families::ethtool
