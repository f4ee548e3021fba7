// mlx5 (NVIDIA ConnectX-4..8, BlueField): names from drivers/net/ethernet/mellanox/mlx5/core/en_stats.c
// and Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst.

#include "collectors/ethtool_dialects/dialect.hpp"
#include "model/families/ethtool.hpp"

namespace fabricmon::ethtool {

namespace {

using namespace families::ethtool;

constexpr double kBitsToBytes = 1.0 / 8;  // exported in base units
constexpr double kPercent = 0.01;         // outbound_pci_stalled_* are percent of the last second

constexpr std::string_view kDrivers[] = {"mlx5_core"};

const Row kExact[] = {
    {"rx_global_pause", &kGlobalPauseRx, {}, {}, 1},
    {"tx_global_pause", &kGlobalPauseTx, {}, {}, 1},
    {"rx_global_pause_duration", &kGlobalPauseSeconds, "direction", "rx", kMicro},
    {"tx_global_pause_duration", &kGlobalPauseSeconds, "direction", "tx", kMicro},
    {"rx_global_pause_transition", &kGlobalPauseTransitions, {}, {}, 1},
    {"tx_pause_storm_warning_events", &kStormWarning, {}, {}, 1},
    {"tx_pause_storm_error_events", &kStormError, {}, {}, 1},
    {"link_down_events_phy", &kPhyLinkDown, {}, {}, 1},
    {"rx_symbol_err_phy", &kPhySymbol, {}, {}, 1},
    {"rx_crc_errors_phy", &kPhyCrc, {}, {}, 1},
    {"rx_pcs_symbol_err_phy", &kPhyPcsSymbol, {}, {}, 1},
    {"rx_corrected_bits_phy", &kPhyCorrectedBits, {}, {}, 1},
    {"rx_bits_phy", &kPhyReceivedBytes, {}, {}, kBitsToBytes},
    {"rx_discards_phy", &kPhyRxDiscards, {}, {}, 1},
    {"tx_discards_phy", &kPhyTxDiscards, {}, {}, 1},
    {"rx_out_of_buffer", &kRxOutOfBuffer, {}, {}, 1},
    {"rx_buffer_passed_thres_phy", &kRxBufferPassedThreshold, {}, {}, 1},
    {"rx_vport_rdma_unicast_bytes", &kRdmaVportBytes, "direction", "rx", 1},
    {"tx_vport_rdma_unicast_bytes", &kRdmaVportBytes, "direction", "tx", 1},
    {"rx_vport_rdma_unicast_packets", &kRdmaVportPackets, "direction", "rx", 1},
    {"tx_vport_rdma_unicast_packets", &kRdmaVportPackets, "direction", "tx", 1},
    {"outbound_pci_stalled_rd", &kPciStalled, "direction", "rd", kPercent},
    {"outbound_pci_stalled_wr", &kPciStalled, "direction", "wr", kPercent},
};

// The suffix after rx_prio<N>_ / tx_prio<N>_.
const Row kRxPrio[] = {
    {"pause", &kPfcPauseRx, {}, {}, 1},
    {"pause_duration", &kPfcPauseSeconds, "direction", "rx", kMicro},
    {"pause_transition", &kPfcPauseTransitions, {}, {}, 1},
    {"bytes", &kPrioRxBytes, {}, {}, 1},
    {"packets", &kPrioRxPackets, {}, {}, 1},
    {"discards", &kPrioDiscards, "kind", "discards", 1},
    {"buf_discard", &kPrioDiscards, "kind", "buffer", 1},
    {"cong_discard", &kPrioDiscards, "kind", "congestion", 1},
    {"marked", &kPrioEcnMarked, {}, {}, 1},
};

const Row kTxPrio[] = {
    {"pause", &kPfcPauseTx, {}, {}, 1},
    {"pause_duration", &kPfcPauseSeconds, "direction", "tx", kMicro},
    {"bytes", &kPrioTxBytes, {}, {}, 1},
    {"packets", &kPrioTxPackets, {}, {}, 1},
};

// rx_err_lane_<N>_phy: bit errors corrected on lane N (en_stats.c,
// pport_phy_statistical_err_lanes_stats_desc: phy_corrected_bits_lane<N>), lanes 0-7.
StatMapping laneErrors(std::string_view name) {
  constexpr std::string_view kPrefix = "rx_err_lane_", kSuffix = "_phy";
  if (name.size() != kPrefix.size() + 1 + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return {};
  }
  const char lane = name[kPrefix.size()];
  if (lane < '0' || lane > '7') return {};
  return StatMapping{&kPhyLaneCorrectedBits, {{"lane", std::string(1, lane)}}, 1};
}

StatMapping map(std::string_view name) {
  if (const Row* r = findRow(kExact, name)) return fromRow(*r);
  if (name.starts_with("rx_err_lane_")) return laneErrors(name);
  // rx_prio<N>_<suffix> / tx_prio<N>_<suffix>, N a single digit 0-7.
  constexpr std::string_view kRx = "rx_prio", kTx = "tx_prio";
  const bool rx = name.starts_with(kRx);
  if (!rx && !name.starts_with(kTx)) return {};
  const std::string_view rest = name.substr(kRx.size());
  if (rest.size() < 3 || rest[0] < '0' || rest[0] > '7' || rest[1] != '_') return {};
  const Row* r = findRow(rx ? std::span<const Row>(kRxPrio) : std::span<const Row>(kTxPrio),
                         rest.substr(2));
  if (r == nullptr) return {};
  return fromRow(*r, rest.substr(0, 1));
}

}  // namespace

const Dialect& mlx5Dialect() {
  static const Dialect kDialect{"mlx5", kDrivers, &map};
  return kDialect;
}

}  // namespace fabricmon::ethtool
