#include "daemon/config_schema.hpp"

#include "collectors/registry.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

const ConfigSchema& configSchema() {
  static const ConfigSchema schema = [] {
    ConfigSchema s;
    for (const watchdog::RuleDef* rule : watchdog::ruleTable()) s.rules.push_back(rule->schema());
    for (const CollectorEntry* c : collectorRegistry()) {
      s.collectors.push_back({c->name, c->bindSettings, c->ownInterval, c->cadence == Cadence::kSlow});
    }
    return s;
  }();
  return schema;
}

}  // namespace fabricmon
