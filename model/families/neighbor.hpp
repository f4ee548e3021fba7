#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// the switch port at the other end of a port's cable, whoever found it — LLDP on Ethernet, SMP
// NodeInfo/NodeDescription over MADs on InfiniBand — under the same label names, so one query
// serves both link layers (docs/contract.md §4). docs/metrics.md documents each;
// tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::neighbor {

extern const FamilyDef kPortNeighborInfo;  // fabricmon_port_neighbor_info

/// Every family above.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::neighbor
