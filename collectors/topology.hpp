#pragma once
// What discovery found on the node: RDMA devices and ports, and the network interfaces to watch.
// Built by TopologyDiscovery on its own timer and shared read-only by every collector.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fabricmon {

struct RdmaPort {
  unsigned number = 0;
  std::string linkLayer;             ///< "InfiniBand", "Ethernet", "Unknown" (EFA); "" if unreadable
  std::vector<std::string> netdevs;  ///< from ports/<p>/gid_attrs/ndevs/* and/or <dev>/device/net/*
};

struct RdmaDevice {
  std::string name;        ///< "mlx5_0"
  std::string pciAddress;  ///< basename of the `device` link ("0000:17:00.0"); "" if none
  uint64_t identity = 0;   ///< changes when the device is re-created (inode of its directory)
  std::vector<RdmaPort> ports;
  /// Basename of class/infiniband/<dev>/device/driver ("mlx5_core", "efa"); "" if none. The
  /// function's driver also where no netdev shows it (EFA, an InfiniBand HCA without IPoIB).
  std::string driver{};
};

struct Netdev {
  std::string name;         ///< "eth0"
  std::string pciAddress;   ///< basename of class/net/<if>/device; "" for virtual interfaces
  std::string rdmaDevice;   ///< the RDMA device behind it; "" if it was only matched by netdev.include
  unsigned rdmaPort = 0;
  std::string driver{};     ///< basename of class/net/<if>/device/driver ("mlx5_core"); "" if none
};

struct Topology {
  std::vector<RdmaDevice> devices;  ///< sorted by name
  std::vector<Netdev> netdevs;      ///< sorted by name, unique
  uint64_t generation = 0;          ///< grows whenever the content changes

  const RdmaDevice* device(std::string_view name) const;
  const Netdev* netdev(std::string_view name) const;
};
using TopologyPtr = std::shared_ptr<const Topology>;

}  // namespace fabricmon
