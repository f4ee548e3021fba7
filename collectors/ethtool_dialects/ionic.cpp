// ionic (AMD Pensando DSC). Names from drivers/net/ethernet/pensando/ionic/ionic_stats.c
// (ionic_port_stats_desc: each name is the field of struct ionic_port_stats in ionic_if.h). Pause
// time is counted in 1 µs units per priority; there is no per-priority PFC frame count.
//
// Left out: frames_{rx,tx}_pri_<N> (the source does not say whether they count PFC frames or data
// frames of the priority) and frames_{rx,tx}_pripause (all priorities together). They stay
// reachable through ethtool.stats_include.

#include "collectors/ethtool_dialects/dialect.hpp"
#include "model/families/ethtool.hpp"

namespace fabricmon::ethtool {

namespace {

using namespace families::ethtool;

constexpr std::string_view kDrivers[] = {"ionic"};

const Row kExact[] = {
    {"frames_rx_pause", &kGlobalPauseRx, {}, {}, 1},
    {"frames_tx_pause", &kGlobalPauseTx, {}, {}, 1},
    {"rx_pause_1us_count", &kGlobalPauseSeconds, "direction", "rx", kMicro},
};

StatMapping map(std::string_view name) {
  if (const Row* r = findRow(kExact, name)) return fromRow(*r);
  static const Row kRx{{}, &kPfcPauseSeconds, "direction", "rx", kMicro};
  static const Row kTx{{}, &kPfcPauseSeconds, "direction", "tx", kMicro};
  if (auto p = priorityBetween(name, "rx_pripause_", "_1us_count"); !p.empty()) return fromRow(kRx, p);
  if (auto p = priorityBetween(name, "tx_pripause_", "_1us_count"); !p.empty()) return fromRow(kTx, p);
  return {};
}

}  // namespace

const Dialect& ionicDialect() {
  static const Dialect kDialect{"ionic", kDrivers, &map};
  return kDialect;
}

}  // namespace fabricmon::ethtool
