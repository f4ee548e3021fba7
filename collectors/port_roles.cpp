#include "collectors/port_roles.hpp"

#include <algorithm>
#include <numeric>
#include <regex>

namespace fabricmon {
namespace {

bool matches(const std::vector<std::regex>& patterns, const PortToPlace& p) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::regex& re) {
    return (!p.interface.empty() && std::regex_match(p.interface, re)) || std::regex_match(p.device, re);
  });
}

std::vector<std::regex> compile(const std::vector<std::string>& patterns) {
  std::vector<std::regex> out;
  for (const auto& p : patterns) {
    try {
      out.emplace_back(p, std::regex::ECMAScript);
    } catch (const std::regex_error&) {
      // Rejected by config validation with file and line; a pattern that gets here matches nothing.
    }
  }
  return out;
}

}  // namespace

std::vector<PortPlace> placePorts(std::span<const PortToPlace> ports, const TopologyConfig& config) {
  const auto compute = compile(config.compute), storage = compile(config.storage),
             management = compile(config.management);
  std::vector<PortPlace> out(ports.size());
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortToPlace& p = ports[i];
    if (!p.gpus.empty() || matches(compute, p)) {
      out[i].role = "compute";
    } else if (matches(storage, p)) {
      out[i].role = "storage";
    } else if (matches(management, p)) {
      out[i].role = "management";
    } else {
      out[i].role = "unknown";
    }
  }
  if (!config.rails.empty()) {
    const auto rails = compile(config.rails);
    for (size_t i = 0; i < ports.size(); ++i) {
      if (out[i].role != "compute") continue;
      for (size_t r = 0; r < rails.size(); ++r) {
        if (matches(std::vector<std::regex>{rails[r]}, ports[i])) {
          out[i].rail = std::to_string(r);
          break;
        }
      }
    }
    return out;
  }
  // By the GPU each compute port serves: NIC i of every node of a rail-optimised cluster sits beside
  // GPU i, and GPUs enumerate in PCI order. Ports without a GPU (compute by configuration) come last.
  std::vector<size_t> order;
  for (size_t i = 0; i < ports.size(); ++i) {
    if (out[i].role == "compute") order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& pa = ports[a];
    const auto& pb = ports[b];
    const std::string ga = pa.gpus.empty() ? "~" : pa.gpus.front(), gb = pb.gpus.empty() ? "~" : pb.gpus.front();
    return std::tie(ga, pa.device, pa.port) < std::tie(gb, pb.device, pb.port);
  });
  for (size_t rank = 0; rank < order.size(); ++rank) out[order[rank]].rail = std::to_string(rank);
  return out;
}

}  // namespace fabricmon
