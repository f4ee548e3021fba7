#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// where each RDMA port sits on the host — PCI function, NUMA node, the GPUs beside it, its role and
// rail — and the PCIe link of its function (port_topology). docs/metrics.md documents each;
// tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::topology {

extern const FamilyDef kPortTopologyInfo;  // fabricmon_port_topology_info
extern const FamilyDef kPcieLinkWidth;     // fabricmon_device_pcie_link_width_lanes
extern const FamilyDef kPcieLinkSpeed;     // fabricmon_device_pcie_link_speed_transfers_per_second

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::topology
