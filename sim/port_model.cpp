#include "sim/port_model.hpp"

#include <algorithm>
#include <string>

namespace fabricmon::sim {

namespace {

// RoCEv2 over IPv4 with a 4096-byte path MTU: payload + Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 +
// ICRC 4 + FCS 4 (IBTA RoCEv2 annex A17).
constexpr double kRocePacketBytes = 4096 + 62;
// A CNP: the same headers, BTH + 16 reserved bytes (IBTA A17.9.2).
constexpr double kCnpPacketBytes = 78;
constexpr double kPauseFrameBytes = 64;
// np_cnp_sent / np_ecn_marked_roce_packets in the real mlx5 capture
// tests/fixtures/realdata/sysfs_hw_counters_mlx5_bond_0_roce_lag_show_counters_and_ls.txt (1.05e9 / 2.13e10).
constexpr double kCnpPerMark = 0.049;
// Host TCP/IP through the netdev (NCCL bootstrap, checkpoints to NFS, monitoring), on priority 0.
constexpr double kIpBytesPerSecond = 25e6;
constexpr double kIpPacketBytes = 1100;
// Under ordinary congestion a PFC XOFF episode lasts tens of µs; the switch refreshes a held pause
// before the quanta expire. Chosen, not measured (docs/simulator.md).
constexpr double kPauseMicrosPerFrame = 20;
constexpr double kPauseEpisodeMicros = 80;
// PortXmitWait tick: the unit is implementation specific (IBTA 16.1.3.5); 1 µs of pause = 1 tick
// here.
constexpr double kXmitWaitTicksPerMicro = 1;
// `lossy` scenario: retransmissions of RC QPs after drops upstream (per second, at
// transportErrorScale 1).
constexpr double kOutOfSequencePerSecond = 40;
// RS(544,514) corrects up to 15 of a codeword's 10-bit symbols (IEEE 802.3 clause 91): a codeword it
// gives up on held at least 16 symbol errors, which the PCS then counts as not corrected (mlx5
// rx_pcs_symbol_err_phy, bnxt_en rx_pcs_symbol_err).
constexpr double kSymbolErrorsPerUncorrectable = 16;
constexpr double kPacketSeqErrPerSecond = 15;
constexpr double kLocalAckTimeoutPerSecond = 3;
constexpr double kAdpRetransPerSecond = 25;
constexpr double kAdpRetransTimeoutPerSecond = 3;
constexpr double kDuplicateRequestPerSecond = 6;
constexpr double kImpliedNakPerSecond = 4;
// ... and the drops behind them: this NIC's receive buffer overflows on the lossless priority
// (what too little PFC headroom looks like).
constexpr double kLosslessBufferDropsPerSecond = 12;

std::string prio(unsigned p, const char* suffix, const char* dir = "rx") {
  return std::string(dir) + "_prio" + std::to_string(p) + suffix;
}

double uniform(std::mt19937_64& rng, double lo, double hi) {
  if (hi <= lo) return lo;
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

void buildPma(StatTable& t) {
  // Widths from drivers/infiniband/core/sysfs.c (its PORT_PMA_ATTR and PORT_PMA_ATTR_EXT tables); mlx5 has
  // the 64-bit PortCountersExtended data/packet counters.
  t.add("VL15_dropped", 16);
  t.add("excessive_buffer_overrun_errors", 4);
  t.add("link_downed", 8);
  t.add("link_error_recovery", 8);
  t.add("local_link_integrity_errors", 4);
  t.add("multicast_rcv_packets");
  t.add("multicast_xmit_packets");
  t.add("port_rcv_constraint_errors", 8);
  t.add("port_rcv_data");
  t.add("port_rcv_errors", 16);
  t.add("port_rcv_packets");
  t.add("port_rcv_remote_physical_errors", 16);
  t.add("port_rcv_switch_relay_errors", 16);
  t.add("port_xmit_constraint_errors", 8);
  t.add("port_xmit_data");
  t.add("port_xmit_discards", 16);
  t.add("port_xmit_packets");
  t.add("port_xmit_wait", 32);
  t.add("symbol_error", 16);
  t.add("unicast_rcv_packets");
  t.add("unicast_xmit_packets");
}

void buildHw(StatTable& t, bool roce) {
  // mlx5 descriptor order (drivers/infiniband/hw/mlx5/counters.c). Q-counters are 32-bit and wrap;
  // the simulator never runs long enough at these rates to reach 2^32, so they are plain here.
  for (const char* n : {"rx_write_requests",
                        "rx_read_requests",
                        "rx_atomic_requests",
                        "rx_dct_connect",
                        "out_of_buffer",
                        "out_of_sequence",
                        "duplicate_request",
                        "rnr_nak_retry_err",
                        "packet_seq_err",
                        "implied_nak_seq_err",
                        "local_ack_timeout_err",
                        "resp_local_length_error",
                        "resp_cqe_error",
                        "req_cqe_error",
                        "req_remote_invalid_request",
                        "req_remote_access_errors",
                        "resp_remote_access_errors",
                        "resp_cqe_flush_error",
                        "req_cqe_flush_error",
                        "req_transport_retries_exceeded",
                        "req_rnr_retries_exceeded"}) {
    t.add(n);
  }
  if (!roce) return;
  for (const char* n :
       {"roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
        "roce_slow_restart_trans", "rp_cnp_ignored", "rp_cnp_handled", "np_ecn_marked_roce_packets",
        "np_cnp_sent", "rx_icrc_encapsulated"}) {
    t.add(n);
  }
}

// `ethtool -S` of an mlx5 ConnectX-7 PF, in the driver's group order (mlx5 en_stats.c: sw,
// q-counter, vnic env, vport, 802.3, RFC 2863, RFC 2819, phy, ethernet extended, pcie,
// per-priority, pfc, pfc stall, module events, channels, then the per-priority buffer/congestion
// group at the end), with PFC on priority 3 only. Global pause is off, so no *_global_pause* names.
void buildEthtool(StatTable& t) {
  for (const char* n : {"rx_packets",
                        "rx_bytes",
                        "tx_packets",
                        "tx_bytes",
                        "tx_tso_packets",
                        "tx_tso_bytes",
                        "tx_tso_inner_packets",
                        "tx_tso_inner_bytes",
                        "tx_added_vlan_packets",
                        "tx_nop",
                        "tx_mpwqe_blks",
                        "tx_mpwqe_pkts",
                        "rx_lro_packets",
                        "rx_lro_bytes",
                        "rx_gro_packets",
                        "rx_gro_bytes",
                        "rx_ecn_mark",
                        "rx_removed_vlan_packets",
                        "rx_csum_unnecessary",
                        "rx_csum_none",
                        "rx_csum_complete",
                        "rx_csum_complete_tail",
                        "rx_csum_complete_tail_slow",
                        "rx_csum_unnecessary_inner",
                        "rx_xdp_drop",
                        "rx_xdp_redirect",
                        "rx_xdp_tx_xmit",
                        "rx_xdp_tx_mpwqe",
                        "rx_xdp_tx_inlnw",
                        "rx_xdp_tx_nops",
                        "rx_xdp_tx_full",
                        "rx_xdp_tx_err",
                        "rx_xdp_tx_cqe",
                        "tx_csum_none",
                        "tx_csum_partial",
                        "tx_csum_partial_inner",
                        "tx_queue_stopped",
                        "tx_queue_dropped",
                        "tx_xmit_more",
                        "tx_recover",
                        "tx_cqes",
                        "tx_queue_wake",
                        "tx_cqe_err",
                        "tx_xdp_xmit",
                        "tx_xdp_mpwqe",
                        "tx_xdp_inlnw",
                        "tx_xdp_nops",
                        "tx_xdp_full",
                        "tx_xdp_err",
                        "tx_xdp_cqes",
                        "rx_wqe_err",
                        "rx_mpwqe_filler_cqes",
                        "rx_mpwqe_filler_strides",
                        "rx_oversize_pkts_sw_drop",
                        "rx_buff_alloc_err",
                        "rx_cqe_compress_blks",
                        "rx_cqe_compress_pkts",
                        "rx_congst_umr",
                        "rx_arfs_err",
                        "rx_recover",
                        "ch_events",
                        "ch_poll",
                        "ch_arm",
                        "ch_aff_change",
                        "ch_force_irq",
                        "ch_eq_rearm",
                        "rx_out_of_buffer",
                        "rx_if_down_packets",
                        "rx_steer_missed_packets",
                        "dev_internal_queue_oob",
                        "rx_vport_unicast_packets",
                        "rx_vport_unicast_bytes",
                        "tx_vport_unicast_packets",
                        "tx_vport_unicast_bytes",
                        "rx_vport_multicast_packets",
                        "rx_vport_multicast_bytes",
                        "tx_vport_multicast_packets",
                        "tx_vport_multicast_bytes",
                        "rx_vport_broadcast_packets",
                        "rx_vport_broadcast_bytes",
                        "tx_vport_broadcast_packets",
                        "tx_vport_broadcast_bytes",
                        "rx_vport_rdma_unicast_packets",
                        "rx_vport_rdma_unicast_bytes",
                        "tx_vport_rdma_unicast_packets",
                        "tx_vport_rdma_unicast_bytes",
                        "rx_vport_rdma_multicast_packets",
                        "rx_vport_rdma_multicast_bytes",
                        "tx_vport_rdma_multicast_packets",
                        "tx_vport_rdma_multicast_bytes",
                        "tx_packets_phy",
                        "rx_packets_phy",
                        "rx_crc_errors_phy",
                        "tx_bytes_phy",
                        "rx_bytes_phy",
                        "tx_multicast_phy",
                        "tx_broadcast_phy",
                        "rx_multicast_phy",
                        "rx_broadcast_phy",
                        "rx_in_range_len_errors_phy",
                        "rx_out_of_range_len_phy",
                        "rx_oversize_pkts_phy",
                        "rx_symbol_err_phy",
                        "tx_mac_control_phy",
                        "rx_mac_control_phy",
                        "rx_unsupported_op_phy",
                        "rx_pause_ctrl_phy",
                        "tx_pause_ctrl_phy",
                        "rx_discards_phy",
                        "tx_discards_phy",
                        "tx_errors_phy",
                        "rx_undersize_pkts_phy",
                        "rx_fragments_phy",
                        "rx_jabbers_phy",
                        "rx_64_bytes_phy",
                        "rx_65_to_127_bytes_phy",
                        "rx_128_to_255_bytes_phy",
                        "rx_256_to_511_bytes_phy",
                        "rx_512_to_1023_bytes_phy",
                        "rx_1024_to_1518_bytes_phy",
                        "rx_1519_to_2047_bytes_phy",
                        "rx_2048_to_4095_bytes_phy",
                        "rx_4096_to_8191_bytes_phy",
                        "rx_8192_to_10239_bytes_phy",
                        "link_down_events_phy",
                        "total_success_recovery_phy",
                        "rx_bits_phy",
                        "rx_pcs_symbol_err_phy",
                        "rx_corrected_bits_phy",
                        "rx_err_lane_0_phy",
                        "rx_err_lane_1_phy",
                        "rx_err_lane_2_phy",
                        "rx_err_lane_3_phy",
                        "rx_buffer_passed_thres_phy",
                        "rx_pci_signal_integrity",
                        "tx_pci_signal_integrity",
                        "outbound_pci_buffer_overflow"}) {
    t.add(n);
  }
  // A percentage of the last second (the kernel's mlx5 counters.rst): a gauge, not a counter.
  t.add("outbound_pci_stalled_rd", 64, 0, true);
  t.add("outbound_pci_stalled_wr", 64, 0, true);
  t.add("outbound_pci_stalled_rd_events");
  t.add("outbound_pci_stalled_wr_events");
  for (unsigned p = 0; p < 8; ++p) {
    t.add(prio(p, "_bytes"));
    t.add(prio(p, "_packets"));
    t.add(prio(p, "_discards"));
    t.add(prio(p, "_bytes", "tx"));
    t.add(prio(p, "_packets", "tx"));
  }
  // PFC stats exist only for priorities with PFC enabled (en_stats.c mlx5e_query_pfc_combined).
  t.add(prio(kRocePriority, "_pause"));
  t.add(prio(kRocePriority, "_pause_duration"));
  t.add(prio(kRocePriority, "_pause", "tx"));
  t.add(prio(kRocePriority, "_pause_duration", "tx"));
  t.add(prio(kRocePriority, "_pause_transition"));
  t.add("tx_pause_storm_warning_events");
  t.add("tx_pause_storm_error_events");
  for (const char* n :
       {"module_unplug", "module_bus_stuck", "module_high_temp", "module_bad_shorted"})
    t.add(n);
  for (unsigned c = 0; c < kChannels; ++c) {
    const std::string ch = "ch" + std::to_string(c);
    for (const char* n : {"_events", "_poll", "_arm", "_aff_change", "_force_irq", "_eq_rearm"})
      t.add(ch + n);
  }
  for (unsigned c = 0; c < kChannels; ++c) {
    const std::string rx = "rx" + std::to_string(c);
    for (const char* n :
         {"_packets", "_bytes", "_csum_complete", "_csum_unnecessary", "_csum_none", "_xdp_drop",
          "_wqe_err", "_buff_alloc_err", "_cqe_compress_blks", "_recover"}) {
      t.add(rx + n);
    }
  }
  for (unsigned c = 0; c < kChannels; ++c) {
    const std::string tx = "tx" + std::to_string(c);
    for (const char* n :
         {"_packets", "_bytes", "_tso_packets", "_csum_partial", "_csum_none", "_stopped",
          "_dropped", "_xmit_more", "_recover", "_cqes", "_wake", "_cqe_err"}) {
      t.add(tx + n);
    }
  }
  for (unsigned p = 0; p < 8; ++p) {
    t.add(prio(p, "_buf_discard"));
    t.add(prio(p, "_cong_discard"));
    t.add(prio(p, "_marked"));
  }
}

struct Traffic {
  double rdmaTxBytes = 0, rdmaRxBytes = 0, rdmaTxPackets = 0, rdmaRxPackets = 0;
  double ipTxBytes = 0, ipRxBytes = 0, ipTxPackets = 0, ipRxPackets = 0;
  double marks = 0, cnpSent = 0, cnpReceived = 0;
  double rxPauseMicros = 0, txPauseMicros = 0, rxPauseFrames = 0, txPauseFrames = 0,
         rxTransitions = 0;
};

void applyEthtool(PortModel& port, double seconds, const Traffic& tr) {
  StatTable& e = port.ethtool;
  const double cnpTxBytes = tr.cnpSent * kCnpPacketBytes,
               cnpRxBytes = tr.cnpReceived * kCnpPacketBytes;

  // Netdev (software) path: only the host's IP traffic; RDMA bypasses the kernel.
  e["rx_packets"].add(tr.ipRxPackets);
  e["rx_bytes"].add(tr.ipRxBytes);
  e["tx_packets"].add(tr.ipTxPackets);
  e["tx_bytes"].add(tr.ipTxBytes);
  e["rx_csum_complete"].add(tr.ipRxPackets * 0.97);
  e["rx_csum_none"].add(tr.ipRxPackets * 0.03);
  e["rx_gro_packets"].add(tr.ipRxPackets * 0.4);
  e["rx_gro_bytes"].add(tr.ipRxBytes * 0.6);
  e["tx_csum_partial"].add(tr.ipTxPackets * 0.95);
  e["tx_csum_none"].add(tr.ipTxPackets * 0.05);
  e["tx_tso_packets"].add(tr.ipTxPackets * 0.02);
  e["tx_tso_bytes"].add(tr.ipTxBytes * 0.3);
  e["tx_xmit_more"].add(tr.ipTxPackets * 0.3);
  e["tx_cqes"].add(tr.ipTxPackets * 0.7);
  e["tx_mpwqe_blks"].add(tr.ipTxPackets * 0.1);
  e["tx_mpwqe_pkts"].add(tr.ipTxPackets * 0.3);
  e["rx_cqe_compress_blks"].add(tr.ipRxPackets * 0.05);
  e["rx_cqe_compress_pkts"].add(tr.ipRxPackets * 0.2);
  const double events = (tr.ipRxPackets + tr.ipTxPackets) / 6;  // interrupt moderation
  e["ch_events"].add(events);
  e["ch_poll"].add(events * 1.02);
  e["ch_arm"].add(events);
  const double weight = 1.0 / kChannels;
  for (unsigned c = 0; c < kChannels; ++c) {
    const std::string ch = "ch" + std::to_string(c), rx = "rx" + std::to_string(c),
                      tx = "tx" + std::to_string(c);
    e[ch + "_events"].add(events * weight);
    e[ch + "_poll"].add(events * weight * 1.02);
    e[ch + "_arm"].add(events * weight);
    e[rx + "_packets"].add(tr.ipRxPackets * weight);
    e[rx + "_bytes"].add(tr.ipRxBytes * weight);
    e[rx + "_csum_complete"].add(tr.ipRxPackets * weight * 0.97);
    e[rx + "_csum_none"].add(tr.ipRxPackets * weight * 0.03);
    e[rx + "_cqe_compress_blks"].add(tr.ipRxPackets * weight * 0.05);
    e[tx + "_packets"].add(tr.ipTxPackets * weight);
    e[tx + "_bytes"].add(tr.ipTxBytes * weight);
    e[tx + "_tso_packets"].add(tr.ipTxPackets * weight * 0.02);
    e[tx + "_csum_partial"].add(tr.ipTxPackets * weight * 0.95);
    e[tx + "_csum_none"].add(tr.ipTxPackets * weight * 0.05);
    e[tx + "_xmit_more"].add(tr.ipTxPackets * weight * 0.3);
    e[tx + "_cqes"].add(tr.ipTxPackets * weight * 0.7);
  }

  // vport: NIC-level, non-RDMA and RDMA separately (mlx5 counters.rst).
  const double ipRxUni = tr.ipRxPackets * 0.97, ipRxMulti = tr.ipRxPackets * 0.025,
               ipRxBcast = tr.ipRxPackets * 0.005;
  e["rx_vport_unicast_packets"].add(ipRxUni);
  e["rx_vport_unicast_bytes"].add(tr.ipRxBytes * 0.98);
  e["rx_vport_multicast_packets"].add(ipRxMulti);
  e["rx_vport_multicast_bytes"].add(tr.ipRxBytes * 0.015);
  e["rx_vport_broadcast_packets"].add(ipRxBcast);
  e["rx_vport_broadcast_bytes"].add(tr.ipRxBytes * 0.005);
  e["tx_vport_unicast_packets"].add(tr.ipTxPackets * 0.99);
  e["tx_vport_unicast_bytes"].add(tr.ipTxBytes * 0.99);
  e["tx_vport_multicast_packets"].add(tr.ipTxPackets * 0.01);
  e["tx_vport_multicast_bytes"].add(tr.ipTxBytes * 0.01);
  e["rx_vport_rdma_unicast_packets"].add(tr.rdmaRxPackets + tr.cnpReceived);
  e["rx_vport_rdma_unicast_bytes"].add(tr.rdmaRxBytes + cnpRxBytes);
  e["tx_vport_rdma_unicast_packets"].add(tr.rdmaTxPackets + tr.cnpSent);
  e["tx_vport_rdma_unicast_bytes"].add(tr.rdmaTxBytes + cnpTxBytes);

  // Physical port: everything on the wire, pause frames included.
  const double rxPkts = tr.ipRxPackets + tr.rdmaRxPackets + tr.cnpReceived + tr.rxPauseFrames;
  const double txPkts = tr.ipTxPackets + tr.rdmaTxPackets + tr.cnpSent + tr.txPauseFrames;
  e["rx_packets_phy"].add(rxPkts);
  e["tx_packets_phy"].add(txPkts);
  e["rx_bytes_phy"].add(tr.ipRxBytes + tr.rdmaRxBytes + cnpRxBytes +
                        tr.rxPauseFrames * kPauseFrameBytes);
  e["tx_bytes_phy"].add(tr.ipTxBytes + tr.rdmaTxBytes + cnpTxBytes +
                        tr.txPauseFrames * kPauseFrameBytes);
  e["rx_multicast_phy"].add(ipRxMulti);
  e["rx_broadcast_phy"].add(ipRxBcast);
  e["tx_multicast_phy"].add(tr.ipTxPackets * 0.01);
  e["rx_pause_ctrl_phy"].add(tr.rxPauseFrames);
  e["tx_pause_ctrl_phy"].add(tr.txPauseFrames);
  e["rx_mac_control_phy"].add(tr.rxPauseFrames);
  e["tx_mac_control_phy"].add(tr.txPauseFrames);
  e["rx_64_bytes_phy"].add(tr.ipRxPackets * 0.1 + tr.rxPauseFrames);
  e["rx_65_to_127_bytes_phy"].add(tr.ipRxPackets * 0.5 + tr.cnpReceived);
  e["rx_128_to_255_bytes_phy"].add(tr.ipRxPackets * 0.1);
  e["rx_1024_to_1518_bytes_phy"].add(tr.ipRxPackets * 0.1);
  e["rx_1519_to_2047_bytes_phy"].add(tr.ipRxPackets * 0.2);
  e["rx_4096_to_8191_bytes_phy"].add(tr.rdmaRxPackets);

  // Line bits: the PHY counts every bit on a running link, idle included, so BER = corrected /
  // rx_bits.
  e["rx_bits_phy"].add(static_cast<double>(port.rateGbps) * 1e9 * seconds);

  for (unsigned p = 0; p < 8; ++p) {
    double rxB = 0, rxP = 0, txB = 0, txP = 0;
    if (p == 0) rxB = tr.ipRxBytes, rxP = tr.ipRxPackets, txB = tr.ipTxBytes, txP = tr.ipTxPackets;
    if (p == kRocePriority)
      rxB = tr.rdmaRxBytes, rxP = tr.rdmaRxPackets, txB = tr.rdmaTxBytes, txP = tr.rdmaTxPackets;
    if (p == kCnpPriority)
      rxB = cnpRxBytes, rxP = tr.cnpReceived, txB = cnpTxBytes, txP = tr.cnpSent;
    e[prio(p, "_bytes")].add(rxB);
    e[prio(p, "_packets")].add(rxP);
    e[prio(p, "_bytes", "tx")].add(txB);
    e[prio(p, "_packets", "tx")].add(txP);
  }
  e[prio(kRocePriority, "_pause")].add(tr.rxPauseFrames);
  e[prio(kRocePriority, "_pause_duration")].add(tr.rxPauseMicros);
  e[prio(kRocePriority, "_pause", "tx")].add(tr.txPauseFrames);
  e[prio(kRocePriority, "_pause_duration", "tx")].add(tr.txPauseMicros);
  e[prio(kRocePriority, "_pause_transition")].add(tr.rxTransitions);
  e[prio(kRocePriority, "_marked")].add(tr.marks);
  // Buffer above its threshold roughly as often as we send XOFF (mlx5 eth-extended group).
  e["rx_buffer_passed_thres_phy"].add(tr.txPauseFrames * 0.5);
}

}  // namespace

void buildTables(PortModel& port) {
  port.pma = StatTable{};
  port.hw = StatTable{};
  port.ethtool = StatTable{};
  port.fecCorrectedBlocks = Counter{};
  port.fecUncorrectableBlocks = Counter{};
  port.ibFec = PortModel::IbFec{};  // the switch's end (peerIbFec) keeps counting through our reload
  buildPma(port.pma);
  buildHw(port.hw, port.roce);
  if (port.roce) buildEthtool(port.ethtool);
  // A fresh netdev: carrier off at probe, on when the link trains (procfs fixture: 2 / 1 / 1).
  port.carrierChanges.set(2);
  port.carrierUpCount.set(1);
  port.carrierDownCount.set(1);
}

void advance(PortModel& port, double seconds, const PortBehaviour& b) {
  if (!(seconds > 0) || !port.linkUp || port.frozen) return;
  auto& rng = port.rng;
  const double lineBytesPerSecond = static_cast<double>(port.rateGbps) * 1e9 / 8;

  Traffic tr;
  const double pausedByPeer =
      std::clamp(uniform(rng, b.pausedByPeerLo, b.pausedByPeerHi), 0.0, 1.0);
  const double pausingPeer = std::clamp(uniform(rng, b.pausingPeerLo, b.pausingPeerHi), 0.0, 1.0);
  const double txUtil = std::min(0.95, port.baseTxUtilisation * uniform(rng, 0.93, 1.07));
  const double rxUtil = std::min(0.95, port.baseRxUtilisation * uniform(rng, 0.93, 1.07));
  // A port paused by its peer cannot send on that priority; in a storm it sends nothing at all.
  const double txShare = b.pauseStorm ? 0.0 : 1.0 - pausedByPeer;
  tr.rdmaTxBytes = txUtil * lineBytesPerSecond * seconds * txShare;
  tr.rdmaRxBytes = rxUtil * lineBytesPerSecond * seconds * (1.0 - pausingPeer);
  tr.rdmaTxPackets = tr.rdmaTxBytes / kRocePacketBytes;
  tr.rdmaRxPackets = tr.rdmaRxBytes / kRocePacketBytes;

  const double markShare = uniform(rng, b.ecnMarkLo, b.ecnMarkHi);
  tr.marks = tr.rdmaRxPackets * markShare;
  tr.cnpSent = port.npEnabled[kRocePriority] ? tr.marks * kCnpPerMark : 0.0;
  // The remote notification points mark and answer our own flows at the same share.
  tr.cnpReceived = tr.rdmaTxPackets * markShare * kCnpPerMark;

  tr.rxPauseMicros = pausedByPeer * seconds * 1e6;
  tr.txPauseMicros = pausingPeer * seconds * 1e6;
  if (b.pauseStorm) {
    // A held XOFF is refreshed before its quanta expire: 65535 quanta × 512 bit times, refreshed at
    // half.
    const double quantaMicros = 65535.0 * 512 / (static_cast<double>(port.rateGbps) * 1e3);
    tr.rxPauseFrames = tr.rxPauseMicros / (quantaMicros / 2);
    tr.rxTransitions = 0;
  } else {
    tr.rxPauseFrames = tr.rxPauseMicros / kPauseMicrosPerFrame;
    tr.rxTransitions = tr.rxPauseMicros / kPauseEpisodeMicros;
  }
  tr.txPauseFrames = tr.txPauseMicros / kPauseMicrosPerFrame;

  double bulkTx = 0, bulkRx = 0;
  if (port.roce) {
    bulkTx = b.bulkTcpOnRocePriority * uniform(rng, 0.9, 1.1) * seconds;
    bulkRx = b.bulkTcpOnRocePriority * uniform(rng, 0.9, 1.1) * seconds;
    tr.ipTxBytes = kIpBytesPerSecond * uniform(rng, 0.5, 1.5) * seconds;
    tr.ipRxBytes = kIpBytesPerSecond * uniform(rng, 0.5, 1.5) * seconds;
    tr.ipTxPackets = tr.ipTxBytes / kIpPacketBytes;
    tr.ipRxPackets = tr.ipRxBytes / kIpPacketBytes;
  }

  // PMA (ports/1/counters): on mlx5 RoCE only RDMA traffic; data in 4-byte words
  // (drivers/infiniband/core/sysfs.c).
  StatTable& pma = port.pma;
  pma["port_xmit_data"].add((tr.rdmaTxBytes + tr.cnpSent * kCnpPacketBytes) / 4);
  pma["port_rcv_data"].add((tr.rdmaRxBytes + tr.cnpReceived * kCnpPacketBytes) / 4);
  pma["port_xmit_packets"].add(tr.rdmaTxPackets + tr.cnpSent);
  pma["port_rcv_packets"].add(tr.rdmaRxPackets + tr.cnpReceived);
  pma["unicast_xmit_packets"].add(tr.rdmaTxPackets + tr.cnpSent);
  pma["unicast_rcv_packets"].add(tr.rdmaRxPackets + tr.cnpReceived);
  pma["port_xmit_wait"].add(tr.rxPauseMicros * kXmitWaitTicksPerMicro);

  const double symbolErrors = b.symbolErrorsPerSecond * seconds * uniform(rng, 0.7, 1.3);
  const double crcErrors = b.crcErrorsPerSecond * seconds * uniform(rng, 0.7, 1.3);
  pma["symbol_error"].add(symbolErrors);
  pma["port_rcv_errors"].add(crcErrors);
  pma["link_error_recovery"].add(b.linkErrorRecoveriesPerSecond * seconds);

  StatTable& hw = port.hw;
  // Incoming RDMA WRITE packets dominate NCCL traffic; a few READs (rendezvous); no atomics.
  hw["rx_write_requests"].add(tr.rdmaRxPackets * 0.98);
  hw["rx_read_requests"].add(tr.rdmaRxPackets * 0.002);
  const double s = b.transportErrorScale * seconds;
  if (b.reorderPerSecond > 0) hw["out_of_sequence"].add(b.reorderPerSecond * seconds * uniform(rng, 0.7, 1.3));
  if (s > 0) {
    hw["out_of_sequence"].add(kOutOfSequencePerSecond * s * uniform(rng, 0.7, 1.3));
    hw["packet_seq_err"].add(kPacketSeqErrPerSecond * s * uniform(rng, 0.7, 1.3));
    hw["local_ack_timeout_err"].add(kLocalAckTimeoutPerSecond * s * uniform(rng, 0.8, 1.2));
    hw["duplicate_request"].add(kDuplicateRequestPerSecond * s * uniform(rng, 0.7, 1.3));
    hw["implied_nak_seq_err"].add(kImpliedNakPerSecond * s * uniform(rng, 0.7, 1.3));
    hw.addIf("roce_adp_retrans", kAdpRetransPerSecond * s * uniform(rng, 0.7, 1.3));
    hw.addIf("roce_adp_retrans_to", kAdpRetransTimeoutPerSecond * s * uniform(rng, 0.7, 1.3));
  }
  if (!port.roce) {
    // InfiniBand: the FEC at both ends of the cable. The link runs at line rate, idle included;
    // while the BER is low each corrected RS symbol holds one bit error, and a corrected RS(544,514)
    // codeword (5440 bits) one symbol. The scenario's fault is on this port's receive side; the
    // switch port receives our transmitter at a healthy BER.
    const double bits = static_cast<double>(port.rateGbps) * 1e9 * seconds;
    auto count = [&](PortModel::IbFec& f, double ber, double uncorrectablePerSecond) {
      const double corrected = bits * ber * uniform(rng, 0.8, 1.2);
      f.correctedSymbols.add(corrected);
      f.correctedBlocks.add(std::min(corrected, bits / 5440));
      f.uncorrectableBlocks.add(uncorrectablePerSecond * seconds);
      for (unsigned lane = 0; lane < 4; ++lane) f.laneSymbols[lane].add(corrected * port.laneWeights[lane]);
    };
    count(port.ibFec, b.preFecBer, b.uncorrectablePerSecond);
    count(port.peerIbFec, PortBehaviour{}.preFecBer, 0);  // a healthy link's BER
    return;
  }

  hw["np_ecn_marked_roce_packets"].add(tr.marks);
  hw["np_cnp_sent"].add(tr.cnpSent);
  hw[port.rpEnabled[kRocePriority] ? "rp_cnp_handled" : "rp_cnp_ignored"].add(tr.cnpReceived);

  applyEthtool(port, seconds, tr);
  StatTable& e = port.ethtool;
  if (bulkTx > 0 || bulkRx > 0) {
    // Host TCP through the netdev like the priority-0 traffic, but classified onto the RoCE priority.
    const double txP = bulkTx / kIpPacketBytes, rxP = bulkRx / kIpPacketBytes;
    for (const auto& [name, v] : std::initializer_list<std::pair<const char*, double>>{
             {"tx_bytes", bulkTx}, {"rx_bytes", bulkRx}, {"tx_packets", txP},
                                  {"rx_packets", rxP}, {"tx_vport_unicast_bytes", bulkTx},
                                  {"rx_vport_unicast_bytes", bulkRx}, {"tx_vport_unicast_packets", txP},
                                  {"rx_vport_unicast_packets", rxP}, {"tx_bytes_phy", bulkTx},
                                  {"rx_bytes_phy", bulkRx}, {"tx_packets_phy", txP}, {"rx_packets_phy", rxP}}) {
      e[name].add(v);
    }
    e[prio(kRocePriority, "_bytes", "tx")].add(bulkTx);
    e[prio(kRocePriority, "_bytes")].add(bulkRx);
    e[prio(kRocePriority, "_packets", "tx")].add(txP);
    e[prio(kRocePriority, "_packets")].add(rxP);
  }
  if (b.globalPauseFramesPerSecond > 0) {
    // The names exist only while link-level pause is on (mlx5 en_stats.c, the 802.3 group).
    for (const char* name : {"rx_global_pause", "tx_global_pause"}) {
      if (!e.has(name)) e.add(name);
      e[name].add(b.globalPauseFramesPerSecond * seconds * uniform(rng, 0.8, 1.2));
    }
  }
  if (s > 0) {
    e[prio(kRocePriority, "_buf_discard")].add(kLosslessBufferDropsPerSecond * s * uniform(rng, 0.7, 1.3));
  }
  e["rx_symbol_err_phy"].add(symbolErrors);
  e["rx_pcs_symbol_err_phy"].add(symbolErrors + kSymbolErrorsPerUncorrectable * b.uncorrectablePerSecond * seconds);
  e["rx_crc_errors_phy"].add(crcErrors);
  e["total_success_recovery_phy"].add(b.linkErrorRecoveriesPerSecond * seconds);
  const double corrected =
      static_cast<double>(port.rateGbps) * 1e9 * seconds * b.preFecBer * uniform(rng, 0.8, 1.2);
  e["rx_corrected_bits_phy"].add(corrected);
  // A corrected RS(544,514) codeword (5440 bits) holds one bit error while the BER is low: as many
  // corrected codewords as bit errors, never more than the codewords received.
  const double codewords = static_cast<double>(port.rateGbps) * 1e9 * seconds / 5440;
  port.fecCorrectedBlocks.add(std::min(corrected, codewords));
  port.fecUncorrectableBlocks.add(b.uncorrectablePerSecond * seconds);
  for (unsigned lane = 0; lane < 4; ++lane) {
    e["rx_err_lane_" + std::to_string(lane) + "_phy"].add(corrected * port.laneWeights[lane]);
  }
}

void linkDown(PortModel& port) {
  if (!port.linkUp) return;
  port.linkUp = false;
  port.carrierChanges.add(1);
  port.carrierDownCount.add(1);
  port.pma["link_downed"].add(1);
  if (port.roce) port.ethtool["link_down_events_phy"].add(1);
}

void linkUp(PortModel& port) {
  if (port.linkUp) return;
  port.linkUp = true;
  port.carrierChanges.add(1);
  port.carrierUpCount.add(1);
}

}  // namespace fabricmon::sim
