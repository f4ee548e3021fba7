// What a valid file gives: the defaults for what it leaves out, its values for what it sets.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "config/config_loader.hpp"
#include "daemon/config_schema.hpp"
#include "watchdog/rules/dcqcn_misconfig.hpp"
#include "watchdog/rules/device_missing.hpp"
#include "watchdog/rules/global_pause.hpp"
#include "watchdog/rules/link_errors.hpp"
#include "watchdog/rules/link_flap.hpp"
#include "watchdog/rules/lossless_class_shared.hpp"
#include "watchdog/rules/lossless_drop.hpp"
#include "watchdog/rules/pause_storm.hpp"
#include "watchdog/rules/pfc_protection_off.hpp"
#include "watchdog/rules/port_degraded.hpp"
#include "watchdog/rules/port_down.hpp"
#include "watchdog/rules/roce_packet_loss.hpp"

namespace fabricmon {
namespace {

std::string allErrors(const ConfigLoad& load) {
  std::string out;
  for (const auto& e : load.errors) out += e.format() + "\n";
  return out;
}

TEST(Defaults, MatchTheDocumentedValues) {
  // The values docs/configuration.md and fabricmon.yaml promise; a change here is a change of
  // contract.
  const Config c;
  EXPECT_EQ(c.web.listen, ":19110");
  EXPECT_EQ(c.sources.sysfsRoot, "/sys");
  EXPECT_EQ(c.poll.interval, 1s);
  EXPECT_EQ(c.poll.staleAfter, 30s);
  EXPECT_EQ(c.log.level, "info");
  EXPECT_FALSE(c.web.configFile.has_value());  // plain HTTP, no auth
  EXPECT_FALSE(c.textfile.path.has_value());    // no textfile
  EXPECT_EQ(c.textfile.interval, 15s);
  EXPECT_TRUE(c.window.on());
  EXPECT_EQ(c.window.length, std::chrono::minutes(10));
}

TEST(Defaults, TheWindowTurnsOffEitherWay) {
  for (const char* off : {"window: {enabled: false}\n", "window: {length: 0}\n"}) {
    const ConfigLoad load = loadConfigText(off, "w.yaml", configSchema());
    ASSERT_TRUE(load.ok()) << allErrors(load);
    EXPECT_FALSE(load.config.window.on()) << off;
  }
  const ConfigLoad five = loadConfigText("window: {length: 5m}\n", "w.yaml", configSchema());
  ASSERT_TRUE(five.ok()) << allErrors(five);
  EXPECT_EQ(five.config.window.length, std::chrono::minutes(5));
  for (const char* bad : {"window: {length: 5s}\n", "window: {length: 2h}\n", "window: {length: 10}\n",
                          "window: {size: 10m}\n"}) {
    EXPECT_FALSE(loadConfigText(bad, "w.yaml", configSchema()).ok()) << bad;
  }
}

TEST(Defaults, EmptyOrCommentOnlyTextGivesTheDefaults) {
  for (const char* text :
       {"", "\n\n", "# nothing here\n   # still nothing\n", "---\n", "~\n", "poll:\nqos:\n"}) {
    const ConfigLoad load = loadConfigText(text, "empty.yaml", configSchema());
    EXPECT_TRUE(load.ok()) << "text: \"" << text << "\"\n" << allErrors(load);
    EXPECT_EQ(load.config, Config{}) << "text: \"" << text << "\"";
  }
}

TEST(Defaults, TheShippedFileLoadsToExactlyTheBuiltInDefaults) {
  const ConfigLoad load = loadConfigFile(FABRICMON_DEFAULT_CONFIG_FILE, configSchema());
  ASSERT_TRUE(load.ok()) << allErrors(load);
  EXPECT_EQ(load.config, Config{});
}

TEST(Defaults, EveryKeyOfTheShippedFileIsReadFromIt) {
  // A file that said only `{}` would load to the defaults too. Changing any one value of the
  // shipped text must change the loaded config: this proves each key is present and really read.
  std::ifstream in(FABRICMON_DEFAULT_CONFIG_FILE);
  ASSERT_TRUE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  struct Edit {
    const char* from;
    const char* to;
  } const edits[] = {
      {"listen: \":19110\"", "listen: \":19111\""},
      {"enabled: true                # false = no window", "enabled: false                # false = no window"},
      {"length: 10m ", "length: 5m "},
      {"config_file: ~", "config_file: /etc/fabricmon/web.yml"},
      {"path: ~                          # unset (~) = off", "path: /var/lib/node_exporter/fabricmon.prom # off"},
      {"interval: 15s", "interval: 30s"},
      {"sysfs_root: /sys", "sysfs_root: /host/sys"},
      {"ethtool_dir: ~", "ethtool_dir: /e"},
      {"dcb_dir: ~", "dcb_dir: /d"},
      {"module_eeprom_dir: ~", "module_eeprom_dir: /m"},
      {"power_margin_db: 0 ", "power_margin_db: 1 "},
      {"clear_hysteresis_db: 0.5", "clear_hysteresis_db: 1"},
      {"for_readings: 2              # transceiver", "for_readings: 3 # transceiver"},
      {"for_readings: 2              # readings of a reporter", "for_readings: 3 # readings of a reporter"},
      {"clear_after: 300s", "clear_after: 301s"},
      {"sink_db: 3 ", "sink_db: 4 "},
      {"baseline_window: 24h         # the lane's", "baseline_window: 25h # the lane's"},
      {"baseline_min_parts: 12       # parts learned before a lane", "baseline_min_parts: 13 # parts learned before a lane"},
      {"fec_dir: ~", "fec_dir: /f"},
      {"  path: ~                          # unset (~) = $STATE_DIRECTORY", "  path: /s.json # unset (~) = $STATE_DIRECTORY"},
      {"interval: 5m                     # how often the file is rewritten (10s-24h)", "interval: 6m # how often"},
      {"interval: 1s ", "interval: 2s "},
      {"slow_interval: 10s", "slow_interval: 11s"},
      {"export_only_interval: ~", "export_only_interval: 11s"},
      {"discovery_interval: 10s", "discovery_interval: 11s"},
      {"stale_after: 30s", "stale_after: 31s"},
      {"devices:\n  include: []", "devices:\n  include: [x]"},
      {"  exclude: []                      # regexes; a device", "  exclude: [x] # a device"},
      {"netdev:\n  include: []", "netdev:\n  include: [x]"},
      {"collectors: {}", "collectors: {rdma_port: {}}"},
      {"stats_include: []", "stats_include: [x]"},
      {"roce_priority: 3", "roce_priority: 4"},
      {"roce_dscp: 26", "roce_dscp: 24"},
      {"cnp_priority: 6", "cnp_priority: 7"},
      {"cnp_dscp: 48", "cnp_dscp: 46"},
      {"dcqcn_enabled: true", "dcqcn_enabled: false"},
      {"level: info", "level: debug"},
      {"peak_window: 60s", "peak_window: 61s"},
      {"min_samples: 2", "min_samples: 3"},
      {"pause_storm:\n      enabled: true", "pause_storm:\n      enabled: false"},
      {"pause_fraction: 0.99", "pause_fraction: 0.98"},
      {"for_samples: 2", "for_samples: 3"},
      {"restoration: 2s", "restoration: 3s"},
      {"sustained_fraction: 0.1", "sustained_fraction: 0.2"},
      {"sustained_window: 5m", "sustained_window: 6m"},
      {"dcqcn_misconfig:\n      enabled: true", "dcqcn_misconfig:\n      enabled: false"},
      {"      window: 60s", "      window: 61s"},
      {"pfc_without_ecn_pause_fraction: 0.01", "pfc_without_ecn_pause_fraction: 0.02"},
      {"min_signature_packets: 100", "min_signature_packets: 101"},
      {"link_flap:\n      enabled: true", "link_flap:\n      enabled: false"},
      {"down_events: 3", "down_events: 4"},
      {"      window: 10m                  # ... within", "      window: 11m # ... within"},
      {"quiet: 10m", "quiet: 11m"},
      {"link_errors:\n      enabled: true", "link_errors:\n      enabled: false"},
      {"symbol_errors_per_hour: 10", "symbol_errors_per_hour: 11"},
      {"link_error_recovery_per_hour: 10", "link_error_recovery_per_hour: 11"},
      {"receive_errors_per_hour: 10", "receive_errors_per_hour: 11"},
      {"local_link_integrity_errors_per_hour: 10", "local_link_integrity_errors_per_hour: 11"},
      {"ber_limit: 1e-12", "ber_limit: 1e-11"},
      {"ber_window: 10m", "ber_window: 11m"},
      {"link_ber:\n      enabled: true", "link_ber:\n      enabled: false"},
      {"      window: 5m                   # window of the pre-FEC BER", "      window: 6m # window of the pre-FEC BER"},
      {"rs544_correction_limit: 2.4e-4", "rs544_correction_limit: 2.5e-4"},
      {"rs528_correction_limit: 5e-5", "rs528_correction_limit: 6e-5"},
      {"llrs_correction_limit: 5e-5", "llrs_correction_limit: 6e-5"},
      {"baser_correction_limit: 1e-6", "baser_correction_limit: 2e-6"},
      {"margin_factor: 10", "margin_factor: 11"},
      {"uncorrectable_blocks: 0", "uncorrectable_blocks: 1"},
      {"degrade_factor: 10", "degrade_factor: 11"},
      {"degrade_floor: 1e-10", "degrade_floor: 2e-10"},
      {"baseline_window: 24h         # the baseline: median BER", "baseline_window: 25h # the baseline: median BER"},
      {"baseline_min_parts: 12       # parts learned before degrading", "baseline_min_parts: 13 # parts learned before degrading"},
      {"min_bits: 1e9", "min_bits: 2e9"},
      {"baseline_hold: 168h          # a degrading", "baseline_hold: 169h # a degrading"},
      {"baseline_hold: 168h          # a sunk lane", "baseline_hold: 0 # a sunk lane"},
      {"port_degraded:\n      enabled: true", "port_degraded:\n      enabled: false"},
      {"expected_rate_gbps: ~", "expected_rate_gbps: 400"},
      {"not_active_for: 30s", "not_active_for: 31s"},
      {"roce_packet_loss:\n      enabled: true", "roce_packet_loss:\n      enabled: false"},
      {"      window: 5m                   # window of the out-of-sequence", "      window: 6m # window of the out-of-sequence"},
      {"local_ack_timeout_critical_per_second: 1", "local_ack_timeout_critical_per_second: 2"},
      {"lossless_drop:\n      enabled: true", "lossless_drop:\n      enabled: false"},
      {"clear_after: 5m              # clears after no new drop", "clear_after: 6m # clears after no new drop"},
      {"out_of_sequence_alone_is_loss: false", "out_of_sequence_alone_is_loss: true"},
      {"    count: 3\n", "    count: 4\n"},
      {"    window: 1h", "    window: 2h"},
      {"port_down:\n      enabled: true", "port_down:\n      enabled: false"},
      {" hold: 60s", " hold: 61s"},
      {"expected_ports: []", "expected_ports: [mlx5_0/1]"},
      {"exclude: []                  # regexes on", "exclude: [x] # regexes on"},
      {"device_missing:\n      enabled: true", "device_missing:\n      enabled: false"},
      {"grace: 60s", "grace: 61s"},
      {"expected_devices: []", "expected_devices: [mlx5_0]"},
      {"expected_device_count: ~", "expected_device_count: 8"},
      {"expected_port_count: ~", "expected_port_count: 8"},
      {"pfc_protection_off:\n      enabled: true", "pfc_protection_off:\n      enabled: false"},
      {"require_support: false", "require_support: true"},
      {"global_pause:\n      enabled: true\n      window: 1m", "global_pause:\n      enabled: false\n      window: 1m"},
      {"window: 1m                   # 802.3x", "window: 2m # 802.3x"},
      {"min_frames: 1", "min_frames: 2"},
      {"lossless_class_shared:\n      enabled: true", "lossless_class_shared:\n      enabled: false"},
      {"window: 1m                   # the priority's", "window: 2m # the priority's"},
      {"max_non_rdma_share: 0.1", "max_non_rdma_share: 0.2"},
      {"min_bytes_per_second: 1e6", "min_bytes_per_second: 2e6"},
      {"allowed_dscps: ~", "allowed_dscps: [24]"},
      {"pcie_errors:\n      enabled: true", "pcie_errors:\n      enabled: false"},
      {"correctable_per_minute: 8", "correctable_per_minute: 9"},
      {"window: 10m                  # window of that rate", "window: 11m # window of that rate"},
      {"clear_after: 15m             # a non-fatal", "clear_after: 16m # a non-fatal"},
      {"clear_after: 15m             # the warning of new errors", "clear_after: 16m # the warning of new errors"},
      {"nic_overheating:\n      enabled: true", "nic_overheating:\n      enabled: false"},
      {"nic_health_reporter:\n      enabled: true", "nic_health_reporter:\n      enabled: false"},
      {"warning_margin_celsius: 10", "warning_margin_celsius: 5"},
      {"for_readings: 3", "for_readings: 4"},
      {"clear_hysteresis_celsius: 3", "clear_hysteresis_celsius: 2"},
      {"clear_after: 5m              # ... for this long", "clear_after: 6m # ... for this long"},
      {"  url: ~", "  url: https://127.0.0.1:19110"},
      {"timeout: 2s", "timeout: 3s"},
      {"drain_rules: [port_down,", "drain_rules: [link_errors,"},
      {"drain_severities: [critical]", "drain_severities: [critical, warning]"},
      {"max_output: 80", "max_output: 100"},
      {"scontrol: /usr/bin/scontrol", "scontrol: /opt/slurm/bin/scontrol"},
      {"node_name: ~", "node_name: gpu017"},
      {"    timeout: 10s", "    timeout: 5s"},
  };
  for (const auto& e : edits) {
    const std::string_view from(e.from);
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << e.from;
    ASSERT_EQ(text.find(from, at + 1), std::string::npos) << e.from << " is ambiguous";
    std::string edited = text;
    edited.replace(at, from.size(), e.to);
    const ConfigLoad changed = loadConfigText(edited, "edited.yaml", configSchema());
    ASSERT_TRUE(changed.ok()) << e.to << "\n" << allErrors(changed);
    EXPECT_NE(changed.config, Config{}) << e.from << " is not read from the file";
  }
}

TEST(Defaults, AnEmptyCollectorEntryKeepsItsDefaults) {
  const ConfigLoad load =
      loadConfigText("collectors:\n  hw_counters:\n  dcb_config: {enabled: false}\n", "c.yaml", configSchema());
  ASSERT_TRUE(load.ok()) << allErrors(load);
  ASSERT_EQ(load.config.collectors.size(), 2u);
  const CollectorConfig* hw = load.config.collector("hw_counters");
  ASSERT_NE(hw, nullptr);
  EXPECT_TRUE(hw->enabled);
  EXPECT_FALSE(hw->interval.has_value());
  ASSERT_NE(load.config.collector("dcb_config"), nullptr);
  EXPECT_FALSE(load.config.collector("dcb_config")->enabled);
  EXPECT_EQ(load.config.collector("rdma_port"), nullptr);
}

TEST(Defaults, BooleansAcceptTheYamlSpellings) {
  for (const char* yes : {"true", "True", "TRUE", "yes", "on"}) {
    const ConfigLoad load = loadConfigText(
        std::string("qos:\n  dcqcn_enabled: ") + (yes[0] == 't' || yes[0] == 'T' ? "false" : "no") +
            "\nwatchdog:\n  rules:\n    lossless_drop:\n      enabled: " + yes + "\n",
        "b.yaml", configSchema());
    ASSERT_TRUE(load.ok()) << yes << "\n" << allErrors(load);
    EXPECT_FALSE(load.config.qos.dcqcnEnabled);
    EXPECT_TRUE(load.config.watchdog.rules.get<LosslessDropRule>().enabled) << yes;
  }
}

// A file that sets every key to a value other than its default.
constexpr const char* kFullFile = R"(web:
  listen: "127.0.0.1:0"
  config_file: /etc/fabricmon/web-config.yml
textfile:
  path: /var/lib/prometheus/node-exporter/fabricmon.prom
  interval: 1m
sources:
  sysfs_root: /host/sys
  ethtool_dir: /var/lib/fabricmon/ethtool
  dcb_dir: /var/lib/fabricmon/dcb
poll:
  interval: 250ms
  slow_interval: 5s
  discovery_interval: 1m
  stale_after: 1m30s
  export_only_interval: 15s
devices:
  include: ['mlx5_\d+', bnxt_re0]
  exclude: [mlx5_bond_0]
netdev:
  include:
    - ens.*
    - 'bond[0-9]'
collectors:
  pma_counters:
    enabled: false
  hw_counters:
    interval: 500ms
ethtool:
  stats_include: ['rx_vport_.*', tx_packets_phy]
qos:
  roce_priority: 5
  roce_dscp: 24
  cnp_priority: 7
  cnp_dscp: 46
  dcqcn_enabled: false
log:
  level: debug
watchdog:
  peak_window: 2m
  min_samples: 4
  recurrence:
    count: 5
    window: 2h
  rules:
    pause_storm:
      enabled: false
      pause_fraction: 0.95
      for_samples: 3
      restoration: 5s
      sustained_fraction: 0.2
      sustained_window: 10m
    dcqcn_misconfig:
      enabled: false
      window: 2m
      pfc_without_ecn_pause_fraction: 0.05
    link_flap:
      enabled: false
      down_events: 5
      window: 30m
      quiet: 1h
    link_errors:
      enabled: false
      symbol_errors_per_hour: 100
      link_error_recovery_per_hour: 20
      receive_errors_per_hour: 30.5
      local_link_integrity_errors_per_hour: 40
      ber_limit: 1e-15
      ber_window: 1h
    port_degraded:
      enabled: false
      expected_rate_gbps: 400
      not_active_for: 1m
    roce_packet_loss:
      enabled: false
      window: 15m
      local_ack_timeout_critical_per_second: 0.5
      out_of_sequence_alone_is_loss: true
    lossless_drop:
      enabled: false
    port_down:
      enabled: false
      hold: 2m
      expected_ports: [mlx5_0/1, mlx5_1/1]
      exclude: ['mlx5_9/.*']
    device_missing:
      enabled: false
      grace: 5m
      expected_devices: [mlx5_0, mlx5_1]
      expected_device_count: 8
      expected_port_count: 9
    pfc_protection_off:
      enabled: false
      require_support: true
    global_pause:
      enabled: false
      window: 5m
      min_frames: 10
    lossless_class_shared:
      enabled: false
      window: 2m
      max_non_rdma_share: 0.25
      min_bytes_per_second: 1e7
      allowed_dscps: [24, 25]
)";

TEST(FullFile, SetsEveryField) {
  const ConfigLoad load = loadConfigText(kFullFile, "full.yaml", configSchema());
  ASSERT_TRUE(load.ok()) << allErrors(load);
  const Config& c = load.config;

  Config want;
  want.web.listen = "127.0.0.1:0";
  want.web.configFile = "/etc/fabricmon/web-config.yml";
  want.textfile = {"/var/lib/prometheus/node-exporter/fabricmon.prom", 1min};
  want.sources.sysfsRoot = "/host/sys";
  want.sources.ethtoolDir = "/var/lib/fabricmon/ethtool";
  want.sources.dcbDir = "/var/lib/fabricmon/dcb";
  want.poll = {250ms, 5s, 1min, 90s, 15s};
  want.devices = {{"mlx5_\\d+", "bnxt_re0"}, {"mlx5_bond_0"}};
  want.netdev.include = {"ens.*", "bond[0-9]"};
  want.collectors = {{"pma_counters", false, std::nullopt}, {"hw_counters", true, 500ms}};
  want.ethtool.statsInclude = {"rx_vport_.*", "tx_packets_phy"};
  want.qos = {5, 24, 7, 46, false};
  want.log.level = "debug";
  want.watchdog.peakWindow = 2min;
  want.watchdog.minSamples = 4;
  want.watchdog.rules.get<PauseStormRule>() = {false, 0.95, 3, 5s, 0.2, 10min};
  want.watchdog.rules.get<DcqcnMisconfigRule>() = {false, 2min, 0.05};
  want.watchdog.rules.get<LinkFlapRule>() = {false, 5, 30min, 1h};
  want.watchdog.rules.get<LinkErrorsRule>() = {false, 100, 20, 30.5, 40, 1e-15, 1h};
  want.watchdog.rules.get<PortDegradedRule>() = {false, 400.0, 1min};
  want.watchdog.rules.get<RocePacketLossRule>() = {false, 15min, 0.5, 10s, true};
  want.watchdog.rules.get<LosslessDropRule>() = {false};
  want.watchdog.recurrence = {5, 2h};
  want.watchdog.rules.get<PortDownRule>() = {false, 2min, {"mlx5_0/1", "mlx5_1/1"}, {"mlx5_9/.*"}};
  want.watchdog.rules.get<DeviceMissingRule>() = {false, 5min, {"mlx5_0", "mlx5_1"}, 8u, 9u};
  want.watchdog.rules.get<PfcProtectionOffRule>() = {false, true};
  want.watchdog.rules.get<GlobalPauseRule>() = {false, 5min, 10};
  want.watchdog.rules.get<LosslessClassSharedRule>() = {false, 2min, 0.25, 1e7, std::vector<unsigned>{24, 25}};

  // Section by section first, so a failure names the section.
  EXPECT_EQ(c.web, want.web);
  EXPECT_EQ(c.textfile, want.textfile);
  EXPECT_EQ(c.sources, want.sources);
  EXPECT_EQ(c.poll, want.poll);
  EXPECT_EQ(c.devices, want.devices);
  EXPECT_EQ(c.netdev, want.netdev);
  EXPECT_EQ(c.collectors, want.collectors);
  EXPECT_EQ(c.ethtool, want.ethtool);
  EXPECT_EQ(c.qos, want.qos);
  EXPECT_EQ(c.log, want.log);
  EXPECT_EQ(c.watchdog.rules.get<PauseStormRule>(), want.watchdog.rules.get<PauseStormRule>());
  EXPECT_EQ(c.watchdog.rules.get<DcqcnMisconfigRule>(), want.watchdog.rules.get<DcqcnMisconfigRule>());
  EXPECT_EQ(c.watchdog.rules.get<LinkFlapRule>(), want.watchdog.rules.get<LinkFlapRule>());
  EXPECT_EQ(c.watchdog.rules.get<LinkErrorsRule>(), want.watchdog.rules.get<LinkErrorsRule>());
  EXPECT_EQ(c.watchdog.rules.get<PortDegradedRule>(), want.watchdog.rules.get<PortDegradedRule>());
  EXPECT_EQ(c.watchdog.rules.get<RocePacketLossRule>(), want.watchdog.rules.get<RocePacketLossRule>());
  EXPECT_EQ(c.watchdog.rules.get<LosslessDropRule>(), want.watchdog.rules.get<LosslessDropRule>());
  EXPECT_EQ(c.watchdog.recurrence, want.watchdog.recurrence);
  EXPECT_EQ(c.watchdog.rules.get<PortDownRule>(), want.watchdog.rules.get<PortDownRule>());
  EXPECT_EQ(c.watchdog.rules.get<DeviceMissingRule>(), want.watchdog.rules.get<DeviceMissingRule>());
  EXPECT_EQ(c.watchdog.rules.get<PfcProtectionOffRule>(), want.watchdog.rules.get<PfcProtectionOffRule>());
  EXPECT_EQ(c.watchdog.rules.get<GlobalPauseRule>(), want.watchdog.rules.get<GlobalPauseRule>());
  EXPECT_EQ(c.watchdog.rules.get<LosslessClassSharedRule>(), want.watchdog.rules.get<LosslessClassSharedRule>());
  EXPECT_EQ(c, want);
}

TEST(FullFile, EveryValueDiffersFromItsDefault) {
  // Guards the test above: a field left at its default in both the file and `want` would pass
  // unnoticed. Set each section of a default Config from the full file and check it changed.
  const Config full = loadConfigText(kFullFile, "full.yaml", configSchema()).config;
  const Config d;
  EXPECT_NE(full.web.listen, d.web.listen);
  EXPECT_NE(full.web.configFile, d.web.configFile);
  EXPECT_NE(full.textfile.path, d.textfile.path);
  EXPECT_NE(full.textfile.interval, d.textfile.interval);
  EXPECT_NE(full.sources.sysfsRoot, d.sources.sysfsRoot);
  EXPECT_NE(full.sources.ethtoolDir, d.sources.ethtoolDir);
  EXPECT_NE(full.sources.dcbDir, d.sources.dcbDir);
  EXPECT_NE(full.poll.interval, d.poll.interval);
  EXPECT_NE(full.poll.slowInterval, d.poll.slowInterval);
  EXPECT_NE(full.poll.discoveryInterval, d.poll.discoveryInterval);
  EXPECT_NE(full.poll.staleAfter, d.poll.staleAfter);
  EXPECT_NE(full.devices.include, d.devices.include);
  EXPECT_NE(full.devices.exclude, d.devices.exclude);
  EXPECT_NE(full.netdev.include, d.netdev.include);
  EXPECT_NE(full.collectors, d.collectors);
  EXPECT_NE(full.ethtool.statsInclude, d.ethtool.statsInclude);
  EXPECT_NE(full.qos.rocePriority, d.qos.rocePriority);
  EXPECT_NE(full.qos.roceDscp, d.qos.roceDscp);
  EXPECT_NE(full.qos.cnpPriority, d.qos.cnpPriority);
  EXPECT_NE(full.qos.cnpDscp, d.qos.cnpDscp);
  EXPECT_NE(full.qos.dcqcnEnabled, d.qos.dcqcnEnabled);
  EXPECT_NE(full.log.level, d.log.level);
  const WatchdogConfig& w = full.watchdog;
  const WatchdogConfig& dw = d.watchdog;
  EXPECT_NE(w.peakWindow, dw.peakWindow);
  EXPECT_NE(w.minSamples, dw.minSamples);
  EXPECT_NE(w.rules.get<PauseStormRule>().enabled, dw.rules.get<PauseStormRule>().enabled);
  EXPECT_NE(w.rules.get<PauseStormRule>().pauseFraction, dw.rules.get<PauseStormRule>().pauseFraction);
  EXPECT_NE(w.rules.get<PauseStormRule>().forSamples, dw.rules.get<PauseStormRule>().forSamples);
  EXPECT_NE(w.rules.get<PauseStormRule>().restoration, dw.rules.get<PauseStormRule>().restoration);
  EXPECT_NE(w.rules.get<PauseStormRule>().sustainedFraction, dw.rules.get<PauseStormRule>().sustainedFraction);
  EXPECT_NE(w.rules.get<PauseStormRule>().sustainedWindow, dw.rules.get<PauseStormRule>().sustainedWindow);
  EXPECT_NE(w.rules.get<DcqcnMisconfigRule>().enabled, dw.rules.get<DcqcnMisconfigRule>().enabled);
  EXPECT_NE(w.rules.get<DcqcnMisconfigRule>().window, dw.rules.get<DcqcnMisconfigRule>().window);
  EXPECT_NE(w.rules.get<DcqcnMisconfigRule>().pfcWithoutEcnPauseFraction,
            dw.rules.get<DcqcnMisconfigRule>().pfcWithoutEcnPauseFraction);
  EXPECT_NE(w.rules.get<LinkFlapRule>().enabled, dw.rules.get<LinkFlapRule>().enabled);
  EXPECT_NE(w.rules.get<LinkFlapRule>().downEvents, dw.rules.get<LinkFlapRule>().downEvents);
  EXPECT_NE(w.rules.get<LinkFlapRule>().window, dw.rules.get<LinkFlapRule>().window);
  EXPECT_NE(w.rules.get<LinkFlapRule>().quiet, dw.rules.get<LinkFlapRule>().quiet);
  EXPECT_NE(w.rules.get<LinkErrorsRule>().enabled, dw.rules.get<LinkErrorsRule>().enabled);
  EXPECT_NE(w.rules.get<LinkErrorsRule>().symbolErrorsPerHour, dw.rules.get<LinkErrorsRule>().symbolErrorsPerHour);
  EXPECT_NE(w.rules.get<LinkErrorsRule>().linkErrorRecoveryPerHour, dw.rules.get<LinkErrorsRule>().linkErrorRecoveryPerHour);
  EXPECT_NE(w.rules.get<LinkErrorsRule>().receiveErrorsPerHour, dw.rules.get<LinkErrorsRule>().receiveErrorsPerHour);
  EXPECT_NE(w.rules.get<LinkErrorsRule>().localLinkIntegrityErrorsPerHour,
            dw.rules.get<LinkErrorsRule>().localLinkIntegrityErrorsPerHour);
  EXPECT_NE(w.rules.get<LinkErrorsRule>().berLimit, dw.rules.get<LinkErrorsRule>().berLimit);
  EXPECT_NE(w.rules.get<LinkErrorsRule>().berWindow, dw.rules.get<LinkErrorsRule>().berWindow);
  EXPECT_NE(w.rules.get<PortDegradedRule>().enabled, dw.rules.get<PortDegradedRule>().enabled);
  EXPECT_NE(w.rules.get<PortDegradedRule>().expectedRateGbps, dw.rules.get<PortDegradedRule>().expectedRateGbps);
  EXPECT_NE(w.rules.get<PortDegradedRule>().notActiveFor, dw.rules.get<PortDegradedRule>().notActiveFor);
  EXPECT_NE(w.rules.get<RocePacketLossRule>().enabled, dw.rules.get<RocePacketLossRule>().enabled);
  EXPECT_NE(w.rules.get<RocePacketLossRule>().window, dw.rules.get<RocePacketLossRule>().window);
  EXPECT_NE(w.rules.get<RocePacketLossRule>().localAckTimeoutCriticalPerSecond,
            dw.rules.get<RocePacketLossRule>().localAckTimeoutCriticalPerSecond);
  EXPECT_NE(w.rules.get<LosslessDropRule>().enabled, dw.rules.get<LosslessDropRule>().enabled);
  EXPECT_NE(w.recurrence.count, dw.recurrence.count);
  EXPECT_NE(w.recurrence.window, dw.recurrence.window);
  EXPECT_NE(w.rules.get<RocePacketLossRule>().outOfSequenceAloneIsLoss,
            dw.rules.get<RocePacketLossRule>().outOfSequenceAloneIsLoss);
  {
    const auto& a = w.rules.get<PortDownRule>();
    const auto& b = dw.rules.get<PortDownRule>();
    EXPECT_NE(a.enabled, b.enabled);
    EXPECT_NE(a.hold, b.hold);
    EXPECT_NE(a.expectedPorts, b.expectedPorts);
    EXPECT_NE(a.exclude, b.exclude);
  }
  {
    const auto& a = w.rules.get<DeviceMissingRule>();
    const auto& b = dw.rules.get<DeviceMissingRule>();
    EXPECT_NE(a.grace, b.grace);
    EXPECT_NE(a.expectedDevices, b.expectedDevices);
    EXPECT_NE(a.expectedDeviceCount, b.expectedDeviceCount);
    EXPECT_NE(a.expectedPortCount, b.expectedPortCount);
  }
  EXPECT_NE(w.rules.get<PfcProtectionOffRule>().requireSupport, dw.rules.get<PfcProtectionOffRule>().requireSupport);
  EXPECT_NE(w.rules.get<GlobalPauseRule>().window, dw.rules.get<GlobalPauseRule>().window);
  EXPECT_NE(w.rules.get<GlobalPauseRule>().minFrames, dw.rules.get<GlobalPauseRule>().minFrames);
  {
    const auto& a = w.rules.get<LosslessClassSharedRule>();
    const auto& b = dw.rules.get<LosslessClassSharedRule>();
    EXPECT_NE(a.window, b.window);
    EXPECT_NE(a.maxNonRdmaShare, b.maxNonRdmaShare);
    EXPECT_NE(a.minBytesPerSecond, b.minBytesPerSecond);
    EXPECT_NE(a.allowedDscps, b.allowedDscps);
  }
}

TEST(FullFile, AnEmptyValueUnsetsAnOptionalKey) {
  const ConfigLoad load = loadConfigText(
      "web:\n  config_file:\ntextfile:\n  path: ~\nsources:\n  ethtool_dir:\n  dcb_dir: ~\nwatchdog:\n  rules:\n    port_degraded:\n      "
      "expected_rate_gbps: null\n",
      "o.yaml", configSchema());
  ASSERT_TRUE(load.ok()) << allErrors(load);
  EXPECT_FALSE(load.config.web.configFile.has_value());
  EXPECT_FALSE(load.config.textfile.path.has_value());
  EXPECT_FALSE(load.config.sources.ethtoolDir.has_value());
  EXPECT_FALSE(load.config.sources.dcbDir.has_value());
  EXPECT_FALSE(load.config.watchdog.rules.get<PortDegradedRule>().expectedRateGbps.has_value());
}

}  // namespace
}  // namespace fabricmon
