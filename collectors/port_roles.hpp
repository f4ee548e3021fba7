#pragma once
// Which role each RDMA port plays and which rail it is on (docs/configuration.md, "topology"):
//   role: compute when a GPU sits behind the same PCIe switch or root port (GPU affinity first),
//         else the first of topology.compute / storage / management whose regex matches the
//         interface or the device name, else unknown;
//   rail: the index of the first topology.rails regex that matches; with no rails configured, the
//         rank of the port among the compute physical functions ordered by the PCI address of the
//         (first) GPU it serves, then device and port. A VF is on its PF's rail. Only compute ports
//         are on a rail.
// Rails hold while a NIC is missing: a NIC that vanishes (or has not come back after a driver
// reload) does not renumber the rails of the others; they are ranked afresh once every port seen
// before is back, or when new ports appear.

#include <map>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include "config/config.hpp"

namespace fabricmon {

struct PortToPlace {
  std::string device;
  unsigned port = 0;
  std::string interface;              ///< "" when the port has none
  std::vector<std::string> gpus{};    ///< sorted PCI addresses of the GPUs beside it
  std::string pciAddress{};           ///< of its PCI function; "" when unknown
  std::string physicalFunction{};     ///< a VF's PF address; "" for a PF
};

struct PortPlace {
  std::string role;  ///< compute, storage, management, unknown
  std::string rail;  ///< "" off the rails
};

class PortPlacer {
 public:
  /// The regexes were validated with the configuration; one that does not compile matches nothing.
  explicit PortPlacer(const TopologyConfig& config);
  /// One PortPlace per input, in the same order.
  std::vector<PortPlace> place(std::span<const PortToPlace> ports);

 private:
  using Patterns = std::vector<std::regex>;
  static Patterns compile(const std::vector<std::string>& patterns);
  void rankRails(std::span<const PortToPlace> ports, std::vector<PortPlace>& out);

  Patterns compute_, storage_, management_;
  std::vector<Patterns> rails_;           ///< topology.rails, one pattern each
  std::map<std::string, std::string> book_;  ///< "device/port" of a compute PF port → its rail (automatic rails)
};

}  // namespace fabricmon
