#include "model/families/neighbor.hpp"

#include <array>

namespace fabricmon::families::neighbor {

using enum MetricType;

const FamilyDef kPortNeighborInfo{
    "fabricmon_port_neighbor_info",
    "The switch port at the other end of the cable; always 1. source=\"lldp\" on Ethernet (the "
    "neighbour's LLDP chassis and port TLVs); source=\"mad\" on InfiniBand (chassis_name = "
    "NodeDescription, chassis_id = node GUID, port_id = the port number facing us).",
    kGauge, "1", "device,port,interface,chassis_name,chassis_id,port_id,port_description,source"};

const std::array<const FamilyDef*, 1> kAll{&kPortNeighborInfo};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::neighbor
