#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// NIC and driver health from the kernel log (nic_driver_log). Labels are the driver message
// table's names (collectors/nic_driver_messages.cpp), never message text, so cardinality is bounded
// by functions x patterns. docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks
// the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::nic {

extern const FamilyDef kDriverRecords;         // fabricmon_nic_driver_records_total
extern const FamilyDef kDriverLastRecord;      // fabricmon_nic_driver_last_record_timestamp_seconds
extern const FamilyDef kKernelLogLost;         // fabricmon_kernel_log_lost_records_total
extern const FamilyDef kKernelLogRefused;      // fabricmon_kernel_log_refused_records_total
extern const FamilyDef kKernelLogAccessFailures;  // fabricmon_kernel_log_access_failures_total

/// Every family above.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::nic
