#pragma once
// The configuration as plain values. Every key is documented in docs/configuration.md; the YAML
// loader (config_loader.hpp) fills these and reports every error with file:line:column.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/rule_settings.hpp"

namespace fabricmon {

using namespace std::chrono_literals;

/// Default listen address. The Prometheus exporter port range 9100-9999 is fully allocated, so the
/// port sits outside it (docs/configuration.md).
inline constexpr std::string_view kDefaultListen = ":19110";
inline constexpr std::string_view kDefaultConfigPath = "/etc/fabricmon/fabricmon.yaml";

struct WebConfig {
  std::string listen{kDefaultListen};  ///< HOST:PORT; ":PORT" = all addresses; port 0 = any free port
  /// Prometheus exporter-toolkit web-config file (TLS, basic auth); unset = plain HTTP, no auth.
  /// Only the path is checked here; exporters/http_security.hpp loads and validates the file itself.
  std::optional<std::string> configFile;
  /// Where config_file was set ("fabricmon.yaml:4:16"), so errors inside the web-config can name
  /// the key that pointed to it; empty when set by no file. Not part of equality: the same
  /// settings on another line are the same configuration.
  struct Origin {
    std::string text;
    bool operator==(const Origin&) const { return true; }
  } configFileOrigin;
  /// Open connections at most; at the limit the longest-waiting connection without a request is
  /// evicted (docs/security.md).
  unsigned maxConnections = 64;
  Duration headerTimeout = 5s;  ///< a new connection's first request must arrive whole within this
  Duration idleTimeout = 60s;   ///< a kept-alive connection's next request likewise

  bool operator==(const WebConfig&) const = default;
};

/// Writing the exposition to a file for node_exporter's textfile collector.
struct TextfileConfig {
  std::optional<std::string> path;  ///< unset = off; the file name ends in ".prom"
  Duration interval = 15s;          ///< how often the file is rewritten

  bool operator==(const TextfileConfig&) const = default;
};

/// The watchdog's state file (docs/deployment.md, "State directory"): what must survive a restart
/// or an upgrade (link_ber's BER baselines, the recurrence history of findings).
struct StateConfig {
  /// unset = `$STATE_DIRECTORY/state.json` when systemd gives the unit a state directory
  /// (StateDirectory=fabricmon: /var/lib/fabricmon), else no state file.
  std::optional<std::string> path;
  Duration interval = 5min;  ///< how often the file is rewritten (and once at shutdown)

  bool operator==(const StateConfig&) const = default;
};

/// The node's recent-sample window behind /api/v1/window, the status page's charts and triage
/// (window/recent_samples.hpp).
struct WindowConfig {
  bool enabled = true;
  Duration length = std::chrono::minutes(10);  ///< 0 = off, as enabled: false

  bool on() const { return enabled && length.count() > 0; }
  bool operator==(const WindowConfig&) const = default;
};

struct SourcesConfig {
  std::string sysfsRoot = "/sys";
  std::optional<std::string> ethtoolDir;  ///< unset = real SIOCETHTOOL
  std::optional<std::string> dcbDir;      ///< unset = real rtnetlink
  std::optional<std::string> moduleEepromDir;  ///< unset = ethtool netlink, then the ioctl
  std::optional<std::string> fecDir;      ///< unset = real ethtool netlink (FEC statistics, link modes)
  /// Counter files kept open between polls, process-wide; beyond it they are opened per read.
  unsigned maxOpenFiles = 4096;
  /// Each MAD's response timeout and the tries after a timeout (peer_port, docs/configuration.md).
  Duration madTimeout = 250ms;
  unsigned madRetries = 1;
  /// LLDP neighbours (lldp_neighbors): lldpcli run against lldpd's control socket, killed after
  /// lldpTimeout; or, when lldpFile is set, that file's `lldpcli -f json0` text (the demo, fixtures).
  std::string lldpcli = "/usr/sbin/lldpcli";
  std::optional<std::string> lldpSocket;  ///< unset = lldpcli's default, /run/lldpd.socket
  std::optional<std::string> lldpFile;
  Duration lldpTimeout = 1s;  ///< lldpcli answers in ~10 ms; 1 s stays inside the 1.5 s shutdown grace
  /// The kernel log (nic_driver_log): the kmsg device, or, when kmsgFile is set, a file of
  /// kmsg-formatted records (the demo, tests). Records written from user space (any facility but
  /// the kernel's) are refused unless kmsgAcceptUserRecords: anyone who may write /dev/kmsg could
  /// otherwise fake a NIC failure. Tests that write /dev/kmsg turn it on.
  std::string kmsg = "/dev/kmsg";
  std::optional<std::string> kmsgFile;
  bool kmsgAcceptUserRecords = false;

