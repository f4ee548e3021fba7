#pragma once
// dcqcn_config: the DCQCN (RoCE congestion control) configuration of every watched netdev, from the
// NVIDIA OFED sysfs tree class/net/<if>/ecn/roce_{np,rp}/ and from the upstream mlx5 driver's
// debugfs kernel/debug/mlx5/<pci>/cc_params/ (drivers/infiniband/hw/mlx5/cong.c). Slow cadence:
// config values.

#include <memory>

#include "collectors/collector.hpp"
#include "collectors/registry.hpp"
#include "config/config.hpp"

namespace fabricmon {

/// Emits fabricmon_dcqcn_np_enabled / fabricmon_dcqcn_rp_enabled{interface,priority} and
/// fabricmon_dcqcn_parameter{interface,role,parameter}. A netdev without either tree has no series
/// (not an error); an unreadable or non-numeric file is one skipped value
/// (CollectOutput::fileError). The files stay open and are re-read (pread) every run; a tree is
/// listed again only when the topology generation changes or the tree changed on disk (re-created,
/// or an entry added, removed or renamed in it).
std::unique_ptr<Collector> makeDcqcnConfigCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
