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

const std::array<const FamilyDef*, 5> kAll{&kDriverRecords, &kDriverLastRecord, &kKernelLogLost,
                                           &kKernelLogRefused, &kKernelLogAccessFailures};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::nic
