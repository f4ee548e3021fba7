#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {

bool RuleContext::portDown(const PortRef& port) {
  const Tracked* state = port.in(Fam::kPortState);
  const Tracked* phys = port.in(Fam::kPortPhysState);
  return (state != nullptr && state->raw != kPortActive) || (phys != nullptr && phys->raw != kPhysLinkUp);
}

bool RuleContext::interfaceDown(const IfaceRef& iface) {
  const Tracked* up = iface.in(Fam::kNetdevUp);
  if (up != nullptr && up->raw == 0) return true;
  return iface.port != nullptr && portDown(*iface.port);
}

}  // namespace fabricmon::watchdog
