#pragma once
// The command line of docs/contract.md §1. Parsing never exits: errors come back as values.

#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "daemon/demo_options.hpp"
#include "model/result.hpp"

namespace fabricmon {

enum class Command { kRun, kDemo, kCheckConfig, kTriage, kHealthCheck, kVersion, kHelp };

/// Flags that override config keys (a flag wins over the file).
struct CliOverrides {
  std::optional<std::string> listen;
  std::optional<std::string> sysfsRoot;
  std::optional<std::string> ethtoolDir;
  std::optional<std::string> dcbDir;
  std::optional<std::string> moduleEepromDir;
  std::optional<std::string> fecDir;
  std::optional<std::vector<std::string>> netdevInclude;  ///< replaces netdev.include when given
  std::optional<Duration> pollInterval;
  std::optional<std::string> logLevel;
};

struct CliOptions {
  Command command = Command::kRun;
  std::optional<std::string> configPath;  ///< --config, or the FILE of check-config
  DemoOptions demo;                       ///< demo only: what to simulate
  CliOverrides overrides;
  std::vector<std::string> triageArgs;    ///< triage: its own flags (triage/command.hpp)
  std::vector<std::string> healthCheckArgs;  ///< health-check: its own flags (daemon/health_check.hpp)
};

Result<CliOptions> parseCommandLine(const std::vector<std::string>& args);
/// Applies the overrides to a loaded config.
void applyOverrides(const CliOverrides& overrides, Config& config);
/// The loader's cross-field checks (validateConfig) on a config with flags applied: a flag such as
/// --poll-interval cannot break what a file may not (poll.stale_after, the watchdog windows).
Status checkOverridden(const Config& config, const ConfigSchema& schema);
std::string usageText();

}  // namespace fabricmon
