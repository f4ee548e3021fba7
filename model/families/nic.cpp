#include "model/families/nic.hpp"

#include <array>

namespace fabricmon::families::nic {

using enum MetricType;

namespace {
constexpr std::string_view kRecordLabels = "device,port,interface,pci_address,driver,pattern,severity";
}

const FamilyDef kDriverRecords{
    "fabricmon_nic_driver_records_total",
    "Kernel log records about a watched NIC function that matched a row of the driver message table "
    "(pattern), since the daemon started reading the log, with the kernel's records of the hour "
    "before; severity is the row's class (fatal, recoverable, info).",
    kCounter, "records", kRecordLabels};

const FamilyDef kDriverLastRecord{
    "fabricmon_nic_driver_last_record_timestamp_seconds",
    "Unix time of the latest kernel log record of this pattern about this function (the record's "
    "kernel timestamp, converted to wall-clock time).",
    kGauge, "seconds", kRecordLabels};

const FamilyDef kKernelLogLost{
    "fabricmon_kernel_log_lost_records_total",
    "Kernel log records the ring buffer overwrote before fabricmon read them (gaps in the record "
    "sequence numbers after an EPIPE from /dev/kmsg).",
    kCounter, "records", ""};

const FamilyDef kKernelLogRefused{
    "fabricmon_kernel_log_refused_records_total",
    "Records that matched a driver message but were written from user space (facility other than "
    "kernel), refused unless sources.kmsg_accept_user_records is on.",
    kCounter, "records", ""};

const FamilyDef kKernelLogAccessFailures{
    "fabricmon_kernel_log_access_failures_total",
    "Times opening the kernel log was refused (EACCES/EPERM: no CAP_SYSLOG under "
    "kernel.dmesg_restrict); counted once per refusal that follows a success or the start.",
    kCounter, "failures", ""};

namespace {
constexpr std::string_view kSensorLabels = "device,pci_address,chip,sensor,label";
}

const FamilyDef kTemperature{
    "fabricmon_nic_temperature_celsius",
    "Temperature of one of the NIC's own sensors (the ASIC, a module, a board sensor), from the "
    "hwmon device its driver registers under the PCI function (temp<N>_input). chip: the hwmon "
    "name (mlx5, bnxt_en, ice); sensor: temp<N>; label: the driver's name for it, \"\" if none.",
    kGauge, "celsius", kSensorLabels};

const FamilyDef kTemperatureHighest{
    "fabricmon_nic_temperature_highest_celsius",
    "The highest temperature the sensor has seen since the driver enabled or reset its history "
    "(temp<N>_highest, mlx5): a peak between two polls.",
    kGauge, "celsius", kSensorLabels};

const FamilyDef kTemperatureThreshold{
    "fabricmon_nic_temperature_threshold_celsius",
    "The NIC's own limits for the sensor (level max, crit, emergency, shutdown: temp<N>_max, "
    "_crit, _emergency, bnxt_en's temp1_shutdown); absent when the driver shows none.",
    kGauge, "celsius", "device,pci_address,chip,sensor,label,level"};

namespace {
// devlink_port: the devlink port index of a port's reporter ("" for the device's own): not `port`,
// which is the RDMA port number everywhere else (mlx5's uplink is devlink port 65535).
constexpr std::string_view kReporterLabels = "device,pci_address,devlink_port,reporter";
}

const FamilyDef kHealthReporterErrors{
    "fabricmon_nic_health_reporter_errors_total",
    "Errors the NIC driver reported to this devlink health reporter (DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT): "
    "firmware faults (fw, fw_fatal), TX timeouts and RX completion errors (tx, rx), malicious driver "
    "detection (mdd), ... since the driver created the reporter.",
    kCounter, "errors", kReporterLabels};

const FamilyDef kHealthReporterRecoveries{
    "fabricmon_nic_health_reporter_recoveries_total",
    "Recoveries this devlink health reporter ran (DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT), automatic or "
    "asked for with `devlink health recover`, since the driver created the reporter.",
    kCounter, "recoveries", kReporterLabels};

const FamilyDef kHealthReporterHealthy{
    "fabricmon_nic_health_reporter_healthy",
    "1 while the devlink health reporter is in the healthy state, 0 while it is in the error state (an error "
    "not recovered yet: auto-recovery off, within the grace period, or a recovery that failed).",
    kGauge, "0/1", kReporterLabels};

const FamilyDef kHealthReporterAutoRecover{
    "fabricmon_nic_health_reporter_auto_recover",
    "1 when the devlink health reporter recovers by itself after an error, 0 when an operator must run "
    "`devlink health recover`; absent for reporters that cannot recover.",
    kGauge, "0/1", kReporterLabels};

const FamilyDef kReadWait{
    "fabricmon_nic_read_wait_seconds",
    "How long a collector's read of this NIC's kernel interface (a sysfs attribute, an ethtool or "
    "netlink call) has been waiting for an answer: a firmware that stopped answering commands. Appears "
    "once a read waited 1 s, 0 after it returned, gone an hour later.",
    kGauge, "seconds", "collector,device,port,interface,pci_address"};

const std::array<const FamilyDef*, 13> kAll{&kDriverRecords,        &kDriverLastRecord,          &kKernelLogLost,
                                            &kKernelLogRefused,     &kKernelLogAccessFailures,   &kTemperature,
                                            &kTemperatureHighest,   &kTemperatureThreshold,      &kHealthReporterErrors,
                                            &kHealthReporterRecoveries, &kHealthReporterHealthy, &kHealthReporterAutoRecover,
                                            &kReadWait};

std::span<const FamilyDef* const> all() { return kAll; }
std::span<const FamilyDef* const> driverLog() { return std::span(kAll).first(5); }
std::span<const FamilyDef* const> temperature() { return std::span(kAll).subspan(5, 3); }
std::span<const FamilyDef* const> healthReporters() { return std::span(kAll).subspan(8, 4); }
std::span<const FamilyDef* const> readWaits() { return std::span(kAll).subspan(12); }

}  // namespace fabricmon::families::nic
