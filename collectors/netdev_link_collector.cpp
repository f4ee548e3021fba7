#include "collectors/netdev_link_collector.hpp"

#include <array>

#include "collectors/registry.hpp"
#include "collectors/sysfs_slot_groups.hpp"

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

struct File {
  std::string_view name;
  const FamilyDef* family;
  SlotParse parse;
  bool optional;  ///< absent on some kernels: "unsupported", logged once, not an error
};

// carrier_up_count/carrier_down_count appeared in Linux 4.16 (net/core/net-sysfs.c, commit
// b2d3bcfa26a7 "net: core: Expose number of link up/down transitions").
constexpr std::array<File, 4> kFiles{{
    {"operstate", &kUp, SlotParse::kIsUp, false},
    {"carrier_changes", &kCarrierChanges, SlotParse::kCounter, false},
    {"carrier_up_count", &kCarrierUp, SlotParse::kCounter, true},
    {"carrier_down_count", &kCarrierDown, SlotParse::kCounter, true},
}};

class NetdevLinkCollector final : public Collector {
 public:
  explicit NetdevLinkCollector(std::shared_ptr<const SysfsRoot> sysfs)
      : cache_(std::move(sysfs), &listNetdevs,
               [this](const Topology& t, SlotGroup& g) { build(t, g); }) {}

  std::string_view name() const override { return "netdev_link"; }
  std::span<const FamilyDef* const> families() const override { return kFamilies; }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    return cache_.collect(topology, out) == 0 ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  static void listNetdevs(const Topology& topology, std::vector<SlotGroup>& groups) {
    for (const auto& n : topology.netdevs) {
      SlotGroup g;
      g.name = n.name;
      g.dirRel = "class/net/" + n.name;
      groups.push_back(std::move(g));
    }
  }

  void build(const Topology& /*topology*/, SlotGroup& group) {
    for (const auto& f : kFiles) {
      CounterSlot slot(cache_.sysfs().path(group.dirRel + "/" + std::string(f.name)));
      slot.key = slotKey(group.name, f.name);
      slot.series = makeSeries(*f.family, {{"interface", group.name}});
      slot.parse = f.parse;
      slot.optional = f.optional;
      group.slots.push_back(std::move(slot));
    }
  }

  SlotGroupCache cache_;
};

}  // namespace

std::unique_ptr<Collector> makeNetdevLinkCollector(const Sources& sources, const Config& /*config*/) {
  return std::make_unique<NetdevLinkCollector>(sources.sysfs);
}

}  // namespace fabricmon
