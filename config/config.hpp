#pragma once
// The configuration as plain values. Every key is documented in docs/configuration.md; the YAML
// loader (config_loader.hpp) fills these and reports every error with file:line:column.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabricmon {

using Duration = std::chrono::milliseconds;
using namespace std::chrono_literals;

/// Default listen address. The Prometheus exporter port range 9100-9999 is fully allocated, so the
/// port sits outside it (docs/configuration.md).
inline constexpr std::string_view kDefaultListen = ":19110";
inline constexpr std::string_view kDefaultConfigPath = "/etc/fabricmon/fabricmon.yaml";

/// Names of the collectors config may refer to (`collectors.<name>`); must match the registry.
inline constexpr std::string_view kCollectorNames[] = {
    "rdma_port", "pma_counters", "hw_counters", "netdev_link",
    "ethtool_pfc", "dcqcn_config", "dcb_config", "peer_port",
};

struct WebConfig {
  std::string listen{kDefaultListen};  ///< HOST:PORT; ":PORT" = all addresses; port 0 = any free port
  /// Prometheus exporter-toolkit web-config file (TLS, basic auth); unset = plain HTTP, no auth.
  /// Only the path is checked here; exporters/web_config.hpp loads and validates the file itself.
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

struct SourcesConfig {
  std::string sysfsRoot = "/sys";
  std::optional<std::string> ethtoolDir;  ///< unset = real SIOCETHTOOL
  std::optional<std::string> dcbDir;      ///< unset = real rtnetlink
  /// Counter files kept open between polls, process-wide; beyond it they are opened per read.
  unsigned maxOpenFiles = 4096;
  /// Each MAD's response timeout and the tries after a timeout (peer_port, docs/configuration.md).
  Duration madTimeout = 250ms;
  unsigned madRetries = 1;

  bool operator==(const SourcesConfig&) const = default;
};

struct PollConfig {
  Duration interval = 1s;             ///< fast collectors (hw counters, link, PFC)
  Duration slowInterval = 10s;        ///< PMA counters (a MAD per file on hardware), config readouts
  Duration discoveryInterval = 10s;   ///< rescan for devices that appear or vanish
  Duration staleAfter = 30s;          ///< a collector's values leave /metrics after this without a good run

  bool operator==(const PollConfig&) const = default;
};

struct DevicesConfig {
  std::vector<std::string> include;  ///< regexes on RDMA device names; empty = all
  std::vector<std::string> exclude;  ///< regexes; wins over include

  bool operator==(const DevicesConfig&) const = default;
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

// ---- watchdog rules (docs/rules.md gives the source of every default) ----

struct PauseStormRule {
  bool enabled = true;
  double pauseFraction = 0.99;       ///< SONiC PFC watchdog: paused >99 % of the interval
  unsigned forSamples = 2;           ///< consecutive polls before it fires
  Duration restoration = 2s;         ///< pause must stay below the threshold this long to clear
  double sustainedFraction = 0.10;   ///< reason=sustained_pause: 5-minute pause fraction above this
  Duration sustainedWindow = 5min;
  double clearFraction = 0.01;       ///< pause counts as stopped below this fraction (restoration)
  Duration eventHold = 60s;          ///< NIC storm-event findings stay active this long after the last event

  bool operator==(const PauseStormRule&) const = default;
};

struct DcqcnMisconfigRule {
  bool enabled = true;
  Duration window = 60s;             ///< for the counter-based checks (ECN without CNP, ...)
  double pfcWithoutEcnPauseFraction = 0.01;
  /// The counter signatures (ECN marks with no CNP sent, CNPs ignored with none handled) need at
  /// least this many marks (ignored CNPs) in the window: a few at its edge prove nothing.
  unsigned minSignaturePackets = 100;

  bool operator==(const DcqcnMisconfigRule&) const = default;
};

struct LinkFlapRule {
  bool enabled = true;
  unsigned downEvents = 3;
  Duration window = 10min;
  Duration quiet = 10min;            ///< no down event for this long clears it

  bool operator==(const LinkFlapRule&) const = default;
};

struct LinkErrorsRule {
  bool enabled = true;
  // Per-hour limits, from infiniband-diags etc/error_thresholds (10 per check).
  double symbolErrorsPerHour = 10;
  double linkErrorRecoveryPerHour = 10;
  double receiveErrorsPerHour = 10;
  double localLinkIntegrityErrorsPerHour = 10;
  double berLimit = 1e-12;           ///< post-FEC bit error rate target
  Duration berWindow = 10min;
  Duration window = 60min;           ///< sliding window of the per-hour limits (limit scaled to it)

  bool operator==(const LinkErrorsRule&) const = default;
};

struct PortDegradedRule {
  bool enabled = true;
  std::optional<double> expectedRateGbps;  ///< unset: compare with the node's most common rate
  Duration notActiveFor = 30s;

  bool operator==(const PortDegradedRule&) const = default;
};

struct RocePacketLossRule {
  bool enabled = true;
  Duration window = 5min;
  double localAckTimeoutCriticalPerSecond = 1.0;
  Duration criticalWindow = 10s;     ///< window of the local-ACK-timeout rate (critical)

  bool operator==(const RocePacketLossRule&) const = default;
};

struct LosslessDropRule {
  bool enabled = true;
  Duration clearAfter = 5min;        ///< no new drop for this long clears it

  bool operator==(const LosslessDropRule&) const = default;
};

/// ib_congestion: the share of time a port had data and no credits, from PortXmitWait (docs/rules.md).
struct IbCongestionRule {
  bool enabled = true;
  double fraction = 0.10;       ///< waiting more than this share of the window fires it
  double clearFraction = 0.05;  ///< and it clears below this
  Duration window = 60s;        ///< the share is judged over this window
  unsigned forSamples = 2;      ///< consecutive judgements above the threshold
  /// Port time one PortXmitWait tick stands for, in bytes at the link's rate: NVIDIA Quantum
  /// switches count every 8 bytes of port time (PortSamplesControl.Tick = 7).
  double bytesPerTick = 8;

  bool operator==(const IbCongestionRule&) const = default;
};

struct WatchdogConfig {
  Duration peakWindow = 60s;  ///< window of the peak pause-fraction / ECN / CNP gauges
  unsigned minSamples = 2;    ///< samples a series needs before any rule judges it
  PauseStormRule pauseStorm;
  DcqcnMisconfigRule dcqcnMisconfig;
  LinkFlapRule linkFlap;
  LinkErrorsRule linkErrors;
  PortDegradedRule portDegraded;
  RocePacketLossRule rocePacketLoss;
  LosslessDropRule losslessDrop;
  IbCongestionRule ibCongestion;

  bool operator==(const WatchdogConfig&) const = default;
};

struct Config {
  WebConfig web;
  TextfileConfig textfile;
  SourcesConfig sources;
  PollConfig poll;
  DevicesConfig devices;
  NetdevConfig netdev;
  std::vector<CollectorConfig> collectors;  ///< only those named in the file
  EthtoolConfig ethtool;
  QosConfig qos;
  LogConfig log;
  WatchdogConfig watchdog;

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
