#pragma once
// Finds the RDMA devices, their ports and the network interfaces behind them in sysfs, plus the
// interfaces selected by netdev.include (docs/contract.md §2). Runs on its own timer; collectors
// share the result.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/name_filter.hpp"
#include "collectors/sources/sysfs.hpp"
#include "collectors/topology.hpp"
#include "config/config.hpp"
#include "model/result.hpp"

namespace fabricmon {

class TopologyDiscovery {
 public:
  /// Regexes must match the whole name (like node_exporter's device filters); exclude wins over
  /// include; an empty include list selects every device. An invalid regex makes scan() fail.
  TopologyDiscovery(std::shared_ptr<const SysfsRoot> sysfs, DevicesConfig devices, NetdevConfig netdev);

  /// Lists class/infiniband and class/net. No class/infiniband directory is an empty topology, not an
  /// error. Returns the previous pointer (same generation) when nothing changed since the last scan.
  Result<TopologyPtr> scan();

  /// The `devices.include` / `netdev.include` patterns (as "devices.include: PATTERN") that matched
  /// no device or interface present at the first scan; each was logged as a warning then. A
  /// discovery is made at start and at every reload, so both warn.
  const std::vector<std::string>& unmatchedIncludes() const { return unmatched_; }

 private:
  RdmaDevice scanDevice(const std::string& name) const;
  void mapDeviceNetdevs(const std::string& name, RdmaDevice& device) const;
  Netdev makeNetdev(const std::string& name, const std::string& rdmaDevice, unsigned port) const;
  void addBondSlaves(Topology& topology) const;
  void warnUnmatched(std::string_view key, const NameFilter& filter, const std::vector<std::string>& names);

  std::shared_ptr<const SysfsRoot> sysfs_;
  NameFilter devices_;
  NameFilter netdevInclude_;  ///< include only: an empty list selects no extra interface
  TopologyPtr last_;
  bool checkedIncludes_ = false;
  std::vector<std::string> unmatched_;
};

/// True when two topologies describe the same devices, ports and interfaces (generation ignored).
bool sameContent(const Topology& a, const Topology& b);

}  // namespace fabricmon
