#include "collectors/netdev_link_collector.hpp"

#include <array>

#include "collectors/registry.hpp"
#include "collectors/sysfs_table_collector.hpp"

namespace fabricmon {

namespace {

constexpr FamilyDef kUp{"fabricmon_netdev_up",
                        "1 when class/net/<interface>/operstate is \"up\", else 0 (down, lowerlayerdown, "
                        "dormant, unknown, ...).",
                        MetricType::kGauge};
constexpr FamilyDef kCarrierChanges{"fabricmon_netdev_carrier_changes_total",
                                    "Times the interface's carrier changed, up or down, from "
                                    "class/net/<interface>/carrier_changes.",
                                    MetricType::kCounter};
constexpr FamilyDef kCarrierUp{"fabricmon_netdev_carrier_up_changes_total",
                               "Times the interface's carrier came up, from class/net/<interface>/carrier_up_count.",
                               MetricType::kCounter};
constexpr FamilyDef kCarrierDown{"fabricmon_netdev_carrier_down_changes_total",
                                 "Times the interface's carrier went down, from "
                                 "class/net/<interface>/carrier_down_count.",
                                 MetricType::kCounter};

constexpr std::array<const FamilyDef*, 4> kFamilies{&kUp, &kCarrierChanges, &kCarrierUp, &kCarrierDown};

// carrier_up_count/carrier_down_count appeared in Linux 4.16 (net/core/net-sysfs.c, commit
// b2d3bcfa26a7 "net: core: Expose number of link up/down transitions").
constexpr SysfsFileRow kRows[] = {
    {"operstate", &kUp, SlotParse::kIsUp},
    {"carrier_changes", &kCarrierChanges},
    {"carrier_up_count", &kCarrierUp, SlotParse::kCounter, 1.0, true},
    {"carrier_down_count", &kCarrierDown, SlotParse::kCounter, 1.0, true},
};

constexpr SysfsTable kTable{SysfsScope::kNetdev, kRows, kFamilies};

}  // namespace

std::unique_ptr<Collector> makeNetdevLinkCollector(const Sources& sources, const Config& /*config*/) {
  return makeSysfsTableCollector("netdev_link", kTable, sources.sysfs);
}

}  // namespace fabricmon
