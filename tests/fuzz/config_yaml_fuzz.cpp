// The config file (config/config_loader.hpp) with the daemon's schema (the watchdog's rule table,
// the collector registry's names), the web-config (config/web_config.hpp), and the scalar parsers
// they use (durations, listen addresses). First byte: which.
#include <cstdint>
#include <string>
#include <string_view>

#include "config/config_loader.hpp"
#include "config/duration.hpp"
#include "config/listen_address.hpp"
#include "config/web_config.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "watchdog/rules/rule.hpp"

using namespace fabricmon;

namespace {

const ConfigSchema& schema() {
  static const ConfigSchema s = [] {
    ConfigSchema out;
    for (const watchdog::RuleDef* rule : watchdog::ruleTable()) out.rules.push_back(rule->schema());
    // The names of collectors/registry.cpp, read from it when cmake configures (the registry
    // itself would pull every collector into this build).
    for (std::string_view name : {FABRICMON_FUZZ_COLLECTORS}) out.collectors.push_back({name, nullptr});
    return out;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(fuzz::asText(data + 1, size - 1));
  switch (data[0] % 3) {
    case 0: {
      const ConfigLoad load = loadConfigText(text, "fuzz.yaml", schema());
      if (load.ok()) FUZZ_CHECK(validateConfig(load.config, schema(), "fuzz.yaml").empty());
      for (const ConfigError& e : load.errors) (void)e.format();
      break;
    }
    case 1:
      // A directory that does not exist: file names in the input resolve below it.
      (void)loadWebConfigText(text, "/nonexistent-fabricmon-fuzz/web.yml");
      break;
    case 2: {
      if (auto d = parseDuration(text)) (void)formatDuration(*d);
      if (auto l = parseListen(text)) {
        auto again = parseListen(formatListen(*l));
        FUZZ_CHECK(again);
      }
      break;
    }
  }
  return 0;
}