  bool operator==(const SourcesConfig&) const = default;
};

struct PollConfig {
  Duration interval = 1s;             ///< fast collectors (hw counters, link, PFC)
  Duration slowInterval = 10s;        ///< PMA counters (a MAD per file on hardware), config readouts
  Duration discoveryInterval = 10s;   ///< rescan for devices that appear or vanish
  Duration staleAfter = 30s;          ///< a collector's values leave /metrics after this without a good run
  /// How often a kept counter file is read when nothing on the node reads its series at every
  /// poll, only /metrics (collectors/poll_demand.hpp). Unset: every file at every poll.
  std::optional<Duration> exportOnlyInterval;

  bool operator==(const PollConfig&) const = default;
};

struct DevicesConfig {
  std::vector<std::string> include;  ///< regexes on RDMA device names; empty = all
  std::vector<std::string> exclude;  ///< regexes; wins over include

  bool operator==(const DevicesConfig&) const = default;
};

/// Port roles and rails (docs/configuration.md, "topology"). A port near a GPU is compute whatever
/// these say; the lists name the others (regexes on the whole interface or device name).
struct TopologyConfig {
  std::vector<std::string> compute;
  std::vector<std::string> storage;
  /// Onboard (eno*), USB (enx*) and conventionally named management interfaces.
  std::vector<std::string> management{"eno[0-9].*", "enx.*", "mgmt.*", "bmc.*"};
  /// Rail i = the ports matching entry i (first match wins); empty = by the GPU each compute NIC serves.
  std::vector<std::string> rails;
  bool operator==(const TopologyConfig&) const = default;
};

struct NetdevConfig {
  std::vector<std::string> include;  ///< regexes: extra interfaces besides those behind RDMA ports

  bool operator==(const NetdevConfig&) const = default;
};

struct CollectorConfig {
  std::string name;
  bool enabled = true;
  std::optional<Duration> interval;  ///< overrides the collector's default cadence

  bool operator==(const CollectorConfig&) const = default;
};

struct EthtoolConfig {
  /// Regexes of ethtool stat names exported as fabricmon_ethtool_stat_total (cardinality control).
  std::vector<std::string> statsInclude;

  bool operator==(const EthtoolConfig&) const = default;
};

/// The QoS the node is meant to have; the watchdog compares the real configuration with it.
struct QosConfig {
  unsigned rocePriority = 3;
  unsigned roceDscp = 26;
  unsigned cnpPriority = 6;
  unsigned cnpDscp = 48;
  bool dcqcnEnabled = true;  ///< false: the site runs PFC without DCQCN on purpose

  bool operator==(const QosConfig&) const = default;
};

struct LogConfig {
  std::string level = "info";  ///< trace, debug, info, warn, error

  bool operator==(const LogConfig&) const = default;
};

/// A finding of the same rule and subject that starts `count` times within `window` is recurring
/// (docs/rules.md, "Recurring findings").
struct RecurrenceConfig {
  unsigned count = 3;
  Duration window = 1h;

  bool operator==(const RecurrenceConfig&) const = default;
};

struct WatchdogConfig {
  Duration peakWindow = 60s;  ///< window of the peak pause-fraction / ECN / CNP gauges
  unsigned minSamples = 2;    ///< samples a series needs before any rule judges it
  RecurrenceConfig recurrence;
  /// Judge management ports (fabricmon_port_topology_info role="management") with the rules too;
  /// they are always exported.
  bool judgeManagement = false;
  /// Each rule's settings, defined by the rule itself (watchdog/rules/<rule>.hpp); docs/rules.md
  /// gives the source of every default.
  RuleSettingsSet rules;

  bool operator==(const WatchdogConfig&) const = default;
};

/// Pushing the watchdog's findings to Alertmanager's v2 API (docs/deployment.md). Off while `urls`
/// is empty. The TLS and auth keys mirror Prometheus' alertmanager http_config; secrets are read
/// from files when the pusher starts (and on every reload), never kept in this file.
struct AlertmanagerConfig {
  std::vector<std::string> urls;         ///< base URLs (http://am:9093); every one gets every alert
  Duration timeout = 10s;                ///< per request
  Duration resendInterval = 1min;        ///< active alerts are re-sent this often
  std::string job = "fabricmon";         ///< the `job` label Prometheus would add
  std::optional<std::string> instance;   ///< the `instance` label; unset = HOSTNAME:PORT of web.listen
  std::optional<std::string> caFile, certFile, keyFile;
  bool insecureSkipVerify = false;
  std::optional<std::string> username, passwordFile;  ///< basic auth
  std::optional<std::string> bearerTokenFile;

