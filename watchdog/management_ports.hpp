#pragma once
// The ports the fabric rules leave alone: those fabricmon_port_topology_info names
// role="management" (docs/rules.md, "Management ports"). One place decides, for every rule: the
// History does not track a management port's series, so no rule sees them; they are still
// exported, and device_missing still counts them present (and vanished when they go).
// watchdog.judge_management turns this off.

#include <set>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "model/sample.hpp"
#include "model/store.hpp"

namespace fabricmon::watchdog {

class ManagementPorts {
 public:
  /// Reads the topology info of the batches that changed; true when the set of management ports
  /// changed (the caller then forgets what it decided per series).
  bool update(const Snapshot& snapshot);
  /// True for a series of a management port: its interface, or its device and port, is one.
  bool excludes(const Series& series) const;
  /// The same question by subject: a management port, or (port empty) a device whose every port
  /// is one. Rules that remember subjects across passes (device_missing) forget these.
  bool excludes(std::string_view device, std::string_view port) const;
  bool empty() const { return interfaces_.empty() && ports_.empty(); }
  /// The management ports (device, port) and the devices with no other port, as the latest
  /// topology info names them: present on the node, though no rule judges them.
  std::vector<std::pair<std::string_view, std::string_view>> ports() const;
  const std::set<std::string, std::less<>>& devices() const { return devices_; }

 private:
  std::set<std::string, std::less<>> interfaces_;
  std::set<std::string, std::less<>> ports_;  ///< "device\x1fport"
  std::set<std::string, std::less<>> devices_;  ///< devices with no port outside ports_
  std::set<const Batch*> seen_;  ///< topology batches already read (by identity)
};

}  // namespace fabricmon::watchdog
