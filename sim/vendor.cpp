#include "sim/vendor.hpp"

#include <array>
#include <cstdint>

#include "sim/port_model.hpp"
#include "sim/render.hpp"

namespace fabricmon::sim {

namespace {

constexpr std::array<std::string_view, 4> kNames = {"mlx5", "bnxt", "ice", "ionic"};
constexpr std::array<std::string_view, 4> kDrivers = {"mlx5_core", "bnxt_en", "ice", "ionic"};

// Builds a listing in the driver's order; values come from the model's (mlx5-named) counters.
class Listing {
 public:
  explicit Listing(const StatTable& model) : model_(model) { out_ = "NIC statistics:\n"; }
  /// The model's counter `name`, 0 when the model lacks it (PFC names exist only for priority 3).
  uint64_t get(std::string_view name) const {
    return model_.has(name) ? model_[name].value() : 0;
  }
  void put(std::string_view name, uint64_t value) {
    out_ += "     ";
    out_ += name;
    out_ += ": ";
    out_ += std::to_string(value);
    out_ += '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  const StatTable& model_;
  std::string out_;
};

// Difference of two model counters that are counted separately; never wraps below 0.
uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

std::string prio(unsigned p, std::string_view dir, std::string_view suffix) {
  return std::string(dir) + "_prio" + std::to_string(p) + std::string(suffix);
}
std::string n(std::string_view a, unsigned i, std::string_view b = {}) {
  return std::string(a) + std::to_string(i) + std::string(b);
}

// Each pause episode of the model lasts ~4 frames' worth (port_model.cpp: 80 µs episodes of
// 20 µs frames), so transitions and XON frames follow the frame counts. Chosen, not measured.
constexpr uint64_t kFramesPerEpisode = 4;
// Queues listed per netdev: the model's 16 channels (port_model.hpp kChannels).
constexpr unsigned kChannelsShown = kChannels;

// drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c, bnxt_get_strings order: ring stats, ring
// error totals, bnxt_port_stats_arr, bnxt_port_stats_ext_arr, bnxt_tx_port_stats_ext_arr, then the
// per-priority arrays. CoS queue i carries priority i here (the usual one-to-one map).
std::string bnxtText(const StatTable& model) {
  Listing l(model);
  constexpr unsigned kRings = 16;
  for (unsigned r = 0; r < kRings; ++r) {
    const std::string p = "[" + std::to_string(r) + "]: ";
    l.put(p + "rx_ucast_packets", l.get(n("rx", r, "_packets")));
    l.put(p + "rx_mcast_packets", 0);
    l.put(p + "rx_bcast_packets", 0);
    l.put(p + "rx_discards", 0);
    l.put(p + "rx_errors", 0);
    l.put(p + "rx_ucast_bytes", l.get(n("rx", r, "_bytes")));
    l.put(p + "rx_mcast_bytes", 0);
    l.put(p + "rx_bcast_bytes", 0);
    l.put(p + "tx_ucast_packets", l.get(n("tx", r, "_packets")));
    l.put(p + "tx_mcast_packets", 0);
    l.put(p + "tx_bcast_packets", 0);
    l.put(p + "tx_errors", 0);
    l.put(p + "tx_discards", 0);
    l.put(p + "tx_ucast_bytes", l.get(n("tx", r, "_bytes")));
    l.put(p + "tx_mcast_bytes", 0);
    l.put(p + "tx_bcast_bytes", 0);
    l.put(p + "rx_l4_csum_errors", 0);
    l.put(p + "rx_resets", 0);
    l.put(p + "rx_buf_errors", 0);
    l.put(p + "missed_irqs", 0);
  }
  for (const char* s : {"rx_total_l4_csum_errors", "rx_total_resets", "rx_total_buf_errors",
                        "rx_total_oom_discards", "rx_total_netpoll_discards",
                        "rx_total_ring_discards", "tx_total_resets", "tx_total_ring_discards",
                        "total_missed_irqs"})
    l.put(s, 0);

  uint64_t rxPfc = 0, txPfc = 0;
  for (unsigned p = 0; p < 8; ++p) {
    rxPfc += l.get(prio(p, "rx", "_pause"));
    txPfc += l.get(prio(p, "tx", "_pause"));
  }
  // bnxt_port_stats_arr, rx half.
  l.put("rx_64b_frames", l.get("rx_64_bytes_phy"));
  l.put("rx_65b_127b_frames", l.get("rx_65_to_127_bytes_phy"));
  l.put("rx_128b_255b_frames", l.get("rx_128_to_255_bytes_phy"));
  l.put("rx_256b_511b_frames", l.get("rx_256_to_511_bytes_phy"));
  l.put("rx_512b_1023b_frames", l.get("rx_512_to_1023_bytes_phy"));
  l.put("rx_1024b_1518b_frames", l.get("rx_1024_to_1518_bytes_phy"));
  l.put("rx_good_vlan_frames", 0);
  l.put("rx_1519b_2047b_frames", l.get("rx_1519_to_2047_bytes_phy"));
  l.put("rx_2048b_4095b_frames", l.get("rx_2048_to_4095_bytes_phy"));
  l.put("rx_4096b_9216b_frames", l.get("rx_4096_to_8191_bytes_phy"));
  l.put("rx_9217b_16383b_frames", 0);
  l.put("rx_total_frames", l.get("rx_packets_phy"));
  l.put("rx_ucast_frames", minus(l.get("rx_packets_phy"), l.get("rx_multicast_phy") +
                                                         l.get("rx_broadcast_phy") +
                                                         l.get("rx_mac_control_phy")));
  l.put("rx_mcast_frames", l.get("rx_multicast_phy"));
  l.put("rx_bcast_frames", l.get("rx_broadcast_phy"));
  l.put("rx_fcs_err_frames", l.get("rx_crc_errors_phy"));
  l.put("rx_ctrl_frames", l.get("rx_mac_control_phy"));
  l.put("rx_pause_frames", l.get("rx_global_pause"));
  l.put("rx_pfc_frames", rxPfc);
  for (const char* s : {"rx_align_err_frames", "rx_ovrsz_frames", "rx_jbr_frames",
                        "rx_mtu_err_frames", "rx_tagged_frames", "rx_double_tagged_frames"})
    l.put(s, 0);
  l.put("rx_good_frames", minus(l.get("rx_packets_phy"), l.get("rx_crc_errors_phy")));
  for (unsigned p = 0; p < 8; ++p) l.put(n("rx_pfc_ena_frames_pri", p), l.get(prio(p, "rx", "_pause")));
  l.put("rx_undrsz_frames", 0);
  l.put("rx_eee_lpi_events", 0);
  l.put("rx_eee_lpi_duration", 0);
  l.put("rx_bytes", l.get("rx_bytes_phy"));
  l.put("rx_runt_bytes", 0);
  l.put("rx_runt_frames", 0);
  l.put("rx_stat_discard", l.get("rx_discards_phy"));
  l.put("rx_stat_err", 0);
  // tx half.
  l.put("tx_64b_frames", l.get("tx_pause_ctrl_phy"));
  for (const char* s : {"tx_65b_127b_frames", "tx_128b_255b_frames", "tx_256b_511b_frames",
                        "tx_512b_1023b_frames", "tx_1024b_1518b_frames", "tx_good_vlan_frames",
                        "tx_1519b_2047b_frames", "tx_2048b_4095b_frames", "tx_4096b_9216b_frames",
                        "tx_9217b_16383b_frames"})
    l.put(s, 0);
  l.put("tx_good_frames", l.get("tx_packets_phy"));
  l.put("tx_total_frames", l.get("tx_packets_phy"));
  l.put("tx_ucast_frames", minus(l.get("tx_packets_phy"),
                                     l.get("tx_multicast_phy") + l.get("tx_mac_control_phy")));
  l.put("tx_mcast_frames", l.get("tx_multicast_phy"));
  l.put("tx_bcast_frames", 0);
  l.put("tx_pause_frames", l.get("tx_global_pause"));
  l.put("tx_pfc_frames", txPfc);
  for (const char* s : {"tx_jabber_frames", "tx_fcs_err_frames", "tx_err", "tx_fifo_underruns"})
    l.put(s, 0);
  for (unsigned p = 0; p < 8; ++p) l.put(n("tx_pfc_ena_frames_pri", p), l.get(prio(p, "tx", "_pause")));
  l.put("tx_eee_lpi_events", 0);
  l.put("tx_eee_lpi_duration", 0);
  l.put("tx_total_collisions", 0);
  l.put("tx_bytes", l.get("tx_bytes_phy"));
  l.put("tx_xthol_frames", 0);
  l.put("tx_stat_discard", l.get("tx_discards_phy"));
  l.put("tx_stat_error", 0);

  // bnxt_port_stats_ext_arr.
  l.put("link_down_events", l.get("link_down_events_phy"));
  for (const char* s : {"continuous_pause_events", "resume_pause_events",
                        "continuous_roce_pause_events", "resume_roce_pause_events"})
    l.put(s, 0);
  for (unsigned c = 0; c < 8; ++c) {
    l.put(n("rx_bytes_cos", c), l.get(prio(c, "rx", "_bytes")));
    l.put(n("rx_packets_cos", c), l.get(prio(c, "rx", "_packets")));
  }
  for (unsigned p = 0; p < 8; ++p) {
    l.put(n("pfc_pri", p, "_rx_duration_us"), l.get(prio(p, "rx", "_pause_duration")));
    l.put(n("pfc_pri", p, "_rx_transitions"), l.get(prio(p, "rx", "_pause_transition")));
  }
  l.put("rx_bits", l.get("rx_bits_phy"));
  l.put("rx_buffer_passed_threshold", l.get("rx_buffer_passed_thres_phy"));
  l.put("rx_pcs_symbol_err", l.get("rx_pcs_symbol_err_phy"));
  l.put("rx_corrected_bits", l.get("rx_corrected_bits_phy"));
  for (unsigned c = 0; c < 8; ++c) {
    const uint64_t drops = l.get(prio(c, "rx", "_buf_discard")) + l.get(prio(c, "rx", "_discards"));
    l.put(n("rx_discard_bytes_cos", c), drops * 4158);  // RoCE packets of 4 KiB MTU
    l.put(n("rx_discard_packets_cos", c), drops);
  }
  l.put("rx_fec_corrected_blocks", 0);
  l.put("rx_fec_uncorrectable_blocks", 0);
  l.put("rx_filter_miss", 0);
  // bnxt_tx_port_stats_ext_arr.
  for (unsigned c = 0; c < 8; ++c) {
    l.put(n("tx_bytes_cos", c), l.get(prio(c, "tx", "_bytes")));
    l.put(n("tx_packets_cos", c), l.get(prio(c, "tx", "_packets")));
  }
  for (unsigned p = 0; p < 8; ++p) {
    l.put(n("pfc_pri", p, "_tx_duration_us"), l.get(prio(p, "tx", "_pause_duration")));
    l.put(n("pfc_pri", p, "_tx_transitions"), l.get(prio(p, "tx", "_pause")) / kFramesPerEpisode);
  }
  // bnxt_{rx,tx}_{bytes,pkts}_pri_arr.
  for (unsigned p = 0; p < 8; ++p) l.put(n("rx_bytes_pri", p), l.get(prio(p, "rx", "_bytes")));
  for (unsigned p = 0; p < 8; ++p) l.put(n("rx_packets_pri", p), l.get(prio(p, "rx", "_packets")));
  for (unsigned p = 0; p < 8; ++p) l.put(n("tx_bytes_pri", p), l.get(prio(p, "tx", "_bytes")));
  for (unsigned p = 0; p < 8; ++p) l.put(n("tx_packets_pri", p), l.get(prio(p, "tx", "_packets")));
  return l.take();
}

// drivers/net/ethernet/intel/ice/ice_ethtool.c, ice_get_strings order: ice_gstrings_vsi_stats, the
// queues, ice_gstrings_pf_stats, then the per-priority XON/XOFF counts.
std::string iceText(const StatTable& model) {
  Listing l(model);
  l.put("rx_unicast", l.get("rx_vport_unicast_packets"));
  l.put("tx_unicast", l.get("tx_vport_unicast_packets"));
  l.put("rx_multicast", l.get("rx_vport_multicast_packets"));
  l.put("tx_multicast", l.get("tx_vport_multicast_packets"));
  l.put("rx_broadcast", l.get("rx_vport_broadcast_packets"));
  l.put("tx_broadcast", l.get("tx_vport_broadcast_packets"));
  l.put("rx_bytes", l.get("rx_vport_unicast_bytes") + l.get("rx_vport_multicast_bytes") +
                        l.get("rx_vport_broadcast_bytes"));
  l.put("tx_bytes", l.get("tx_vport_unicast_bytes") + l.get("tx_vport_multicast_bytes"));
  l.put("rx_dropped", l.get("rx_out_of_buffer"));
  for (const char* s : {"rx_unknown_protocol", "rx_alloc_fail", "rx_pg_alloc_fail", "tx_errors",
                        "tx_linearize", "tx_busy", "tx_restart"})
    l.put(s, 0);
  constexpr unsigned kQueues = 16;
  for (unsigned q = 0; q < kQueues; ++q) {
    l.put(n("tx_queue_", q, "_packets"), l.get(n("tx", q, "_packets")));
    l.put(n("tx_queue_", q, "_bytes"), l.get(n("tx", q, "_bytes")));
  }
  for (unsigned q = 0; q < kQueues; ++q) {
    l.put(n("rx_queue_", q, "_packets"), l.get(n("rx", q, "_packets")));
    l.put(n("rx_queue_", q, "_bytes"), l.get(n("rx", q, "_bytes")));
  }
  l.put("rx_bytes.nic", l.get("rx_bytes_phy"));
  l.put("tx_bytes.nic", l.get("tx_bytes_phy"));
  l.put("rx_unicast.nic", minus(l.get("rx_packets_phy"), l.get("rx_multicast_phy") +
                                                        l.get("rx_broadcast_phy") +
                                                        l.get("rx_mac_control_phy")));
  l.put("tx_unicast.nic", minus(l.get("tx_packets_phy"),
                                    l.get("tx_multicast_phy") + l.get("tx_mac_control_phy")));
  l.put("rx_multicast.nic", l.get("rx_multicast_phy"));
  l.put("tx_multicast.nic", l.get("tx_multicast_phy"));
  l.put("rx_broadcast.nic", l.get("rx_broadcast_phy"));
  l.put("tx_broadcast.nic", 0);
  l.put("tx_errors.nic", 0);
  l.put("tx_timeout.nic", 0);
  l.put("rx_size_64.nic", l.get("rx_64_bytes_phy"));
  l.put("tx_size_64.nic", l.get("tx_pause_ctrl_phy"));
  l.put("rx_size_127.nic", l.get("rx_65_to_127_bytes_phy"));
  l.put("tx_size_127.nic", 0);
  l.put("rx_size_255.nic", l.get("rx_128_to_255_bytes_phy"));
  l.put("tx_size_255.nic", 0);
  l.put("rx_size_511.nic", l.get("rx_256_to_511_bytes_phy"));
  l.put("tx_size_511.nic", 0);
  l.put("rx_size_1023.nic", l.get("rx_512_to_1023_bytes_phy"));
  l.put("tx_size_1023.nic", 0);
  l.put("rx_size_1522.nic", l.get("rx_1024_to_1518_bytes_phy"));
  l.put("tx_size_1522.nic", 0);
  l.put("rx_size_big.nic", l.get("rx_1519_to_2047_bytes_phy") + l.get("rx_4096_to_8191_bytes_phy"));
  l.put("tx_size_big.nic", 0);
  l.put("link_xon_rx.nic", 0);
  l.put("link_xon_tx.nic", 0);
  l.put("link_xoff_rx.nic", l.get("rx_global_pause"));
  l.put("link_xoff_tx.nic", l.get("tx_global_pause"));
  l.put("tx_dropped_link_down.nic", 0);
  for (const char* s : {"rx_undersize.nic", "rx_fragments.nic", "rx_oversize.nic", "rx_jabber.nic",
                        "rx_csum_bad.nic", "rx_length_errors.nic"})
    l.put(s, 0);
  l.put("rx_dropped.nic", l.get("rx_discards_phy"));
  l.put("rx_crc_errors.nic", l.get("rx_crc_errors_phy"));
  for (const char* s : {"illegal_bytes.nic", "mac_local_faults.nic", "mac_remote_faults.nic",
                        "fdir_sb_match.nic", "fdir_sb_status.nic"})
    l.put(s, 0);
  for (unsigned p = 0; p < 8; ++p) {
    const uint64_t xoff = l.get(prio(p, "tx", "_pause"));
    l.put(n("tx_priority_", p, "_xon.nic"), xoff / kFramesPerEpisode);
    l.put(n("tx_priority_", p, "_xoff.nic"), xoff);
  }
  for (unsigned p = 0; p < 8; ++p) {
    l.put(n("rx_priority_", p, "_xon.nic"), l.get(prio(p, "rx", "_pause_transition")));
    l.put(n("rx_priority_", p, "_xoff.nic"), l.get(prio(p, "rx", "_pause")));
  }
  return l.take();
}

// drivers/net/ethernet/pensando/ionic/ionic_stats.c, ionic_sw_stats_get_strings order:
// ionic_lif_stats_desc, ionic_port_stats_desc, then per queue "tx_%d_%s" and "rx_%d_%s".
std::string ionicText(const StatTable& model) {
  Listing l(model);
  uint64_t txBytes = 0, rxBytes = 0, txPkts = 0, rxPkts = 0;
  for (unsigned q = 0; q < kChannelsShown; ++q) {
    txBytes += l.get(n("tx", q, "_bytes")), rxBytes += l.get(n("rx", q, "_bytes"));
    txPkts += l.get(n("tx", q, "_packets")), rxPkts += l.get(n("rx", q, "_packets"));
  }
  l.put("tx_packets", txPkts);
  l.put("tx_bytes", txBytes);
  l.put("rx_packets", rxPkts);
  l.put("rx_bytes", rxBytes);
  for (const char* s : {"tx_tso", "tx_tso_bytes", "tx_csum_none", "tx_csum", "rx_csum_none",
                        "rx_csum_complete", "rx_csum_error", "hw_tx_dropped", "hw_rx_dropped",
                        "hw_rx_over_errors", "hw_rx_missed_errors", "hw_tx_aborted_errors"})
    l.put(s, 0);
  uint64_t rxPfc = 0, txPfc = 0;
  for (unsigned p = 0; p < 8; ++p) {
    rxPfc += l.get(prio(p, "rx", "_pause"));
    txPfc += l.get(prio(p, "tx", "_pause"));
  }
  l.put("frames_rx_ok", minus(l.get("rx_packets_phy"), l.get("rx_crc_errors_phy")));
  l.put("frames_rx_all", l.get("rx_packets_phy"));
  l.put("frames_rx_bad_fcs", l.get("rx_crc_errors_phy"));
  l.put("frames_rx_bad_all", l.get("rx_crc_errors_phy"));
  l.put("octets_rx_ok", l.get("rx_bytes_phy"));
  l.put("octets_rx_all", l.get("rx_bytes_phy"));
  l.put("frames_rx_unicast", minus(l.get("rx_packets_phy"), l.get("rx_multicast_phy") +
                                                                 l.get("rx_broadcast_phy") +
                                                                 l.get("rx_mac_control_phy")));
  l.put("frames_rx_multicast", l.get("rx_multicast_phy"));
  l.put("frames_rx_broadcast", l.get("rx_broadcast_phy"));
  l.put("frames_rx_pause", l.get("rx_global_pause"));
  for (const char* s : {"frames_rx_bad_length", "frames_rx_undersized", "frames_rx_oversized",
                        "frames_rx_fragments", "frames_rx_jabber"})
    l.put(s, 0);
  l.put("frames_rx_pripause", rxPfc);
  for (const char* s : {"frames_rx_stomped_crc", "frames_rx_too_long", "frames_rx_vlan_good"})
    l.put(s, 0);
  l.put("frames_rx_dropped", l.get("rx_discards_phy"));
  l.put("frames_rx_less_than_64b", 0);
  l.put("frames_rx_64b", l.get("rx_64_bytes_phy"));
  l.put("frames_rx_65b_127b", l.get("rx_65_to_127_bytes_phy"));
  l.put("frames_rx_128b_255b", l.get("rx_128_to_255_bytes_phy"));
  l.put("frames_rx_256b_511b", l.get("rx_256_to_511_bytes_phy"));
  l.put("frames_rx_512b_1023b", l.get("rx_512_to_1023_bytes_phy"));
  l.put("frames_rx_1024b_1518b", l.get("rx_1024_to_1518_bytes_phy"));
  l.put("frames_rx_1519b_2047b", l.get("rx_1519_to_2047_bytes_phy"));
  l.put("frames_rx_2048b_4095b", l.get("rx_2048_to_4095_bytes_phy"));
  l.put("frames_rx_4096b_8191b", l.get("rx_4096_to_8191_bytes_phy"));
  l.put("frames_rx_8192b_9215b", 0);
  l.put("frames_rx_other", 0);
  l.put("frames_tx_ok", l.get("tx_packets_phy"));
  l.put("frames_tx_all", l.get("tx_packets_phy"));
  l.put("frames_tx_bad", 0);
  l.put("octets_tx_ok", l.get("tx_bytes_phy"));
  l.put("octets_tx_total", l.get("tx_bytes_phy"));
  l.put("frames_tx_unicast", minus(l.get("tx_packets_phy"),
                                   l.get("tx_multicast_phy") + l.get("tx_mac_control_phy")));
  l.put("frames_tx_multicast", l.get("tx_multicast_phy"));
  l.put("frames_tx_broadcast", 0);
  l.put("frames_tx_pause", l.get("tx_global_pause"));
  l.put("frames_tx_pripause", txPfc);
  for (const char* s : {"frames_tx_vlan", "frames_tx_less_than_64b"}) l.put(s, 0);
  l.put("frames_tx_64b", l.get("tx_pause_ctrl_phy"));
  for (const char* s : {"frames_tx_65b_127b", "frames_tx_128b_255b", "frames_tx_256b_511b",
                        "frames_tx_512b_1023b", "frames_tx_1024b_1518b", "frames_tx_1519b_2047b",
                        "frames_tx_2048b_4095b", "frames_tx_4096b_8191b", "frames_tx_8192b_9215b",
                        "frames_tx_other"})
    l.put(s, 0);
  // Their meaning is not stated in the driver (docs/metrics.md); written as PFC frames here.
  for (unsigned p = 0; p < 8; ++p) l.put(n("frames_tx_pri_", p), l.get(prio(p, "tx", "_pause")));
  for (unsigned p = 0; p < 8; ++p) l.put(n("frames_rx_pri_", p), l.get(prio(p, "rx", "_pause")));
  for (unsigned p = 0; p < 8; ++p)
    l.put(n("tx_pripause_", p, "_1us_count"), l.get(prio(p, "tx", "_pause_duration")));
  for (unsigned p = 0; p < 8; ++p)
    l.put(n("rx_pripause_", p, "_1us_count"), l.get(prio(p, "rx", "_pause_duration")));
  l.put("rx_pause_1us_count", l.get("rx_global_pause_duration"));
  l.put("frames_tx_truncated", 0);
  for (unsigned q = 0; q < kChannelsShown; ++q) {
    const std::string t = n("tx_", q, "_");
    l.put(t + "pkts", l.get(n("tx", q, "_packets")));
    l.put(t + "bytes", l.get(n("tx", q, "_bytes")));
    for (const char* s : {"clean", "dma_map_err", "linearize", "frags", "tso", "tso_bytes",
                          "hwstamp_valid", "hwstamp_invalid", "csum_none", "csum", "vlan_inserted"})
      l.put(t + s, 0);
  }
  for (unsigned q = 0; q < kChannelsShown; ++q) {
    const std::string r = n("rx_", q, "_");
    l.put(r + "pkts", l.get(n("rx", q, "_packets")));
    l.put(r + "bytes", l.get(n("rx", q, "_bytes")));
    for (const char* s : {"dma_map_err", "alloc_err", "csum_none", "csum_complete", "csum_error",
                          "hwstamp_valid", "hwstamp_invalid", "dropped", "vlan_stripped"})
      l.put(r + s, 0);
  }
  return l.take();
}

}  // namespace

std::span<const std::string_view> vendorNames() { return kNames; }

std::optional<Vendor> parseVendor(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i] || name == kDrivers[i]) return static_cast<Vendor>(i);
  }
  return std::nullopt;
}

std::string_view vendorName(Vendor v) { return kNames[static_cast<size_t>(v)]; }
std::string_view vendorDriver(Vendor v) { return kDrivers[static_cast<size_t>(v)]; }

double vendorCounterRefresh(Vendor v) { return v == Vendor::kBnxt ? 1.0 : 0.0; }

bool vendorReportsFecStats(Vendor v) { return v != Vendor::kIonic; }

std::string vendorEthtoolText(Vendor v, const StatTable& model) {
  switch (v) {
    case Vendor::kBnxt:
      return bnxtText(model);
    case Vendor::kIce:
      return iceText(model);
    case Vendor::kIonic:
      return ionicText(model);
    case Vendor::kMlx5:
      break;
  }
  return ethtoolText(model);
}

}  // namespace fabricmon::sim
