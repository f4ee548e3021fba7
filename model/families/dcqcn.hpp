#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// DCQCN configuration, from ecn/roce_np, ecn/roce_rp or debugfs cc_params (dcqcn_config).
// docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::dcqcn {

extern const FamilyDef kNpEnabled;  // fabricmon_dcqcn_np_enabled
extern const FamilyDef kRpEnabled;  // fabricmon_dcqcn_rp_enabled
extern const FamilyDef kParameter;  // fabricmon_dcqcn_parameter

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::dcqcn
