#include "model/families/port.hpp"

#include <array>

namespace fabricmon::families::port {

using enum MetricType;

const FamilyDef kDeviceInfo{
    "fabricmon_device_info",
    "RDMA device identity from class/infiniband/<device>/{fw_ver,hca_type,board_id,node_guid}; "
    "always 1. "
    "Labels are empty where the driver has no such file (irdma has no hca_type or board_id).",
    kGauge, "1", "device,fw_version,hca_type,board_id,node_guid"};
const FamilyDef kPortInfo{
    "fabricmon_port_info",
    "RDMA port description; always 1. interface is the first network interface behind the port "
    "(gid_attrs/ndevs or device/net), link_layer and rate are the sysfs text.",
    kGauge, "1", "device,port,interface,link_layer,rate"};
const FamilyDef kPortState{"fabricmon_port_state",
                           "Logical port state from ports/<port>/state (1 DOWN, 2 INIT, 3 ARMED, 4 "
                           "ACTIVE, 5 ACTIVE_DEFER).",
                           kGauge, "enum", "device,port"};
const FamilyDef kPortPhysicalState{
    "fabricmon_port_physical_state",
    "Physical port state from ports/<port>/phys_state (2 Polling, 3 Disabled, 5 LinkUp, "
    "6 LinkErrorRecovery, ...).",
    kGauge, "enum", "device,port"};
const FamilyDef kPortRate{
    "fabricmon_port_rate_bytes_per_second",
    "Signalling rate of the port from ports/<port>/rate, in bytes per second.", kGauge, "bytes/s",
    "device,port"};

const std::array<const FamilyDef*, 5> kAll{&kDeviceInfo, &kPortInfo, &kPortState,
                                           &kPortPhysicalState, &kPortRate};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::port
