#pragma once
// pfc_protection_off: its settings (defaults and config keys, `watchdog.rules.pfc_protection_off`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct PfcProtectionOffRule {
  bool enabled = true;
  /// Also warn when the NIC reports no storm-prevention timeout at all (the driver has no
  /// pfc-prevention-tout tunable) on an interface with PFC on: for fleets whose NICs all have it.
  bool requireSupport = false;

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.flag("require_support", requireSupport);
  }

  bool operator==(const PfcProtectionOffRule&) const = default;
};

namespace watchdog {
extern const RuleDef kPfcProtectionOffRule;
}  // namespace watchdog

}  // namespace fabricmon
