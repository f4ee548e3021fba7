// The port_topology collector: where each RDMA port sits on the host and what it is for
// (docs/metrics.md, "Where a port sits on the host").

#include "collectors/host_topology.hpp"
#include "collectors/labelled_series.hpp"
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
      : host_(std::move(sysfs)), placer_(config) {}

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
        PortToPlace port{d.name, p.number, p.netdevs.empty() ? "" : p.netdevs.front()};
        if (it != placements.end()) {
          port.gpus = it->second.gpus;
          port.pciAddress = it->second.pciAddress;
          port.physicalFunction = it->second.physicalFunction;
        }
        ports.push_back(std::move(port));
      }
    }
    const auto places = placer_.place(ports);
    size_t i = 0;
    for (const RdmaDevice& d : topology.devices) {
      const auto it = placements.find(d.name);
      const PciPlacement none;
      const PciPlacement& pci = it == placements.end() ? none : it->second;
      for (const RdmaPort& p : d.ports) {
        const PortPlace& place = places[i++];
        out.add(series_.get(kPortTopologyInfo, {{"device", d.name},
                        {"port", std::to_string(p.number)},
                        {"interface", p.netdevs.empty() ? "" : p.netdevs.front()},
                        {"pci_address", pci.pciAddress},
                        {"numa_node", pci.numaNode},
                        {"function", pci.pciAddress.empty() ? "" : pci.virtualFunction ? "vf" : "pf"},
                        {"pf", pci.physicalFunction},
                        {"gpus", join(pci.gpus)},
                        {"role", place.role},
                        {"rail", place.rail}}),
                1.0);
      }
      auto gauge = [&](const FamilyDef& family, const char* which, std::optional<double> value) {
        if (value) out.add(series_.get(family, {{"device", d.name}, {"which", which}}), *value);
      };
      gauge(kPcieLinkWidth, "current", pci.widthCurrent ? std::optional<double>(*pci.widthCurrent) : std::nullopt);
      gauge(kPcieLinkWidth, "max", pci.widthMax ? std::optional<double>(*pci.widthMax) : std::nullopt);
      gauge(kPcieLinkSpeed, "current", pci.speedCurrentGts ? std::optional<double>(*pci.speedCurrentGts * 1e9) : std::nullopt);
      gauge(kPcieLinkSpeed, "max", pci.speedMaxGts ? std::optional<double>(*pci.speedMaxGts * 1e9) : std::nullopt);
    }
    series_.endRun();  // a device gone, a label that changed: its old series leaves
    return CollectStatus::kOk;
  }

 private:
  HostTopology host_;
  PortPlacer placer_;
  LabelledSeries series_;
};

/// fabricmon_port_topology_info per RDMA port (PCI function, NUMA node, VF/PF, the GPUs beside it,
/// role, rail) and the PCIe link width and speed of each device's function, current and maximum.
std::unique_ptr<Collector> makePortTopologyCollector(const Sources& sources, const Config& config) {
  return std::make_unique<PortTopologyCollector>(sources.sysfs, config.topology);
}

}  // namespace

// Where each port sits (PCI, NUMA, GPUs, role, rail): changes only with the hardware.
extern const CollectorEntry kPortTopologyCollector{
    "port_topology", Cadence::kSlow, {}, &makePortTopologyCollector, nullptr};

}  // namespace fabricmon
