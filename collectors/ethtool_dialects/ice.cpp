// ice (Intel E810). Names from drivers/net/ethernet/intel/ice/ice_ethtool.c: ice_gstrings_pf_stats
// (link_xon/xoff) and the per-priority loop of ice_get_strings ("tx_priority_%u_xoff.nic", ...).
// These PF statistics appear only on the PF netdev. The driver has no pause duration, no pause
// transitions and no per-priority traffic or discard counters: a storm on ice is seen by frame
// counts alone.
//
// XOFF frames are the pause requests; XON frames (resume, quanta 0) are left out of the pause
// families and stay reachable through ethtool.stats_include.

#include "collectors/ethtool_dialects/dialect.hpp"
#include "model/families/ethtool.hpp"

namespace fabricmon::ethtool {

namespace {

using namespace families::ethtool;

constexpr std::string_view kDrivers[] = {"ice"};

const Row kExact[] = {
    {"link_xoff_rx.nic", &kGlobalPauseRx, {}, {}, 1},
    {"link_xoff_tx.nic", &kGlobalPauseTx, {}, {}, 1},
    // ICE_PF_STAT("tx_bytes.nic", stats.eth.tx_bytes): the port's good transmitted octets.
    {"tx_bytes.nic", &kPhyTransmittedBytes, {}, {}, 1},
};

StatMapping map(std::string_view name) {
  if (const Row* r = findRow(kExact, name)) return fromRow(*r);
  static const Row kRx{{}, &kPfcPauseRx, {}, {}, 1};
  static const Row kTx{{}, &kPfcPauseTx, {}, {}, 1};
  if (auto p = priorityBetween(name, "rx_priority_", "_xoff.nic"); !p.empty()) return fromRow(kRx, p);
  if (auto p = priorityBetween(name, "tx_priority_", "_xoff.nic"); !p.empty()) return fromRow(kTx, p);
  return {};
}

}  // namespace

const Dialect& iceDialect() {
  static const Dialect kDialect{"ice", kDrivers, &map};
  return kDialect;
}

}  // namespace fabricmon::ethtool
