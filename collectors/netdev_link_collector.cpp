// The netdev link collector (collector name "netdev_link").

#include <array>

#include "collectors/registry.hpp"
#include "collectors/sysfs_table_collector.hpp"
#include "model/families/netdev.hpp"

namespace fabricmon {

namespace {

using namespace families::netdev;

// carrier_up_count/carrier_down_count appeared in Linux 4.16 (net/core/net-sysfs.c, commit
// b2d3bcfa26a7 "net: core: Expose number of link up/down transitions").
constexpr SysfsFileRow kRows[] = {
    {"operstate", &kUp, SlotParse::kIsUp},
    // Tells a lost link from a port taken down on purpose: RoCE drivers report both as physical
    // state Disabled (mlx5_query_port_roce, bnxt_re_query_port, irdma_query_port).
    {"flags", &kAdminUp, SlotParse::kAdminUp, 1.0, true},
    {"carrier_changes", &kCarrierChanges},
    {"carrier_up_count", &kCarrierUp, SlotParse::kCounter, 1.0, true},
    {"carrier_down_count", &kCarrierDown, SlotParse::kCounter, 1.0, true},
};

const SysfsTable kTable{SysfsScope::kNetdev, kRows, families::netdev::all()};

/// fabricmon_netdev_up, fabricmon_netdev_admin_up and the carrier change counters of every
/// interface in the topology.
std::unique_ptr<Collector> makeNetdevLinkCollector(const Sources& sources, const Config& /*config*/) {
  return makeSysfsTableCollector(kTable, sources.sysfs, sources.demand);
}

}  // namespace

// Carrier changes show a flapping link: fast.
extern const CollectorEntry kNetdevLinkCollector{
    "netdev_link", Cadence::kFast, {}, &makeNetdevLinkCollector, nullptr};

}  // namespace fabricmon
