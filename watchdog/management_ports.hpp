#pragma once
// The ports the fabric rules leave alone: those fabricmon_port_topology_info names
// role="management" (docs/rules.md, "Management ports"). One place decides, for every rule: the
// History does not track a management port's series, so no rule sees them; they are still
// exported, and device_missing still counts them present (and vanished when they go).
// watchdog.judge_management turns this off.

#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "model/sample.hpp"
#include "model/store.hpp"

namespace fabricmon::watchdog {

class ManagementPorts {
 public:
  using Port = std::pair<std::string, std::string>;  ///< device, port

  /// Reads port_topology's batch when it changed; true when the set of management ports changed
  /// (the caller then forgets what it decided per series).
  bool update(const Snapshot& snapshot);
  /// True for a series of a management port: its interface, or its device and port, is one; or
  /// (no port label) a device whose every port is one.
  bool excludes(const Series& series) const;
  /// The management ports and the devices with no other port, as the latest topology info names
  /// them: present on the node, though no rule judges them.
  const std::set<Port>& ports() const { return ports_; }
  const std::set<std::string, std::less<>>& devices() const { return devices_; }

 private:
  std::set<std::string, std::less<>> interfaces_;
  std::set<Port> ports_;
  std::set<std::string, std::less<>> devices_;  ///< devices with no port outside ports_
  /// The topology batch last read. Held, not just its address: a freed batch's address can come
  /// back as the next batch's.
  BatchPtr seen_;
};

}  // namespace fabricmon::watchdog
