#pragma once
// The devlink health reporters of the simulated node's mlx5 functions, in the form
// `devlink -j -s health show` prints them (iproute2 devlink/devlink.c, cmd_health_show): the text the
// daemon reads from collectors.devlink_health.file instead of the kernel's devlink family.

#include <string>
#include <vector>

namespace fabricmon::sim {

struct DevlinkFunction {
  std::string pciAddress;     ///< "0000:18:00.0"
  bool ethernet = true;       ///< the netdev's tx and rx reporters exist (mlx5e, not an IB function)
  bool firmwareFailed = false;  ///< nic-fw-fatal: fw_fatal reported once and not recovered
};

/// The document for these functions: each with mlx5_core's fw and fw_fatal reporters, and an
/// Ethernet function also its uplink port's tx and rx reporters.
std::string devlinkHealthJson(const std::vector<DevlinkFunction>& functions);

}  // namespace fabricmon::sim
