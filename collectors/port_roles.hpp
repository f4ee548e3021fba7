#pragma once
// Which role each RDMA port plays and which rail it is on (docs/configuration.md, "topology"):
//   role: compute when a GPU sits behind the same PCIe switch or root port (GPU affinity first),
//         else the first of topology.compute / storage / management whose regex matches the
//         interface or the device name, else unknown;
//   rail: the index of the first topology.rails regex that matches; with no rails configured, the
//         rank of the port among the compute ports ordered by the PCI address of the (first) GPU
//         it serves, then device and port. Only compute ports are on a rail.

#include <span>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace fabricmon {

struct PortToPlace {
  std::string device;
  unsigned port = 0;
  std::string interface;              ///< "" when the port has none
  std::vector<std::string> gpus;      ///< sorted PCI addresses of the GPUs beside it
};

struct PortPlace {
  std::string role;  ///< compute, storage, management, unknown
  std::string rail;  ///< "" off the rails
};

/// One PortPlace per input, in the same order. The regexes were validated with the configuration.
std::vector<PortPlace> placePorts(std::span<const PortToPlace> ports, const TopologyConfig& config);

}  // namespace fabricmon
