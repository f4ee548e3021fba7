#pragma once
// The PFC / pause / per-priority ethtool collector (collector name "ethtool_pfc").

#include <memory>
#include <string_view>

#include "collectors/collector.hpp"
#include "model/sample.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// PFC and 802.3x pause, storm events, per-priority traffic, discards and ECN marks, PHY and
/// buffer health, RDMA vport traffic and PCI stalls of every interface in the topology, read
/// from the ethtool stats source once per poll (docs/metrics.md, "ethtool group"). Any other stat
/// is exported as fabricmon_ethtool_stat_total only when one regex of ethtool.stats_include
/// matches its whole name.
std::unique_ptr<Collector> makeEthtoolPfcCollector(const Sources& sources, const Config& config);

/// Where one ethtool stat name lands: a family with its labels besides `interface`, and the
/// factor that converts the raw value to base units (µs -> s, percent -> ratio).
/// `family == nullptr` for names with no dedicated metric.
struct EthtoolStatMapping {
  const FamilyDef* family = nullptr;
  Labels labels;
  double scale = 1.0;
};

/// The name table of the ethtool group (mlx5 en_stats.c names; reference/COUNTERS.md).
EthtoolStatMapping mapEthtoolStat(std::string_view name);

}  // namespace fabricmon
