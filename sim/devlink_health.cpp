#include "sim/devlink_health.hpp"

#include <nlohmann/json.hpp>

#include <string_view>

namespace fabricmon::sim {
namespace {

using nlohmann::json;

/// The devlink port index of a PF's uplink: mlx5 numbers devlink ports (vhca_id << 16) | vport, and
/// the uplink vport is 0xffff (drivers/net/ethernet/mellanox/mlx5/core/esw/devlink_port.c,
/// mlx5_esw_vport_to_devlink_port_index). The simulator's functions are PFs whose vhca_id is their
/// PCI function number: pci/0000:18:00.0/65535, pci/0000:18:00.1/131071.
unsigned uplinkPortIndex(std::string_view pciAddress) {
  const char fn = pciAddress.empty() ? '0' : pciAddress.back();
  const unsigned vhca = fn >= '0' && fn <= '7' ? unsigned(fn - '0') : 0;
  return (vhca << 16) | 0xffff;
}

/// One reporter as iproute2 prints it with -s: the grace period and auto_recover only for reporters
/// that recover (mlx5's fw reporter does not: devlink_health_reporter has no .recover for it).
json reporter(const char* name, bool failed, int gracePeriodMs) {
  json r = {{"reporter", name}, {"state", failed ? "error" : "healthy"}, {"error", failed ? 1 : 0}, {"recover", 0}};
  if (gracePeriodMs > 0) {
    r["grace_period"] = gracePeriodMs;
    r["auto_recover"] = true;
  }
  r["auto_dump"] = true;
  return r;
}

}  // namespace

std::string devlinkHealthJson(const std::vector<DevlinkFunction>& functions) {
  json health = json::object();
  for (const DevlinkFunction& f : functions) {
    // drivers/net/ethernet/mellanox/mlx5/core/health.c: fw (firmware syndromes, no recovery) and
    // fw_fatal (a firmware crash: recovery reloads the function, 60 s grace period).
    health["pci/" + f.pciAddress] = json::array({reporter("fw", false, 0), reporter("fw_fatal", f.firmwareFailed, 60000)});
    if (f.ethernet) {
      // mlx5/core/en/reporter_tx.c, reporter_rx.c: per uplink port, 500 ms grace period.
      health["pci/" + f.pciAddress + "/" + std::to_string(uplinkPortIndex(f.pciAddress))] =
          json::array({reporter("tx", false, 500), reporter("rx", false, 500)});
    }
  }
  return json{{"health", health}}.dump() + "\n";
}

}  // namespace fabricmon::sim
