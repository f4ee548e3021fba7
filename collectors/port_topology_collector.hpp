#pragma once
// The port_topology collector: where each RDMA port sits on the host and what it is for
// (docs/metrics.md, "Where a port sits on the host").

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// fabricmon_port_topology_info per RDMA port (PCI function, NUMA node, VF/PF, the GPUs beside it,
/// role, rail) and the PCIe link width and speed of each device's function, current and maximum.
std::unique_ptr<Collector> makePortTopologyCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
