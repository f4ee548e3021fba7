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
    "(pattern), since the daemon started reading the log; severity is the row's class (fatal, "
    "recoverable, info).",
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

const std::array<const FamilyDef*, 8> kAll{&kDriverRecords,       &kDriverLastRecord,       &kKernelLogLost,
                                           &kKernelLogRefused,    &kKernelLogAccessFailures, &kTemperature,
                                           &kTemperatureHighest,  &kTemperatureThreshold};

std::span<const FamilyDef* const> all() { return kAll; }
std::span<const FamilyDef* const> driverLog() { return std::span(kAll).first(5); }
std::span<const FamilyDef* const> temperature() { return std::span(kAll).subspan(5); }

}  // namespace fabricmon::families::nic
