#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// the PCIe Advanced Error Reporting counters of each RDMA device's PCI function and of the ports
// above it (pcie_aer). docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the
// two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::pcie {

extern const FamilyDef kAerErrors;  // fabricmon_pcie_aer_errors_total

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::pcie
