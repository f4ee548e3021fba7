#include "model/families/topology.hpp"

#include <array>

namespace fabricmon::families::topology {

using enum MetricType;

const FamilyDef kPortTopologyInfo{
    "fabricmon_port_topology_info",
    "Where an RDMA port sits on the host; always 1. pci_address and numa_node of its PCI function, "
    "function pf or vf (pf: the physical function of a VF), gpus: the GPUs behind the same PCIe "
    "switch or root port (comma-separated PCI addresses), role compute|storage|management|unknown, "
    "rail (empty outside compute). Join with any per-port family on device, port.",
    kGauge, "1", "device,port,interface,pci_address,numa_node,function,pf,gpus,role,rail"};
const FamilyDef kPcieLinkWidth{
    "fabricmon_device_pcie_link_width_lanes",
    "PCIe link width of the RDMA device's PCI function: which=current (as trained), which=max (the "
    "lower of what the function and its upstream port support), from current_link_width / "
    "max_link_width.",
    kGauge, "lanes", "device,which"};
const FamilyDef kPcieLinkSpeed{
    "fabricmon_device_pcie_link_speed_transfers_per_second",
    "PCIe link speed of the RDMA device's PCI function, in transfers per second (32 GT/s = 3.2e10): "
    "which=current, which=max (the lower of the function's and its upstream port's), from "
    "current_link_speed / max_link_speed.",
    kGauge, "transfers/s", "device,which"};

const std::array<const FamilyDef*, 3> kAll{&kPortTopologyInfo, &kPcieLinkWidth, &kPcieLinkSpeed};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::topology
