#include "collectors/host_topology.hpp"

#include <algorithm>
#include <charconv>

namespace fabricmon {
namespace {

constexpr unsigned kMaxDepth = 12;

/// "0000:17:00.0": domain:bus:device.function in lower-case hex (drivers/pci/probe.c, pci_setup_device).
bool looksLikePciFunction(std::string_view name) {
  constexpr std::string_view kShape = "hhhh:hh:hh.f";
  if (name.size() != kShape.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    switch (kShape[i]) {
      case 'h':
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
        break;
      case 'f':
        if (c < '0' || c > '7') return false;
        break;
      default:
        if (c != kShape[i]) return false;
    }
  }
  return true;
}

std::optional<unsigned long> hexValue(const SysfsRoot& sysfs, const std::string& rel) {
  auto text = sysfs.readText(rel);
  if (!text) return std::nullopt;
  std::string_view v = *text;
  if (v.starts_with("0x")) v.remove_prefix(2);
  unsigned long out = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out, 16);
  if (ec != std::errc{} || end != v.data() + v.size()) return std::nullopt;
  return out;
}

bool isGpu(unsigned long vendor, unsigned long pciClass) {
  const unsigned long base = pciClass >> 8;  // class code without the programming interface
  if (vendor == 0x10de) return base == 0x0300 || base == 0x0302;  // NVIDIA VGA / 3D controller
  if (vendor == 0x1002) return base == 0x0380 || base == 0x0300;  // AMD display (Instinct) / VGA
  return false;
}

void walk(const SysfsRoot& sysfs, const std::string& dir, unsigned depth, std::vector<GpuFunction>& out) {
  if (depth > kMaxDepth) return;
  auto entries = sysfs.listDir(dir);
  if (!entries) return;
  for (const auto& name : *entries) {
    if (!looksLikePciFunction(name)) continue;
    const std::string child = dir + "/" + name;
    if (!sysfs.isDir(child)) continue;
    const auto vendor = hexValue(sysfs, child + "/vendor");
    const auto pciClass = hexValue(sysfs, child + "/class");
    if (vendor && pciClass && isGpu(*vendor, *pciClass)) out.push_back(GpuFunction{name, child});
    walk(sysfs, child, depth + 1, out);
  }
}

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= path.size()) {
    const size_t slash = path.find('/', at);
    const size_t end = slash == std::string::npos ? path.size() : slash;
    if (end > at) out.push_back(path.substr(at, end - at));
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return out;
}

std::optional<unsigned> width(const SysfsRoot& sysfs, const std::string& rel) {
  auto text = sysfs.readText(rel);
  return text ? parsePcieWidth(*text) : std::nullopt;
}

template <typename T>
std::optional<T> lower(std::optional<T> a, std::optional<T> b) {
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

}  // namespace

std::optional<unsigned> parsePcieWidth(std::string_view text) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // 0 = link down; anything above x32 is not a PCIe width.
  if (ec != std::errc{} || end != text.data() + text.size() || v == 0 || v > 32) return std::nullopt;
  return v;
}

std::optional<double> parsePcieSpeed(std::string_view text) {
  const auto space = text.find(' ');
  if (space == std::string_view::npos || !text.substr(space).starts_with(" GT/s")) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + space, v);
  if (ec != std::errc{} || end != text.data() + space || !(v > 0) || v > 256) return std::nullopt;
  return v;
}

std::vector<PciHop> pciChain(const SysfsRoot& sysfs, const std::string& device) {
  std::vector<PciHop> out;
  auto path = sysfs.resolve("class/infiniband/" + device + "/device");
  if (!path) return out;
  const auto parts = components(*path);
  if (parts.empty() || !looksLikePciFunction(parts.back())) return out;
  std::string at;
  for (const auto& part : parts) {
    at += (at.empty() ? "" : "/") + part;
    // The root complex ("pci0000:16") and anything that is not a function (a VMD domain's own
    // bus names) are not hops: only bridges and the function carry AER counters.
    if (looksLikePciFunction(part)) out.push_back(PciHop{part, at});
  }
  return out;
}

std::vector<GpuFunction> findGpus(const SysfsRoot& sysfs) {
  std::vector<GpuFunction> out;
  auto roots = sysfs.listDir("devices");
  if (!roots) return out;
  for (const auto& r : *roots) {
    if (r.starts_with("pci")) walk(sysfs, "devices/" + r, 1, out);
  }
  std::sort(out.begin(), out.end(), [](const GpuFunction& a, const GpuFunction& b) { return a.pciAddress < b.pciAddress; });
  return out;
}

