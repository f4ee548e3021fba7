#pragma once
// The names the config file may use, from the one table of each kind: the watchdog's rule table
// (watchdog/rules/rule_table.cpp) and the collector registry (collectors/registry.cpp).

#include "config/rule_settings.hpp"

namespace fabricmon {

const ConfigSchema& configSchema();

}  // namespace fabricmon
