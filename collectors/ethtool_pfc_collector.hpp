#pragma once
// The PFC / pause / per-priority ethtool collector (collector name "ethtool_pfc").

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// PFC and 802.3x pause, storm events, per-priority traffic, discards and ECN marks, PHY and
/// buffer health, RDMA vport traffic and PCI stalls of every interface in the topology, read
/// from the ethtool stats source once per poll (docs/metrics.md, "ethtool group"). Any other stat
/// is exported as fabricmon_ethtool_stat_total only when one regex of ethtool.stats_include
/// matches its whole name. Stat names are read in the dialect of the interface's driver
/// (collectors/ethtool_dialects/).
std::unique_ptr<Collector> makeEthtoolPfcCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
