#include "model/families/dcqcn.hpp"

#include <array>

namespace fabricmon::families::dcqcn {

using enum MetricType;

const FamilyDef kNpEnabled{"fabricmon_dcqcn_np_enabled",
                           "1 when DCQCN notification-point (ECN-marked packet -> CNP) handling is "
                           "enabled for the priority, from "
                           "class/net/<if>/ecn/roce_np/enable/<priority> (NVIDIA OFED).",
                           kGauge, "0/1", "interface,priority"};
const FamilyDef kRpEnabled{
    "fabricmon_dcqcn_rp_enabled",
    "1 when DCQCN reaction-point (rate reduction on CNP) is enabled for the priority, from "
    "class/net/<if>/ecn/roce_rp/enable/<priority> (NVIDIA OFED).",
    kGauge, "0/1", "interface,priority"};
const FamilyDef kParameter{"fabricmon_dcqcn_parameter",
                           "A DCQCN parameter of the interface: every other file of ecn/roce_np "
                           "and ecn/roce_rp (OFED), or of the "
                           "upstream mlx5 debugfs cc_params directory (parameter = file name).",
                           kGauge, "as the driver defines it", "interface,role,parameter"};

const std::array<const FamilyDef*, 3> kAll{&kNpEnabled, &kRpEnabled, &kParameter};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::dcqcn
