// bnxt_en (Broadcom NetXtreme-E: Thor BCM575xx, Thor2 BCM576xx). Names from
// drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c: bnxt_port_stats_arr (port statistics),
// bnxt_port_stats_ext_arr / bnxt_tx_port_stats_ext_arr (the extended port statistics, present when
// the firmware reports them) and bnxt_{rx,tx}_{bytes,pkts}_pri_arr (per priority, present once the
// priority-to-CoS map is known). The firmware DMAs these once per stats_coal_ticks (1 s default),
// so they move in steps.
//
// Left out on purpose: pfc_pri<N>_tx_transitions (fabricmon_pfc_pause_transitions_total counts
// received pause only), rx_discard_{packets,bytes}_cos<N> (per CoS queue, not per priority; the
// queue of a priority is firmware configuration), rx_pfc_frames / tx_pfc_frames (all priorities
// together). They stay reachable through ethtool.stats_include. So do rx_fec_corrected_blocks and
// rx_fec_uncorrectable_blocks: bnxt_get_fec_stats() reports the same two firmware counters over
// ethtool netlink, where the fec collector reads every driver's blocks (one series, one source).

#include "collectors/ethtool_dialects/dialect.hpp"
#include "model/families/ethtool.hpp"

namespace fabricmon::ethtool {

namespace {

using namespace families::ethtool;

constexpr std::string_view kDrivers[] = {"bnxt_en"};

const Row kExact[] = {
    // IEEE 802.3x pause frames (bnxt_port_stats_arr).
    {"rx_pause_frames", &kGlobalPauseRx, {}, {}, 1},
    {"tx_pause_frames", &kGlobalPauseTx, {}, {}, 1},
    // PHY error statistics of the extended port stats (bnxt_port_stats_ext_arr:
    // BNXT_RX_STATS_EXT_ENTRY(rx_bits), (rx_pcs_symbol_err), (rx_corrected_bits)): the same
    // quantities as mlx5's rx_bits_phy, rx_pcs_symbol_err_phy and rx_corrected_bits_phy.
    {"rx_bits", &kPhyReceivedBytes, {}, {}, 1.0 / 8},
    {"rx_pcs_symbol_err", &kPhyPcsSymbol, {}, {}, 1},
    {"rx_corrected_bits", &kPhyCorrectedBits, {}, {}, 1},
};

struct PrioRow {
  std::string_view prefix, suffix;  // name = prefix + <N> + suffix
  Row row;
};

const PrioRow kPrio[] = {
    // PFC frames per priority (bnxt_port_stats_arr).
    {"rx_pfc_ena_frames_pri", "", {{}, &kPfcPauseRx, {}, {}, 1}},
    {"tx_pfc_ena_frames_pri", "", {{}, &kPfcPauseTx, {}, {}, 1}},
    // Time paused between XOFF and XON, microseconds (BNXT_{RX,TX}_STATS_EXT_PFC_ENTRY).
    {"pfc_pri", "_rx_duration_us", {{}, &kPfcPauseSeconds, "direction", "rx", kMicro}},
    {"pfc_pri", "_tx_duration_us", {{}, &kPfcPauseSeconds, "direction", "tx", kMicro}},
    {"pfc_pri", "_rx_transitions", {{}, &kPfcPauseTransitions, {}, {}, 1}},
    // Traffic per priority (BNXT_{RX,TX}_STATS_PRI_ENTRIES: the CoS queue of the priority).
    {"rx_bytes_pri", "", {{}, &kPrioRxBytes, {}, {}, 1}},
    {"rx_packets_pri", "", {{}, &kPrioRxPackets, {}, {}, 1}},
    {"tx_bytes_pri", "", {{}, &kPrioTxBytes, {}, {}, 1}},
    {"tx_packets_pri", "", {{}, &kPrioTxPackets, {}, {}, 1}},
};

StatMapping map(std::string_view name) {
  if (const Row* r = findRow(kExact, name)) return fromRow(*r);
  for (const PrioRow& p : kPrio) {
    if (auto prio = priorityBetween(name, p.prefix, p.suffix); !prio.empty())
      return fromRow(p.row, prio);
  }
  return {};
}

}  // namespace

const Dialect& bnxtDialect() {
  static const Dialect kDialect{"bnxt_en", kDrivers, &map};
  return kDialect;
}

}  // namespace fabricmon::ethtool
