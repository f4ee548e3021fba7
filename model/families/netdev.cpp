#include "model/families/netdev.hpp"

#include <array>

namespace fabricmon::families::netdev {

using enum MetricType;

const FamilyDef kUp{
    "fabricmon_netdev_up",
    "1 when class/net/<interface>/operstate is \"up\", else 0 (down, lowerlayerdown, "
    "dormant, unknown, ...).",
    kGauge, "0/1", "interface"};
const FamilyDef kAdminUp{
    "fabricmon_netdev_admin_up",
    "1 when the interface is administratively up (IFF_UP in class/net/<interface>/flags: `ip link "
    "set up`), else 0. Up with operstate down is a lost link; down is a port taken down on purpose.",
    kGauge, "0/1", "interface"};
const FamilyDef kCarrierChanges{"fabricmon_netdev_carrier_changes_total",
                                "Times the interface's carrier changed, up or down, from "
                                "class/net/<interface>/carrier_changes.",
                                kCounter, "events", "interface"};
const FamilyDef kCarrierUp{
    "fabricmon_netdev_carrier_up_changes_total",
    "Times the interface's carrier came up, from class/net/<interface>/carrier_up_count.", kCounter,
    "events", "interface"};
const FamilyDef kCarrierDown{"fabricmon_netdev_carrier_down_changes_total",
                             "Times the interface's carrier went down, from "
                             "class/net/<interface>/carrier_down_count.",
                             kCounter, "events", "interface"};

const std::array<const FamilyDef*, 5> kAll{&kUp, &kAdminUp, &kCarrierChanges, &kCarrierUp, &kCarrierDown};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::netdev
