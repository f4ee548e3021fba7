#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// Network interface link state, from class/net/<interface>/ (netdev_link).
// docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::netdev {

extern const FamilyDef kUp;              // fabricmon_netdev_up
extern const FamilyDef kAdminUp;         // fabricmon_netdev_admin_up
extern const FamilyDef kCarrierChanges;  // fabricmon_netdev_carrier_changes_total
extern const FamilyDef kCarrierUp;       // fabricmon_netdev_carrier_up_changes_total
extern const FamilyDef kCarrierDown;     // fabricmon_netdev_carrier_down_changes_total

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::netdev
