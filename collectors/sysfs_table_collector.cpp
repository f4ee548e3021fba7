#include "collectors/sysfs_table_collector.hpp"

#include <string>
#include <utility>

namespace fabricmon {

namespace {

class SysfsTableCollector final : public Collector {
 public:
  SysfsTableCollector(const SysfsTable& table, std::shared_ptr<const SysfsRoot> sysfs,
                      std::shared_ptr<const PollDemand> demand)
      : table_(table),
        cache_(std::move(sysfs), table.scope == SysfsScope::kNetdev ? &listNetdevs : &listRdmaDevices,
               [this](const Topology& t, SlotGroup& g) { build(t, g); }, std::move(demand)) {}

  std::span<const FamilyDef* const> families() const override { return table_.families; }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    return cache_.collect(topology, out) == 0 ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  void build(const Topology& topology, SlotGroup& group) {
    if (table_.scope == SysfsScope::kNetdev) {
      addRows(group, group.dirRel + "/", {{"interface", group.name}});
      return;
    }
    const RdmaDevice* device = topology.device(group.name);
    if (device == nullptr) return;
    for (const auto& port : device->ports) {
      const std::string p = std::to_string(port.number);
      addRows(group, group.dirRel + "/ports/" + p + "/", {{"device", device->name}, {"port", p}});
    }
  }

  void addRows(SlotGroup& group, const std::string& dirRel, const Labels& labels) {
    for (const SysfsFileRow& row : table_.rows) {
      CounterSlot slot(cache_.sysfs().path(dirRel + std::string(row.file)));
      slot.series = makeSeries(*row.family, labels);
      slot.parse = row.parse;
      slot.scale = row.scale;
      slot.optional = row.optional;
      group.slots.push_back(std::move(slot));
    }
  }

  const SysfsTable& table_;
  SlotGroupCache cache_;
};

}  // namespace

std::unique_ptr<Collector> makeSysfsTableCollector(const SysfsTable& table, std::shared_ptr<const SysfsRoot> sysfs,
                                                   std::shared_ptr<const PollDemand> demand) {
  return std::make_unique<SysfsTableCollector>(table, std::move(sysfs), std::move(demand));
}

}  // namespace fabricmon
