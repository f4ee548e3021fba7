#pragma once
// The device/port <-> interface join, from fabricmon_port_info{device,port,interface,link_layer}
// (plus ports that only have a fabricmon_port_state yet). Rebuilt for every evaluation; the views
// point into series labels owned by the History and stay valid until its next ingest.

#include <string_view>
#include <vector>

#include "watchdog/history.hpp"

namespace fabricmon::watchdog {

struct PortRef {
  std::string_view device, port, interface, linkLayer;
  bool roce() const { return linkLayer == "Ethernet" && !interface.empty(); }
};

class PortJoin {
 public:
  void build(const History& history);
  const std::vector<PortRef>& ports() const { return ports_; }
  const PortRef* byInterface(std::string_view interface) const;
  const PortRef* byPort(std::string_view device, std::string_view port) const;

 private:
  std::vector<PortRef> ports_;  ///< sorted by device, port
};

}  // namespace fabricmon::watchdog
