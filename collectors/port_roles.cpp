#include "collectors/port_roles.hpp"

#include <algorithm>
#include <tuple>

namespace fabricmon {
namespace {

bool matches(const std::vector<std::regex>& patterns, const PortToPlace& p) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::regex& re) {
    return (!p.interface.empty() && std::regex_match(p.interface, re)) || std::regex_match(p.device, re);
  });
}

std::string keyOf(const PortToPlace& p) { return p.device + "/" + std::to_string(p.port); }

}  // namespace

PortPlacer::Patterns PortPlacer::compile(const std::vector<std::string>& patterns) {
  Patterns out;
  for (const auto& p : patterns) {
    try {
      out.emplace_back(p, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      // Rejected by config validation with file and line; a pattern that gets here matches nothing.
    }
  }
  return out;
}

PortPlacer::PortPlacer(const TopologyConfig& config)
    : compute_(compile(config.compute)), storage_(compile(config.storage)), management_(compile(config.management)) {
  for (const auto& r : config.rails) rails_.push_back(compile({r}));
}

std::vector<PortPlace> PortPlacer::place(std::span<const PortToPlace> ports) {
  std::vector<PortPlace> out(ports.size());
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortToPlace& p = ports[i];
    if (!p.gpus.empty() || matches(compute_, p)) {
      out[i].role = "compute";
    } else if (matches(storage_, p)) {
      out[i].role = "storage";
    } else if (matches(management_, p)) {
      out[i].role = "management";
    } else {
      out[i].role = "unknown";
    }
  }
  if (!rails_.empty()) {
    for (size_t i = 0; i < ports.size(); ++i) {
      if (out[i].role != "compute") continue;
      for (size_t r = 0; r < rails_.size(); ++r) {
        if (matches(rails_[r], ports[i])) {
          out[i].rail = std::to_string(r);
          break;
        }
      }
    }
    return out;
  }
  rankRails(ports, out);
  return out;
}

void PortPlacer::rankRails(std::span<const PortToPlace> ports, std::vector<PortPlace>& out) {
  // By the GPU each compute PF serves: NIC i of every node of a rail-optimised cluster sits beside
  // GPU i, and GPUs enumerate in PCI order. Ports without a GPU (compute by configuration) come last.
  std::vector<size_t> order;
  for (size_t i = 0; i < ports.size(); ++i) {
    if (out[i].role == "compute" && ports[i].physicalFunction.empty()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& pa = ports[a];
    const auto& pb = ports[b];
    const std::string ga = pa.gpus.empty() ? "~" : pa.gpus.front(), gb = pb.gpus.empty() ? "~" : pb.gpus.front();
    return std::tie(ga, pa.device, pa.port) < std::tie(gb, pb.device, pb.port);
  });
  // Keep the rails already given while a port seen before is missing and nothing new arrived: a NIC
  // that vanishes must not move its neighbours to other rails in the middle of an incident.
  const bool allKnown =
      std::all_of(order.begin(), order.end(), [&](size_t i) { return book_.count(keyOf(ports[i])) != 0; });
  const bool onlyMissing = allKnown && order.size() < book_.size();
  if (!onlyMissing) {
    book_.clear();
    for (size_t rank = 0; rank < order.size(); ++rank) book_[keyOf(ports[order[rank]])] = std::to_string(rank);
  }
  std::map<std::string, std::string> railOfFunction;  // PF PCI address → its (first port's) rail
  for (size_t i : order) {
    out[i].rail = book_[keyOf(ports[i])];
    if (!ports[i].pciAddress.empty()) railOfFunction.try_emplace(ports[i].pciAddress, out[i].rail);
  }
  for (size_t i = 0; i < ports.size(); ++i) {
    if (out[i].role != "compute" || ports[i].physicalFunction.empty()) continue;
    const auto pf = railOfFunction.find(ports[i].physicalFunction);
    if (pf != railOfFunction.end()) out[i].rail = pf->second;  // a VF whose PF is not here: on no rail
  }
}

}  // namespace fabricmon
