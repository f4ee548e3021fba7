#include "collectors/topology.hpp"

namespace fabricmon {

const RdmaDevice* Topology::device(std::string_view name) const {
  for (const auto& d : devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

const Netdev* Topology::netdev(std::string_view name) const {
  for (const auto& n : netdevs) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

}  // namespace fabricmon
