#include "watchdog/rules/rules.hpp"

#include <fmt/format.h>

namespace fabricmon::watchdog {

bool RuleContext::portDown(const PortRef& port) {
  const Tracked* state = port.in(Fam::kPortState);
  const Tracked* phys = port.in(Fam::kPortPhysState);
  return (state != nullptr && state->raw != kPortActive) || (phys != nullptr && phys->raw != kPhysLinkUp);
}

std::string RuleContext::moduleIdentity(const IfaceRef& iface) {
  const Tracked* info = iface.in(Fam::kXcvrInfo);
  if (info == nullptr || info->label("serial_number").empty() || info->label("checksum") == "bad") return {};
  return fmt::format("{}/{}/{}", info->label("vendor"), info->label("part_number"), info->label("serial_number"));
}

bool RuleContext::interfaceDown(const IfaceRef& iface) {
  const Tracked* up = iface.in(Fam::kNetdevUp);
  if (up != nullptr && up->raw == 0) return true;
  return iface.port != nullptr && portDown(*iface.port);
}

}  // namespace fabricmon::watchdog
