#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {

bool RuleContext::portDown(std::string_view device, std::string_view port) const {
  const Tracked* state = history.find(Fam::kPortState, device, port);
  const Tracked* phys = history.find(Fam::kPortPhysState, device, port);
  return (state != nullptr && state->raw != kPortActive) || (phys != nullptr && phys->raw != kPhysLinkUp);
}

bool RuleContext::interfaceDown(std::string_view interface) const {
  const Tracked* up = history.find(Fam::kNetdevUp, interface);
  if (up != nullptr && up->raw == 0) return true;
  const PortRef* p = join.byInterface(interface);
  return p != nullptr && portDown(p->device, p->port);
}

}  // namespace fabricmon::watchdog
