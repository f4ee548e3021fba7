// The one table of watchdog rules. Adding a rule: its file pair under watchdog/rules/ and one entry
// here (docs/architecture.md, "Adding a rule").
#include "watchdog/rules/rule.hpp"

#include "watchdog/rules/dcqcn_misconfig.hpp"
#include "watchdog/rules/device_missing.hpp"
#include "watchdog/rules/global_pause.hpp"
#include "watchdog/rules/ib_congestion.hpp"
#include "watchdog/rules/link_ber.hpp"
#include "watchdog/rules/link_errors.hpp"
#include "watchdog/rules/link_flap.hpp"
#include "watchdog/rules/lossless_class_shared.hpp"
#include "watchdog/rules/lossless_drop.hpp"
#include "watchdog/rules/nic_driver_error.hpp"
#include "watchdog/rules/nic_health_reporter.hpp"
#include "watchdog/rules/nic_overheating.hpp"
#include "watchdog/rules/nic_unresponsive.hpp"
#include "watchdog/rules/optics_degraded.hpp"
#include "watchdog/rules/pause_storm.hpp"
#include "watchdog/rules/pcie_errors.hpp"
#include "watchdog/rules/pfc_protection_off.hpp"
#include "watchdog/rules/port_degraded.hpp"
#include "watchdog/rules/port_down.hpp"
#include "watchdog/rules/roce_packet_loss.hpp"

namespace fabricmon::watchdog {
namespace {

const RuleDef* const kRuleTable[] = {
    &kPauseStormRule,
    &kDcqcnMisconfigRule,
    &kLinkFlapRule,
    &kLinkErrorsRule,
    &kLinkBerRule,
    &kPortDegradedRule,
    &kRocePacketLossRule,
    &kLosslessDropRule,
    &kPortDownRule,
    &kDeviceMissingRule,
    &kPfcProtectionOffRule,
    &kGlobalPauseRule,
    &kLosslessClassSharedRule,
    &kIbCongestionRule,
    &kPcieErrorsRule,
    &kNicDriverErrorRule,
    &kOpticsDegradedRule,
    &kNicOverheatingRule,
    &kNicHealthReporterRule,
    &kNicUnresponsiveRule,
};

}  // namespace

std::span<const RuleDef* const> ruleTable() { return kRuleTable; }

const RuleDef* findRule(std::string_view name) {
  for (const RuleDef* rule : kRuleTable) {
    if (rule->name == name) return rule;
  }
  return nullptr;
}

}  // namespace fabricmon::watchdog
