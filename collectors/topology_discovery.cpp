#include "collectors/topology_discovery.hpp"

#include <algorithm>
#include <charconv>

#include <spdlog/spdlog.h>

#include "collectors/sysfs_slot_groups.hpp"

namespace fabricmon {

namespace {

constexpr std::string_view kInfiniband = "class/infiniband";
constexpr std::string_view kNet = "class/net";

std::optional<unsigned> parseIndex(std::string_view s) {
  unsigned v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

/// Numeric directory entries ("1", "2", "10"), in numeric order.
std::vector<unsigned> numericEntries(const std::vector<std::string>& names) {
  std::vector<unsigned> out;
  for (const auto& n : names) {
    if (auto v = parseIndex(n)) out.push_back(*v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void addUnique(std::vector<std::string>& list, std::string name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(std::move(name));
}

bool samePort(const RdmaPort& a, const RdmaPort& b) {
  return a.number == b.number && a.linkLayer == b.linkLayer && a.netdevs == b.netdevs;
}

bool sameDevice(const RdmaDevice& a, const RdmaDevice& b) {
  return a.name == b.name && a.pciAddress == b.pciAddress && a.identity == b.identity && a.driver == b.driver &&
         std::equal(a.ports.begin(), a.ports.end(), b.ports.begin(), b.ports.end(), samePort);
}

bool sameNetdev(const Netdev& a, const Netdev& b) {
  return a.name == b.name && a.pciAddress == b.pciAddress && a.rdmaDevice == b.rdmaDevice &&
         a.rdmaPort == b.rdmaPort && a.driver == b.driver;
}

}  // namespace

bool sameContent(const Topology& a, const Topology& b) {
  return std::equal(a.devices.begin(), a.devices.end(), b.devices.begin(), b.devices.end(), sameDevice) &&
         std::equal(a.netdevs.begin(), a.netdevs.end(), b.netdevs.begin(), b.netdevs.end(), sameNetdev);
}

TopologyDiscovery::TopologyDiscovery(std::shared_ptr<const SysfsRoot> sysfs, DevicesConfig devices,
                                     NetdevConfig netdev)
    // Config validation should have caught a bad pattern already; if not, scan() reports it instead
    // of throwing from a reload.
    : sysfs_(std::move(sysfs)),
      devices_(devices.include, devices.exclude, "devices"),
      netdevInclude_(netdev.include, {}, "netdev") {}

RdmaDevice TopologyDiscovery::scanDevice(const std::string& name) const {
  RdmaDevice device;
  device.name = name;
  const std::string dir = std::string(kInfiniband) + "/" + name;
  if (auto pci = sysfs_->linkBasename(dir + "/device")) device.pciAddress = std::move(*pci);
  if (!device.pciAddress.empty()) {
    if (auto drv = sysfs_->linkBasename(dir + "/device/driver")) device.driver = std::move(*drv);
  }
  if (auto id = sysfsIdentity(*sysfs_, dir)) device.identity = *id;

  auto ports = sysfs_->listDir(dir + "/ports");
  if (!ports) return device;
  for (unsigned number : numericEntries(*ports)) {
    RdmaPort port;
    port.number = number;
    const std::string portDir = dir + "/ports/" + std::to_string(number);
    if (auto ll = sysfs_->readText(portDir + "/link_layer")) port.linkLayer = std::move(*ll);
    // gid_attrs/ndevs/<i>: the netdev of each GID; EINVAL or empty when the GID slot is unused
    // (drivers/infiniband/core/sysfs.c, show_port_gid_attr_ndev).
    if (auto entries = sysfs_->listDir(portDir + "/gid_attrs/ndevs")) {
      for (unsigned i : numericEntries(*entries)) {
        if (auto nd = sysfs_->readText(portDir + "/gid_attrs/ndevs/" + std::to_string(i))) {
          addUnique(port.netdevs, std::move(*nd));
        }
      }
    }
    device.ports.push_back(std::move(port));
  }
  mapDeviceNetdevs(name, device);
  return device;
}

void TopologyDiscovery::mapDeviceNetdevs(const std::string& name, RdmaDevice& device) const {
  // <dev>/device/net/<if>: the netdevs of the PCI function (RoCE PF netdev, IPoIB interface).
  const std::string netDir = std::string(kInfiniband) + "/" + name + "/device/net";
  auto entries = sysfs_->listDir(netDir);
  if (!entries || entries->empty() || device.ports.empty()) return;
  if (entries->size() == 1 && device.ports.size() == 1) {
    addUnique(device.ports.front().netdevs, entries->front());
    return;
  }
  // Several netdevs or ports (mlx4): dev_port is the 0-based port of the interface
  // (Documentation/ABI/testing/sysfs-class-net).
  for (const auto& ifname : *entries) {
    auto devPort = sysfs_->readText(netDir + "/" + ifname + "/dev_port");
    if (!devPort) continue;
    auto idx = parseIndex(*devPort);
    if (!idx) continue;
    for (auto& port : device.ports) {
      if (port.number == *idx + 1) addUnique(port.netdevs, ifname);
    }
  }
}

Netdev TopologyDiscovery::makeNetdev(const std::string& name, const std::string& rdmaDevice,
                                     unsigned port) const {
  Netdev nd;
  nd.name = name;
  if (auto pci = sysfs_->linkBasename(std::string(kNet) + "/" + name + "/device")) nd.pciAddress = std::move(*pci);
  // The bound driver selects the ethtool dialect (collectors/ethtool_dialects/).
  if (auto drv = sysfs_->linkBasename(std::string(kNet) + "/" + name + "/device/driver"))
    nd.driver = std::move(*drv);
  nd.rdmaDevice = rdmaDevice;
  nd.rdmaPort = port;
  return nd;
}

Result<TopologyPtr> TopologyDiscovery::scan() {
  if (devices_.error()) return *devices_.error();
  if (netdevInclude_.error()) return *netdevInclude_.error();
  auto topology = std::make_shared<Topology>();

  if (sysfs_->isDir(kInfiniband)) {
    auto names = sysfs_->listDir(kInfiniband);
    if (!names) return names.error();
    if (!checkedIncludes_) warnUnmatched("devices.include", devices_, *names);
    for (const auto& name : *names) {
      if (!devices_.selected(name)) continue;
      // A device removed between listing and scanning leaves nothing to read.
      if (!sysfs_->isDir(std::string(kInfiniband) + "/" + name)) continue;
      topology->devices.push_back(scanDevice(name));
    }
  }

  // Interfaces behind RDMA ports (only those that exist in class/net), then netdev.include.
  for (const auto& device : topology->devices) {
    for (const auto& port : device.ports) {
      for (const auto& ifname : port.netdevs) {
        if (topology->netdev(ifname) != nullptr) continue;
        if (!sysfs_->exists(std::string(kNet) + "/" + ifname)) continue;
        topology->netdevs.push_back(makeNetdev(ifname, device.name, port.number));
      }
    }
  }
  addBondSlaves(*topology);
  if (!netdevInclude_.empty() && sysfs_->isDir(kNet)) {
    auto names = sysfs_->listDir(kNet);
    if (!names) return names.error();
    if (!checkedIncludes_) warnUnmatched("netdev.include", netdevInclude_, *names);
    for (const auto& ifname : *names) {
      if (topology->netdev(ifname) != nullptr || !netdevInclude_.selected(ifname)) continue;
      // Interfaces are directories (symlinks to them); class/net also holds files such as the
      // bonding driver's bonding_masters (drivers/net/bonding/bond_sysfs.c), which are not.
      if (!sysfs_->isDir(std::string(kNet) + "/" + ifname)) continue;
      topology->netdevs.push_back(makeNetdev(ifname, "", 0));
    }
  }
  std::sort(topology->netdevs.begin(), topology->netdevs.end(),
            [](const Netdev& a, const Netdev& b) { return a.name < b.name; });
  if (!checkedIncludes_) {
    // No class/infiniband (or class/net) at all: every include pattern of that list matches nothing.
    if (!sysfs_->isDir(kInfiniband)) warnUnmatched("devices.include", devices_, {});
    if (!netdevInclude_.empty() && !sysfs_->isDir(kNet)) warnUnmatched("netdev.include", netdevInclude_, {});
    checkedIncludes_ = true;
  }

  if (last_ && sameContent(*last_, *topology)) return last_;
  topology->generation = last_ ? last_->generation + 1 : 1;
  last_ = topology;
  return last_;
}

void TopologyDiscovery::warnUnmatched(std::string_view key, const NameFilter& filter,
                                      const std::vector<std::string>& names) {
  for (const std::string& pattern : filter.unmatchedIncludes(names)) {
    spdlog::warn("{} pattern \"{}\" matches no name present below {} (a pattern must match the whole "
                 "name: \"mlx5_.*\", not \"^mlx5\"; docs/configuration.md)",
                 key, pattern, sysfs_->path(key.starts_with("devices") ? kInfiniband : kNet));
    unmatched_.push_back(std::string(key) + ": " + pattern);
  }
}

void TopologyDiscovery::addBondSlaves(Topology& topology) const {
  // An RDMA LAG (mlx5_bond_<n>) names its bond master in gid_attrs/ndevs; the PFC and per-priority
  // counters live on the slaves, whose ethtool stats the master does not have. The bonding driver
  // lists them in class/net/<master>/bonding/slaves (drivers/net/bonding/bond_sysfs.c), so each
  // slave is watched too, carrying the LAG's RDMA device and port: the LAG is one device with its
  // PFC counters per slave (docs/metrics.md, "Bonds").
  const size_t masters = topology.netdevs.size();
  for (size_t i = 0; i < masters; ++i) {
    const Netdev master = topology.netdevs[i];
    if (master.rdmaDevice.empty()) continue;
    auto slaves = sysfs_->readText(std::string(kNet) + "/" + master.name + "/bonding/slaves");
    if (!slaves) continue;  // not a bond
    size_t at = 0;
    while (at < slaves->size()) {
      const size_t start = slaves->find_first_not_of(" \t\n", at);
      if (start == std::string::npos) break;
      const size_t end = std::min(slaves->find_first_of(" \t\n", start), slaves->size());
      const std::string slave = slaves->substr(start, end - start);
      at = end;
      if (topology.netdev(slave) != nullptr || !sysfs_->exists(std::string(kNet) + "/" + slave)) continue;
      topology.netdevs.push_back(makeNetdev(slave, master.rdmaDevice, master.rdmaPort));
    }
  }
}

}  // namespace fabricmon
