#include "watchdog/port_join.hpp"

#include <algorithm>
#include <tuple>

namespace fabricmon::watchdog {

void PortJoin::build(const History& history) {
  ports_.clear();
  for (const Tracked* s : history.family(Fam::kPortInfo)) {
    ports_.push_back(PortRef{s->label("device"), s->label("port"), s->label("interface"), s->label("link_layer")});
  }
  for (const Tracked* s : history.family(Fam::kPortState)) {
    ports_.push_back(PortRef{s->label("device"), s->label("port"), {}, {}});
  }
  // One row per port: prefer a row that names an interface, then the smallest interface name, so the
  // subject of a finding does not depend on hash order.
  std::sort(ports_.begin(), ports_.end(), [](const PortRef& a, const PortRef& b) {
    return std::tuple(a.device, a.port, a.interface.empty(), a.interface) <
           std::tuple(b.device, b.port, b.interface.empty(), b.interface);
  });
  ports_.erase(std::unique(ports_.begin(), ports_.end(),
                           [](const PortRef& a, const PortRef& b) { return a.device == b.device && a.port == b.port; }),
               ports_.end());
}

const PortRef* PortJoin::byInterface(std::string_view interface) const {
  if (interface.empty()) return nullptr;
  for (const auto& p : ports_) {
    if (p.interface == interface) return &p;
  }
  return nullptr;
}

const PortRef* PortJoin::byPort(std::string_view device, std::string_view port) const {
  auto it = std::lower_bound(ports_.begin(), ports_.end(), std::pair(device, port), [](const PortRef& p, const auto& k) {
    return std::pair(p.device, p.port) < k;
  });
  if (it != ports_.end() && it->device == device && it->port == port) return &*it;
  return nullptr;
}

}  // namespace fabricmon::watchdog
