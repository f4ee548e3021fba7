#include "daemon/read_waits.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "collectors/sources/kmsg_record.hpp"
#include "model/families/nic.hpp"

namespace fabricmon {

namespace {

/// The part of `target` after `marker` ("class/net/"), where the marker starts a path component.
std::optional<std::string_view> after(std::string_view target, std::string_view marker) {
  const size_t at = target.rfind(marker);
  if (at == std::string_view::npos || (at > 0 && target[at - 1] != '/')) return std::nullopt;
  return target.substr(at + marker.size());
}

/// The first path component of `rest`, and `rest` after it.
std::string_view component(std::string_view& rest) {
  const size_t slash = rest.find('/');
  const std::string_view first = rest.substr(0, slash);
  rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
  return first;
}

void fromDevice(const Topology& topology, ReadSubject& s) {
  const RdmaDevice* dev = topology.device(s.device);
  if (dev == nullptr) return;
  if (s.pciAddress.empty()) s.pciAddress = dev->pciAddress;
  // A device-wide file (hwmon, device-level counters) of a one-port function is that port's.
  if (s.port.empty() && dev->ports.size() == 1) s.port = std::to_string(dev->ports.front().number);
  if (!s.interface.empty()) return;
  for (const RdmaPort& p : dev->ports) {
    if (std::to_string(p.number) == s.port && !p.netdevs.empty()) s.interface = p.netdevs.front();
  }
}

void fromInterface(const Topology& topology, ReadSubject& s) {
  const Netdev* nd = topology.netdev(s.interface);
  if (nd == nullptr) return;
  if (s.pciAddress.empty()) s.pciAddress = nd->pciAddress;
  if (nd->rdmaDevice.empty()) return;
  s.device = nd->rdmaDevice;
  if (nd->rdmaPort != 0) s.port = std::to_string(nd->rdmaPort);
  fromDevice(topology, s);
}

}  // namespace

ReadSubject readSubject(const Topology& topology, std::string_view target) {
  ReadSubject s;
  // The marker nearest the end names the file: a sysfs root of a test tree may hold either.
  auto rdma = after(target, "class/infiniband/");
  auto net = after(target, "class/net/");
  if (rdma && (!net || rdma->size() < net->size())) {
    s.device = std::string(component(*rdma));
    if (component(*rdma) == "ports") s.port = std::string(component(*rdma));
    fromDevice(topology, s);
    return s;
  }
  if (net) {
    s.interface = std::string(component(*net));
    fromInterface(topology, s);
    return s;
  }
  // Below a PCI function's directory (devices/pci0000:00/.../0000:17:00.0/hwmon/hwmon3/temp1_input):
  // the last PCI address on the path is the function's.
  std::string_view rest = target;
  while (!rest.empty()) {
    const std::string_view part = component(rest);
    if (isPciAddress(part)) s.pciAddress = std::string(part);
  }
  if (s.pciAddress.empty()) return s;
  for (const RdmaDevice& dev : topology.devices) {
    if (dev.pciAddress == s.pciAddress) {
      s.device = dev.name;
      fromDevice(topology, s);
      return s;
    }
  }
  for (const Netdev& nd : topology.netdevs) {
    if (nd.pciAddress == s.pciAddress) {
      s.interface = nd.name;
      fromInterface(topology, s);
      return s;
    }
  }
  return s;
}

std::span<const FamilyDef* const> ReadWaits::families() { return families::nic::readWaits(); }

void ReadWaits::note(const CollectorHealth& h, const Topology& topology, Clock::time_point now) {
  if (!h.waiting) return;
  ReadSubject subject = readSubject(topology, h.waiting->target);
  auto [it, inserted] = entries_.try_emplace(Key{h.name, subject.device, subject.port, subject.interface});
  Entry& e = it->second;
  if (inserted) {
    e.series = makeSeries(families::nic::kReadWait, {{"collector", h.name},
                                                      {"device", std::move(subject.device)},
                                                      {"port", std::move(subject.port)},
                                                      {"interface", std::move(subject.interface)},
                                                      {"pci_address", std::move(subject.pciAddress)}});
  }
  const double seconds = std::max(0.0, std::chrono::duration<double>(now - h.waiting->since).count());
  e.lastWaiting = now;
  if (seconds < e.seconds) return;  // another read of this collector about this subject waits longer
  e.seconds = seconds;
  e.note = fmt::format("{} {}", h.waiting->kind, h.waiting->target);
}

BatchPtr ReadWaits::batch(std::span<const CollectorHealth> health, const Topology& topology, Clock::time_point now,
                          std::span<const CollectorHealth> leftBehind) {
  for (auto& [key, entry] : entries_) entry.seconds = 0;  // a read still waiting sets it again below
  for (const std::span<const CollectorHealth> runs : {health, leftBehind}) {
    for (const CollectorHealth& h : runs) note(h, topology, now);
  }
  const bool left = std::erase_if(entries_, [&](const auto& kv) {
                      return kv.second.seconds == 0 && now - kv.second.lastWaiting > kHold;
                    }) > 0;
  // While a series is held, every pass is a new batch: its samples' times move on, so the rule's
  // clear_after counts from the read's return (the watchdog takes an unchanged batch for no news).
  if (last_ && entries_.empty() && !left) return last_;

  auto b = std::make_shared<Batch>();
  b->collector = std::string(kCollector);
  b->monotonic = now;
  b->wall = std::chrono::system_clock::now();
  SampleWriter out(*b);
  for (const auto& [key, e] : entries_) {
    out.add(e.series, e.seconds);
    b->notes.push_back(Note{e.series, e.note});
  }
  out.finish();
  last_ = b;
  return last_;
}

}  // namespace fabricmon