  bool enabled() const { return !urls.empty(); }
  bool operator==(const AlertmanagerConfig&) const = default;
};

/// The slurm_jobs collector (docs/configuration.md, "slurm_jobs"): where it finds this node's jobs
/// without asking slurmctld.
struct SlurmJobsConfig {
  std::string spoolDir = "/var/spool/slurmd";  ///< SlurmdSpoolDir (slurm.conf); Slurm's default
  std::string cgroupRoot = "/sys/fs/cgroup";   ///< below it: v1 */slurm/uid_*/job_*, v2 **/slurmstepd.scope/job_*
  std::string procRoot = "/proc";              ///< the users owning the jobs' tasks
  /// dcgm-exporter's HPC job mapping directory (a file per GPU index naming its jobs), written by
  /// the site's prolog/epilog; unset = no per-port jobs.
  std::optional<std::string> gpuJobMapDir;

  bool operator==(const SlurmJobsConfig&) const = default;
};

/// `fabricmon health-check` (docs/deployment.md, "Scheduler integration"): how it reaches the local
/// daemon, which findings make the node unfit for jobs, and how it drains the node in Slurm.
struct HealthCheckConfig {
  /// The daemon's base URL; unset = http://127.0.0.1:<port of web.listen> (https when the
  /// web.config_file asks for TLS; the certificate is then checked against tls_config.ca_file).
  std::optional<std::string> url;
  /// Whole run against the daemon (both requests); node-problem-detector kills a plugin after its
  /// `timeout` (5 s by default), so the verdict must come well before that.
  Duration timeout = 2s;
  /// Rules whose findings make the node unfit for jobs: a port that is down or gone, a storm that
  /// stops a lossless class, a flapping link, and the physical-layer and NIC-health rules
  /// (docs/deployment.md argues each). Names of rules this build does not have never match.
  std::vector<std::string> drainRules{"port_down",        "device_missing",  "pause_storm",      "link_flap",
                                      "link_ber",         "optics_degraded", "nic_driver_error", "nic_unresponsive",
                                      "pcie_errors"};
  /// Severities of those rules that count (info, warning, critical).
  std::vector<std::string> drainSeverities{"critical"};
  /// Characters of the one-line verdict at most: node-problem-detector's custom plugin monitor cuts
  /// a plugin's output at `max_output_length`, 80 by default.
  unsigned maxOutput = 80;
  std::optional<std::string> caFile, certFile, keyFile;
  bool insecureSkipVerify = false;
  std::optional<std::string> username, passwordFile;  ///< basic auth
  std::optional<std::string> bearerTokenFile;
  struct Slurm {
    std::string scontrol = "/usr/bin/scontrol";  ///< run without a shell or PATH: slurmd gives none
    /// The node's Slurm name; unset = $SLURMD_NODENAME (slurmd sets it for HealthCheckProgram), else
    /// the short host name (what slurmd itself assumes without -N).
    std::optional<std::string> nodeName;
    Duration timeout = 10s;  ///< each scontrol call
    bool operator==(const Slurm&) const = default;
  } slurm;

  bool operator==(const HealthCheckConfig&) const = default;
};

struct Config {
  WebConfig web;
  TextfileConfig textfile;
  StateConfig state;
  SourcesConfig sources;
  PollConfig poll;
  DevicesConfig devices;
  NetdevConfig netdev;
  TopologyConfig topology;
  std::vector<CollectorConfig> collectors;  ///< only those named in the file
  /// The settings collectors declare themselves (their registry entry's bindSettings), by type; a
  /// collector reads its own with collectorSettings.get<Settings>() (defaults when the file is silent).
  RuleSettingsSet collectorSettings;
  EthtoolConfig ethtool;
  QosConfig qos;
  LogConfig log;
  WatchdogConfig watchdog;
  AlertmanagerConfig alertmanager;
  HealthCheckConfig healthCheck;
  SlurmJobsConfig slurmJobs;
  WindowConfig window;

  /// The entry for a collector, or nullptr when the file does not mention it.
  const CollectorConfig* collector(std::string_view name) const {
    for (const auto& c : collectors) {
      if (c.name == name) return &c;
    }
    return nullptr;
  }

  /// Field by field (every struct here has one): tests, and a reload can tell whether anything changed.
  bool operator==(const Config&) const = default;
};

}  // namespace fabricmon
