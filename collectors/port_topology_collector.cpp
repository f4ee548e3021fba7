#include "collectors/port_topology_collector.hpp"

#include <fmt/format.h>

#include <map>

#include "collectors/host_topology.hpp"
#include "collectors/port_roles.hpp"
#include "collectors/registry.hpp"
#include "model/families/topology.hpp"

namespace fabricmon {
namespace {

using namespace families::topology;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

class PortTopologyCollector final : public Collector {
 public:
  PortTopologyCollector(std::shared_ptr<const SysfsRoot> sysfs, TopologyConfig config)
      : host_(std::move(sysfs)), config_(std::move(config)) {}

  std::string_view name() const override { return "port_topology"; }
  std::span<const FamilyDef* const> families() const override { return families::topology::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (topology.devices.empty()) return CollectStatus::kNoData;
    // The series change only with the topology (a device added, a link retrained): built again
    // whenever a value differs, otherwise the same objects are emitted.
    const auto placements = host_.read(topology);
    std::vector<PortToPlace> ports;
    for (const RdmaDevice& d : topology.devices) {
      const auto it = placements.find(d.name);
      for (const RdmaPort& p : d.ports) {
        ports.push_back(PortToPlace{d.name, p.number, p.netdevs.empty() ? "" : p.netdevs.front(),
                                    it == placements.end() ? std::vector<std::string>{} : it->second.gpus});
      }
    }
    const auto places = placePorts(ports, config_);
    size_t i = 0;
    for (const RdmaDevice& d : topology.devices) {
      const auto it = placements.find(d.name);
      const PciPlacement none;
      const PciPlacement& pci = it == placements.end() ? none : it->second;
      for (const RdmaPort& p : d.ports) {
        const PortPlace& place = places[i++];
        out.add(cached({{"device", d.name},
                        {"port", std::to_string(p.number)},
                        {"interface", p.netdevs.empty() ? "" : p.netdevs.front()},
                        {"pci_address", pci.pciAddress},
                        {"numa_node", pci.numaNode},
                        {"function", pci.pciAddress.empty() ? "" : pci.virtualFunction ? "vf" : "pf"},
                        {"pf", pci.physicalFunction},
                        {"gpus", join(pci.gpus)},
                        {"role", place.role},
                        {"rail", place.rail}},
                       kPortTopologyInfo),
                1.0);
      }
      auto gauge = [&](const FamilyDef& family, const char* which, std::optional<double> value) {
        if (value) out.add(cached({{"device", d.name}, {"which", which}}, family), *value);
      };
      gauge(kPcieLinkWidth, "current", pci.widthCurrent ? std::optional<double>(*pci.widthCurrent) : std::nullopt);
      gauge(kPcieLinkWidth, "max", pci.widthMax ? std::optional<double>(*pci.widthMax) : std::nullopt);
      gauge(kPcieLinkSpeed, "current", pci.speedCurrentGts ? std::optional<double>(*pci.speedCurrentGts * 1e9) : std::nullopt);
      gauge(kPcieLinkSpeed, "max", pci.speedMaxGts ? std::optional<double>(*pci.speedMaxGts * 1e9) : std::nullopt);
    }
    // Series not emitted this run leave the cache (a device gone, a label that changed).
    std::erase_if(series_, [&](const auto& kv) { return kv.second.second != run_; });
    ++run_;
    return CollectStatus::kOk;
  }

 private:
  /// The same labels give the same series object from run to run (interned once).
  SeriesPtr cached(Labels labels, const FamilyDef& family) {
    std::string key(family.name);
    for (const auto& [k, v] : labels) key += fmt::format("\x1f{}\x1e{}", k, v);
    auto [it, inserted] = series_.try_emplace(key);
    if (inserted) it->second.first = makeSeries(family, std::move(labels));
    it->second.second = run_;
    return it->second.first;
  }

  HostTopology host_;
  TopologyConfig config_;
  std::map<std::string, std::pair<SeriesPtr, uint64_t>> series_;
  uint64_t run_ = 0;
};

}  // namespace

std::unique_ptr<Collector> makePortTopologyCollector(const Sources& sources, const Config& config) {
  return std::make_unique<PortTopologyCollector>(sources.sysfs, config.topology);
}

}  // namespace fabricmon
