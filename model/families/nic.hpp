#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// the health of the NIC itself: its driver's records in the kernel log (nic_driver_log; labels are
// the driver message table's names, collectors/nic_driver_messages.cpp, never message text, so
// cardinality is bounded by functions x patterns), its own temperature sensors (nic_temperature,
// from hwmon), its driver's devlink health reporters (devlink_health) and the reads of its
// kernel interface that wait for it (the pipeline, daemon/read_waits.hpp). docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::nic {

extern const FamilyDef kDriverRecords;         // fabricmon_nic_driver_records_total
extern const FamilyDef kDriverLastRecord;      // fabricmon_nic_driver_last_record_timestamp_seconds
extern const FamilyDef kKernelLogLost;         // fabricmon_kernel_log_lost_records_total
extern const FamilyDef kKernelLogRefused;      // fabricmon_kernel_log_refused_records_total
extern const FamilyDef kKernelLogAccessFailures;  // fabricmon_kernel_log_access_failures_total
extern const FamilyDef kTemperature;               // fabricmon_nic_temperature_celsius
extern const FamilyDef kTemperatureHighest;        // fabricmon_nic_temperature_highest_celsius
extern const FamilyDef kTemperatureThreshold;      // fabricmon_nic_temperature_threshold_celsius
extern const FamilyDef kHealthReporterErrors;      // fabricmon_nic_health_reporter_errors_total
extern const FamilyDef kHealthReporterRecoveries;  // fabricmon_nic_health_reporter_recoveries_total
extern const FamilyDef kHealthReporterHealthy;     // fabricmon_nic_health_reporter_healthy
extern const FamilyDef kHealthReporterAutoRecover; // fabricmon_nic_health_reporter_auto_recover
extern const FamilyDef kReadWait;                  // fabricmon_nic_read_wait_seconds

/// Every family above.
std::span<const FamilyDef* const> all();
/// Those of one collector each: nic_driver_log's (the kernel log), nic_temperature's (hwmon) and
/// devlink_health's (devlink health reporters).
std::span<const FamilyDef* const> driverLog();
std::span<const FamilyDef* const> temperature();
std::span<const FamilyDef* const> healthReporters();
/// The pipeline's reads that wait for a NIC (daemon/read_waits.hpp).
std::span<const FamilyDef* const> readWaits();

}  // namespace fabricmon::families::nic
