#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// RDMA devices and ports, from class/infiniband/<device>/ (rdma_port).
// docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::port {

extern const FamilyDef kDeviceInfo;         // fabricmon_device_info
extern const FamilyDef kPortInfo;           // fabricmon_port_info
extern const FamilyDef kPortState;          // fabricmon_port_state
extern const FamilyDef kPortPhysicalState;  // fabricmon_port_physical_state
extern const FamilyDef kPortRate;           // fabricmon_port_rate_bytes_per_second

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::port
