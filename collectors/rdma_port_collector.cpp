// The RDMA port collector (collector name "rdma_port").

#include <array>

#include "collectors/registry.hpp"
#include "collectors/sysfs_slot_groups.hpp"
#include "model/families/port.hpp"

namespace fabricmon {

namespace {

using namespace families::port;

class RdmaPortCollector final : public Collector {
 public:
  explicit RdmaPortCollector(const Sources& sources)
      : cache_(sources.sysfs, &listRdmaDevices, [this](const Topology& t, SlotGroup& g) { build(t, g); },
               sources.demand) {}

  std::span<const FamilyDef* const> families() const override { return families::port::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    return cache_.collect(topology, out) == 0 ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  std::string readOrEmpty(const std::string& rel) const {
    auto text = cache_.sysfs().readText(rel);
    return text ? std::move(*text) : std::string();
  }

  void build(const Topology& topology, SlotGroup& group) {
    const RdmaDevice* device = topology.device(group.name);
    if (device == nullptr) return;
    const SysfsRoot& sysfs = cache_.sysfs();
    const std::string& dev = device->name;
    const std::string dir = group.dirRel + "/";
    group.constants.push_back(makeSeries(kDeviceInfo, {{"device", dev},
                                                       {"fw_version", readOrEmpty(dir + "fw_ver")},
                                                       {"hca_type", readOrEmpty(dir + "hca_type")},
                                                       {"board_id", readOrEmpty(dir + "board_id")},
                                                       {"node_guid", readOrEmpty(dir + "node_guid")}}));
    for (const auto& port : device->ports) {
      const std::string p = std::to_string(port.number);
      const std::string portDir = dir + "ports/" + p + "/";
      auto addSlot = [&](const char* file, const FamilyDef& family, SlotParse parse) {
        CounterSlot slot(sysfs.path(portDir + file));
        slot.series = makeSeries(family, {{"device", dev}, {"port", p}});
        slot.parse = parse;
        group.slots.push_back(std::move(slot));
      };
      addSlot("state", kPortState, SlotParse::kPortState);
      addSlot("phys_state", kPortPhysicalState, SlotParse::kPhysState);
      addSlot("rate", kPortRate, SlotParse::kRate);

      InfoSlot info(sysfs.path(portDir + "rate"));
      info.family = &kPortInfo;
      info.labels = {{"device", dev},
                     {"port", p},
                     {"interface", port.netdevs.empty() ? std::string() : port.netdevs.front()},
                     {"link_layer", port.linkLayer},
                     {"rate", ""}};
      info.textLabel = 4;
      info.validate = SlotParse::kRate;
      info.countErrors = false;  // the rate slot above reads the same file and counts its errors
      info.sameFileAs = group.slots.size() - 1;  // and its text is this info's: one read, one descriptor
      group.infos.push_back(std::move(info));
    }
  }

  SlotGroupCache cache_;
};

/// fabricmon_device_info, fabricmon_port_info, fabricmon_port_state, fabricmon_port_physical_state
/// and fabricmon_port_rate_bytes_per_second from the device and port files of class/infiniband.
std::unique_ptr<Collector> makeRdmaPortCollector(const Sources& sources, const Config& /*config*/) {
  return std::make_unique<RdmaPortCollector>(sources);
}

}  // namespace

// Port state, physical state and rate: a flap shows within one poll, so it runs fast.
extern const CollectorEntry kRdmaPortCollector{
    "rdma_port", Cadence::kFast, {}, &makeRdmaPortCollector, nullptr};

}  // namespace fabricmon
