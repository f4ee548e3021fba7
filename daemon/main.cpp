// fabricmon: wiring only (docs/architecture.md, "Threads"). The work happens in App and the
// libraries.
#include <spdlog/spdlog.h>
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "config/config_loader.hpp"
#include "daemon/alertmanager_target.hpp"
#include "daemon/app.hpp"
#include "daemon/cli.hpp"
#include "daemon/config_schema.hpp"
#include "daemon/health_check.hpp"
#include "daemon/logging.hpp"
#include "daemon/version.hpp"
#include "exporters/http_security.hpp"
#include "triage/command.hpp"

using namespace fabricmon;

namespace {

/// Counter files stay open (about 100 per NIC), so a large node outgrows the usual soft limit of
/// 1024 descriptors when started by hand; the systemd unit sets LimitNOFILE itself.
void raiseFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

/// glibc gives each thread that allocates its own arena (up to 8 per core) and keeps freed memory
/// in it; the daemon's ~20 threads allocated into ~15 arenas. Two hold the daemon's allocation rate
/// (a few thousand a second, mostly on the collector and pipeline threads) without contention and
/// keep less freed memory (docs/benchmarks.md, "Memory per component").
///
/// The mmap threshold is fixed at glibc's initial 128 KiB. Left dynamic, glibc raises it to the
/// size of each mmapped block freed (up to 32 MiB; mallopt(3), "M_MMAP_THRESHOLD"): after the first
/// scrape's rendered text (~3 MiB at 128 devices) every later render, gzip buffer and large batch
/// came from an arena, where a small block allocated after it pins the pages it leaves free. Fixed,
/// they are mapped and unmapped whole: 2-5 MiB less RSS at 128 devices (docs/benchmarks.md, "Eighth
/// pass"). MALLOC_ARENA_MAX or MALLOC_MMAP_THRESHOLD_ in the environment wins, for a site that
/// measured otherwise.
void tuneMalloc() {
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) ::mallopt(M_ARENA_MAX, 2);
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr) ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
}

int printConfigErrors(const ConfigLoad& load) {
  for (const auto& e : load.errors) std::fprintf(stderr, "%s\n", e.format().c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  auto cli = parseCommandLine(std::vector<std::string>(argv + 1, argv + argc));
  if (!cli) {
    std::fprintf(stderr, "fabricmon: %s\n", cli.error().message.c_str());
    return 2;
  }
  switch (cli->command) {
    case Command::kHelp:
      std::fputs(usageText().c_str(), stdout);
      return 0;
    case Command::kVersion:
      std::printf("fabricmon %s (revision %s)\n", std::string(kVersion).c_str(), std::string(kRevision).c_str());
      return 0;
    case Command::kCheckConfig: {
      const auto load = loadConfigFile(*cli->configPath, configSchema());
      if (!load.ok()) return printConfigErrors(load);
      // The web-config (TLS, basic auth) is part of what the service needs to start.
      if (auto options = serverOptions(load.config); !options) {
        std::fprintf(stderr, "%s\n", options.error().message.c_str());
        return 2;
      }
      // So are the Alertmanager push's secret files.
      if (load.config.alertmanager.enabled()) {
        if (auto target = alertmanagerTarget(load.config, 0); !target) {
          std::fprintf(stderr, "%s\n", target.error().message.c_str());
          return 2;
        }
      }
      // Rules added in later versions may be named already (one config for a mixed fleet): a
      // warning, not an error.
      for (const std::string& rule : load.config.healthCheck.drainRules) {
        const auto& rules = configSchema().rules;
        if (std::none_of(rules.begin(), rules.end(), [&](const RuleSchema& r) { return r.name == rule; })) {
          std::fprintf(stderr, "%s: warning: health_check.drain_rules: no rule \"%s\" in this build (never matches)\n",
                       cli->configPath->c_str(), rule.c_str());
        }
      }
      std::printf("%s: ok\n", cli->configPath->c_str());
      return 0;
    }
    case Command::kTriage:
      return triage::runTriage(cli->triageArgs);
    case Command::kHealthCheck:
      return health::runHealthCheck(cli->healthCheckArgs);
    case Command::kRun:
    case Command::kDemo:
      break;
  }

  Config config;
  if (cli->configPath || std::filesystem::exists(kDefaultConfigPath)) {
    const std::string path = cli->configPath.value_or(std::string(kDefaultConfigPath));
    auto load = loadConfigFile(path, configSchema());
    if (!load.ok()) return printConfigErrors(load);
    config = std::move(load.config);
    if (!cli->configPath) cli->configPath = path;  // reload re-reads the same file
  }
  applyOverrides(cli->overrides, config);
  if (Status st = checkOverridden(config, configSchema()); !st) {
    std::fprintf(stderr, "fabricmon: %s\n", st.error().message.c_str());
    return 2;
  }
  setupLogging(config.log.level);
  raiseFileLimit();
  tuneMalloc();

  int code = 1;
  bool leftBehind = false;
  {
    App app(std::move(config), *cli);
    code = app.run();
    leftBehind = app.leftThreadsBehind();
  }
  if (leftBehind) {
    // A collector thread is still blocked in the kernel: skip static destructors it might race.
    spdlog::shutdown();
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}
