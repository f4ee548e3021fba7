#include "daemon/cli.hpp"

#include <charconv>
#include <optional>
#include <regex>

#include "config/command_line.hpp"
#include "config/config_loader.hpp"
#include "config/duration.hpp"
#include "config/listen_address.hpp"

namespace fabricmon {

namespace {

Error usageError(const std::string& message) { return Error{message + " (see fabricmon --help)", EINVAL}; }

bool isLogLevel(const std::string& s) {
  return s == "trace" || s == "debug" || s == "info" || s == "warn" || s == "error";
}

/// "12" -> 12; anything but decimal digits that fit an unsigned -> nullopt.
std::optional<unsigned> wholeNumber(const std::string& text) {
  unsigned n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

std::string usageText() {
  return R"(Usage:
  fabricmon [run] [options]              run the daemon (default)
  fabricmon demo [--scenario NAME] [--vendor mlx5|bnxt|ice|ionic] [--fault-port N]
                 [--pod NAME] [--node-index N] [options]
                                         run the daemon on a built-in simulated GPU node
  fabricmon check-config FILE            validate a config file (exit 0, or print every error and exit 2)
  fabricmon triage [--node URL | --prometheus URL --selector SEL] [--since DUR] [--json]
                                         walk the runbook and name the most likely cause
                                         (fabricmon triage --help; exit 0 ok, 1 wrong, 2 no source)
  fabricmon health-check [--slurm [--dry-run]] [--json] [--config FILE]
                                         one-line verdict of the local daemon for schedulers and
                                         node-problem-detector (exit 0 ok, 1 problem, 2 unknown);
                                         --slurm drains/resumes this node, --dry-run only prints
  fabricmon --version | --help

Options (a flag overrides the config file's value):
  --config FILE              YAML config (default /etc/fabricmon/fabricmon.yaml if it exists)
  --listen HOST:PORT         HTTP endpoint (default :19110; port 0 picks a free port)
  --sysfs-root DIR           read sysfs below DIR instead of /sys
  --ethtool-dir DIR          read `ethtool -S` text files from DIR instead of the kernel
  --dcb-dir DIR              read DCB YAML files from DIR instead of rtnetlink
  --module-eeprom-dir DIR    read transceiver EEPROM images <DIR>/<if>.bin instead of the kernel
  --fec-dir DIR              read FEC YAML files from DIR instead of ethtool netlink
  --netdev-include REGEX     extra network interfaces to monitor (repeatable)
  --poll-interval DUR        base sampling period (250ms, 1s, 2m; default 1s)
  --log-level LEVEL          trace, debug, info, warn, error (default info)
  --scenario NAME            demo scenario (default healthy)
  --vendor NAME              demo NIC vendor: mlx5 (default), bnxt, ice, ionic
  --fault-port N             demo: the RoCE port (0-7) the scenario hits (default 0)
  --pod NAME                 demo: LLDP neighbours are NAME-leaf<i> (default su1)
  --node-index N             demo: ... on switch port swp<N> (default 1)

Exit codes: 0 clean shutdown, 2 bad usage or invalid config, 1 any other fatal error.
)";
}

Result<CliOptions> parseCommandLine(const std::vector<std::string>& args) {
  CliOptions opts;
  size_t i = 0;
  if (i < args.size() && !args[i].empty() && args[i][0] != '-') {
    const std::string& cmd = args[i];
    if (cmd == "run") {
      opts.command = Command::kRun;
    } else if (cmd == "demo") {
      opts.command = Command::kDemo;
    } else if (cmd == "check-config") {
      opts.command = Command::kCheckConfig;
      if (i + 1 >= args.size()) return usageError("check-config needs a FILE");
      opts.configPath = args[i + 1];
      if (i + 2 != args.size()) return usageError("check-config takes exactly one FILE");
      return opts;
    } else if (cmd == "health-check") {
      opts.command = Command::kHealthCheck;
      opts.healthCheckArgs.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      return opts;
    } else if (cmd == "triage") {
      opts.command = Command::kTriage;
      opts.triageArgs.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      return opts;
    } else {
      return usageError("unknown command '" + cmd + "'");
    }
    ++i;
  }
  FlagReader flags(args, i);
  while (flags.next()) {
    const std::string& flag = flags.flag();
    if (flag == "--help" || flag == "-h") {
      opts.command = Command::kHelp;
      return opts;
    }
    if (flag == "--version") {
      opts.command = Command::kVersion;
      return opts;
    }
    auto v = flags.value();
    if (!v) return usageError(v.error().message);
    const std::string& val = *v;
    if (flag == "--config") {
      opts.configPath = val;
    } else if (flag == "--listen") {
      if (auto l = parseListen(val); !l) return usageError("--listen: " + l.error().message);
      opts.overrides.listen = val;
    } else if (flag == "--sysfs-root") {
      opts.overrides.sysfsRoot = val;
    } else if (flag == "--ethtool-dir") {
      opts.overrides.ethtoolDir = val;
    } else if (flag == "--dcb-dir") {
      opts.overrides.dcbDir = val;
    } else if (flag == "--module-eeprom-dir") {
      opts.overrides.moduleEepromDir = val;
    } else if (flag == "--fec-dir") {
      opts.overrides.fecDir = val;
    } else if (flag == "--netdev-include") {
      try {
        std::regex check(val);
      } catch (const std::regex_error& e) {
        return usageError("--netdev-include: invalid regex '" + val + "': " + e.what());
      }
      if (!opts.overrides.netdevInclude) opts.overrides.netdevInclude.emplace();
      opts.overrides.netdevInclude->push_back(val);
    } else if (flag == "--poll-interval") {
      auto d = parseDuration(val);
      if (!d) return usageError("--poll-interval: " + d.error().message);
      if (*d < std::chrono::milliseconds(10)) return usageError("--poll-interval must be at least 10ms");
      opts.overrides.pollInterval = *d;
    } else if (flag == "--log-level") {
      if (!isLogLevel(val)) return usageError("--log-level must be trace, debug, info, warn or error");
      opts.overrides.logLevel = val;
    } else if (flag == "--scenario") {
      if (opts.command != Command::kDemo) return usageError("--scenario only applies to demo");
      opts.demo.scenario = val;
    } else if (flag == "--vendor") {
      if (opts.command != Command::kDemo) return usageError("--vendor only applies to demo");
      opts.demo.vendor = val;
    } else if (flag == "--fault-port") {
      if (opts.command != Command::kDemo) return usageError("--fault-port only applies to demo");
      const auto n = wholeNumber(val);
      if (!n) return usageError("--fault-port: expected a port index (0, 1, ...), got '" + val + "'");
      opts.demo.faultPort = *n;
    } else if (flag == "--pod") {
      if (opts.command != Command::kDemo) return usageError("--pod only applies to demo");
      if (val.empty() || val.find_first_of(" /\"\\") != std::string::npos) {
        return usageError("--pod: expected a switch-name prefix such as su1, got '" + val + "'");
      }
      opts.demo.pod = val;
    } else if (flag == "--node-index") {
      if (opts.command != Command::kDemo) return usageError("--node-index only applies to demo");
      const auto n = wholeNumber(val);
      if (!n || *n == 0) return usageError("--node-index: expected 1, 2, ..., got '" + val + "'");
      opts.demo.nodeIndex = *n;
    } else {
      return usageError("unknown option '" + flag + "'");
    }
  }
  return opts;
}

Status checkOverridden(const Config& config, const ConfigSchema& schema) {
  const auto errors = validateConfig(config, schema, "command line");
  if (errors.empty()) return {};
  return usageError(errors.front().key + ": " + errors.front().message);
}

void applyOverrides(const CliOverrides& o, Config& config) {
  if (o.listen) config.web.listen = *o.listen;
  if (o.sysfsRoot) config.sources.sysfsRoot = *o.sysfsRoot;
  if (o.ethtoolDir) config.sources.ethtoolDir = *o.ethtoolDir;
  if (o.dcbDir) config.sources.dcbDir = *o.dcbDir;
  if (o.moduleEepromDir) config.sources.moduleEepromDir = *o.moduleEepromDir;
  if (o.fecDir) config.sources.fecDir = *o.fecDir;
  if (o.netdevInclude) config.netdev.include = *o.netdevInclude;
  if (o.pollInterval) config.poll.interval = *o.pollInterval;
  if (o.logLevel) config.log.level = *o.logLevel;
}

}  // namespace fabricmon
