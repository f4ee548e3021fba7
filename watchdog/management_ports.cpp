#include "watchdog/management_ports.hpp"

#include <algorithm>

#include "model/families/topology.hpp"

namespace fabricmon::watchdog {

bool ManagementPorts::update(const Snapshot& snapshot) {
  const auto& info = families::topology::kPortTopologyInfo;
  for (const auto& [name, batch] : snapshot.batches) {
    if (!batch || batch->samples.empty() || batch->samples.front().series == nullptr) continue;
    // Only port_topology's batch holds the topology group's families, and nothing else.
    const auto group = families::topology::all();
    if (std::find(group.begin(), group.end(), batch->samples.front().series->family) == group.end()) continue;
    if (batch == seen_) return false;  // unchanged since the last pass
    seen_ = batch;
    std::set<std::string, std::less<>> interfaces;
    std::set<Port> ports;
    std::set<std::string, std::less<>> devices;
    std::set<std::string, std::less<>> mixedDevices;  // a device with a port of another role
    for (const Sample& s : batch->samples) {
      if (s.series == nullptr || s.series->family != &info) continue;
      const std::string device(s.series->label("device"));
      if (s.series->label("role") != "management") {
        mixedDevices.insert(device);
        continue;
      }
      devices.insert(device);
      ports.emplace(device, std::string(s.series->label("port")));
      if (const auto iface = s.series->label("interface"); !iface.empty()) interfaces.emplace(iface);
    }
    for (const auto& d : mixedDevices) devices.erase(d);
    if (interfaces == interfaces_ && ports == ports_ && devices == devices_) return false;
    interfaces_ = std::move(interfaces);
    ports_ = std::move(ports);
    devices_ = std::move(devices);
    return true;
  }
  return false;
}

bool ManagementPorts::excludes(const Series& series) const {
  if (interfaces_.empty() && ports_.empty()) return false;
  if (const auto iface = series.label("interface"); !iface.empty() && interfaces_.count(iface) != 0) return true;
  const auto device = series.label("device");
  if (device.empty()) return false;
  const auto port = series.label("port");
  if (port.empty()) return devices_.count(device) != 0;
  // Only at a series' first sight (the History remembers the decision by id): a pair of strings is fine.
  return ports_.count(Port{device, port}) != 0;
}

}  // namespace fabricmon::watchdog