std::map<std::string, PciPlacement> HostTopology::read(const Topology& topology) {
  // Everything but the current PCIe link is fixed while the topology is: re-read it all only when
  // discovery saw a change (or a device was re-created), the two current_link_* files every run.
  const bool sameTopology = gpusGeneration_ == topology.generation && topology.generation != 0;
  if (!sameTopology) {
    gpus_ = findGpus(*sysfs_);
    gpusGeneration_ = topology.generation;
    placed_.clear();
  }
  std::map<std::string, PciPlacement> out;
  for (const RdmaDevice& device : topology.devices) {
    auto it = placed_.find(device.name);
    if (it == placed_.end() || it->second.identity != device.identity) {
      auto [placement, path] = place(device.name);
      Placed fresh{device.identity, std::move(placement), nullptr, nullptr};
      if (!path.empty()) {
        fresh.currentWidth = std::make_unique<CounterFile>(sysfs_->path(path + "/current_link_width"));
        fresh.currentSpeed = std::make_unique<CounterFile>(sysfs_->path(path + "/current_link_speed"));
      }
      it = placed_.insert_or_assign(device.name, std::move(fresh)).first;
    }
    Placed& placed = it->second;
    PciPlacement& p = out[device.name] = placed.placement;
    if (!placed.currentWidth) continue;  // no PCI function
    // Kept open and re-read with pread, like the counters (docs/architecture.md).
    auto w = placed.currentWidth->readText();
    p.widthCurrent = w ? parsePcieWidth(*w) : std::nullopt;
    auto speed = placed.currentSpeed->readText();
    p.speedCurrentGts = speed ? parsePcieSpeed(*speed) : std::nullopt;
  }
  return out;
}

std::pair<PciPlacement, std::string> HostTopology::place(const std::string& device) const {
  PciPlacement p;
  auto path = sysfs_->resolve("class/infiniband/" + device + "/device");
  if (!path) return {p, ""};  // no PCI function (a software device such as rxe), nothing to place
  const auto parts = components(*path);
  if (parts.empty() || !looksLikePciFunction(parts.back())) return {p, ""};
  p.pciAddress = parts.back();
  if (auto numa = sysfs_->readText(*path + "/numa_node"); numa && *numa != "-1") p.numaNode = *numa;
  if (sysfs_->exists(*path + "/physfn")) {
    p.virtualFunction = true;
    if (auto pf = sysfs_->linkBasename(*path + "/physfn")) p.physicalFunction = *pf;
  }
  p.widthMax = width(*sysfs_, *path + "/max_link_width");
  auto speed = [&](const std::string& rel) -> std::optional<double> {
    auto text = sysfs_->readText(rel);
    return text ? parsePcieSpeed(*text) : std::nullopt;
  };
  p.speedMaxGts = speed(*path + "/max_link_speed");
  // A Gen5 x16 NIC in a Gen4 slot trains at Gen4 by design: the link can only be as good as the
  // port above it (its own max_link_* files), so that is the maximum to compare with.
  const std::string parent = path->substr(0, path->rfind('/'));
  // Only when the function states its own maximum: a VF (or a function whose files are unreadable)
  // has no link of its own, and the slot's maximum alone is no measure of it.
  if (parts.size() >= 2 && looksLikePciFunction(parts[parts.size() - 2])) {
    if (p.widthMax) p.widthMax = lower(p.widthMax, width(*sysfs_, parent + "/max_link_width"));
    if (p.speedMaxGts) p.speedMaxGts = lower(p.speedMaxGts, speed(parent + "/max_link_speed"));
  }
  // The GPUs that share the deepest bridge with this function: its PCIe switch, else its root
  // port (the first component below the pciDDDD:BB root complex is the root port).
  size_t best = 3;  // "devices", "pciDDDD:BB", root port: sharing less is no affinity
  for (const GpuFunction& gpu : gpus_) {
    const auto g = components(gpu.path);
    size_t common = 0;
    while (common < g.size() && common + 1 < parts.size() && g[common] == parts[common]) ++common;
    if (common < best) continue;
    if (common > best) {
      best = common;
      p.gpus.clear();
    }
    p.gpus.push_back(gpu.pciAddress);
  }
  return {p, *path};
}

}  // namespace fabricmon
