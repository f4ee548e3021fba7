#pragma once
// The lldp_neighbors collector: the switch port at the other end of each watched Ethernet
// interface, as lldpd heard it (fabricmon_port_neighbor_info, source="lldp"; docs/metrics.md).

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

std::unique_ptr<Collector> makeLldpNeighborCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
