#include "collectors/rdma_port_collector.hpp"

#include <array>

#include "collectors/registry.hpp"
#include "collectors/sysfs_slot_groups.hpp"

namespace fabricmon {

namespace {

constexpr FamilyDef kDeviceInfo{
    "fabricmon_device_info",
    "RDMA device identity from class/infiniband/<device>/{fw_ver,hca_type,board_id,node_guid}; always 1. "
    "Labels are empty where the driver has no such file (irdma has no hca_type or board_id).",
    MetricType::kGauge};
constexpr FamilyDef kPortInfo{
    "fabricmon_port_info",
    "RDMA port description; always 1. interface is the first network interface behind the port "
    "(gid_attrs/ndevs or device/net), link_layer and rate are the sysfs text.",
    MetricType::kGauge};
constexpr FamilyDef kPortState{
    "fabricmon_port_state",
    "Logical port state from ports/<port>/state (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER).",
    MetricType::kGauge};
constexpr FamilyDef kPortPhysicalState{
    "fabricmon_port_physical_state",
    "Physical port state from ports/<port>/phys_state (2 Polling, 3 Disabled, 5 LinkUp, "
    "6 LinkErrorRecovery, ...).",
    MetricType::kGauge};
constexpr FamilyDef kPortRate{
    "fabricmon_port_rate_bytes_per_second",
    "Signalling rate of the port from ports/<port>/rate, in bytes per second.",
    MetricType::kGauge};

constexpr std::array<const FamilyDef*, 5> kFamilies{&kDeviceInfo, &kPortInfo, &kPortState,
                                                     &kPortPhysicalState, &kPortRate};

class RdmaPortCollector final : public Collector {
 public:
  explicit RdmaPortCollector(std::shared_ptr<const SysfsRoot> sysfs)
      : cache_(std::move(sysfs), &listRdmaDevices,
               [this](const Topology& t, SlotGroup& g) { build(t, g); }) {}

  std::string_view name() const override { return "rdma_port"; }
  std::span<const FamilyDef* const> families() const override { return kFamilies; }

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
        slot.key = slotKey(dev, p + "/" + file);
        slot.series = makeSeries(family, {{"device", dev}, {"port", p}});
        slot.parse = parse;
        group.slots.push_back(std::move(slot));
      };
      addSlot("state", kPortState, SlotParse::kPortState);
      addSlot("phys_state", kPortPhysicalState, SlotParse::kPhysState);
      addSlot("rate", kPortRate, SlotParse::kRate);

      InfoSlot info(sysfs.path(portDir + "rate"));
      info.key = slotKey(dev, p + "/rate (port_info)");
      info.family = &kPortInfo;
      info.labels = {{"device", dev},
                     {"port", p},
                     {"interface", port.netdevs.empty() ? std::string() : port.netdevs.front()},
                     {"link_layer", port.linkLayer},
                     {"rate", ""}};
      info.textLabel = 4;
      info.validate = SlotParse::kRate;
      info.countErrors = false;  // the rate slot above reads the same file and counts its errors
      group.infos.push_back(std::move(info));
    }
  }

  SlotGroupCache cache_;
};

}  // namespace

const FamilyDef& portInfoFamily() { return kPortInfo; }
const FamilyDef& portStateFamily() { return kPortState; }
const FamilyDef& portPhysicalStateFamily() { return kPortPhysicalState; }
const FamilyDef& portRateFamily() { return kPortRate; }

std::unique_ptr<Collector> makeRdmaPortCollector(const Sources& sources, const Config& /*config*/) {
  return std::make_unique<RdmaPortCollector>(sources.sysfs);
}

}  // namespace fabricmon
