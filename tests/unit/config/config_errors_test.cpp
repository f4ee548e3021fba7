// Every error path of the loader, each with its exact 1-based position and dotted key.

#include <gtest/gtest.h>

#include "config/config_loader.hpp"
#include "daemon/config_schema.hpp"

namespace fabricmon {
namespace {

struct ErrorCase {
  const char* name;
  const char* yaml;
  int line;
  int column;
  const char* key;
  const char* message;  // a fragment of the expected message
};

const ErrorCase kCases[] = {
    // YAML syntax: the second ':' of "1s: 2s" (line 2, 0-based column 14).
    {"syntax", "poll:\n  interval: 1s: 2s\n", 2, 15, "", "YAML syntax error: illegal map value"},
    {"syntax_unclosed_flow", "devices:\n  include: [a, b\n", 3, 1, "", "YAML syntax error"},
    {"two_documents", "poll: {}\n---\nlog: {}\n", 3, 1, "", "only one YAML document"},
    // Structure.
    {"top_level_list", "- a\n- b\n", 1, 1, "", "top level must be a map"},
    {"top_level_scalar", "hello\n", 1, 1, "", "top level must be a map"},
    {"section_not_map", "poll: [1s]\n", 1, 7, "poll", "expected a map, got a list"},
    {"duplicate_key", "poll:\n  interval: 1s\n  interval: 2s\n", 3, 3, "poll.interval",
     "duplicate key"},
    {"complex_key", "poll:\n  ? [a]\n  : 1s\n", 2, 5, "poll", "keys must be plain names"},
    // Unknown keys, with and without a suggestion.
    {"unknown_section", "pol:\n  interval: 1s\n", 1, 1, "pol",
     "unknown key, did you mean \"poll\"?"},
    {"unknown_nested", "poll:\n  intervall: 1s\n", 2, 3, "poll.intervall",
     "did you mean \"interval\"?"},
    {"camel_case_key", "poll:\n  staleAfter: 1m\n", 2, 3, "poll.staleAfter",
     "did you mean \"stale_after\"?"},
    {"unknown_far", "poll:\n  frequency: 1s\n", 2, 3, "poll.frequency",
     "unknown key (known here: interval, slow_interval, export_only_interval, discovery_interval, stale_after)"},
    {"unknown_collector", "collectors:\n  hw_counter:\n    enabled: false\n", 2, 3,
     "collectors.hw_counter", "did you mean \"hw_counters\"?"},
    {"unknown_collector_field", "collectors:\n  rdma_port:\n    enable: false\n", 3, 5,
     "collectors.rdma_port.enable", "did you mean \"enabled\"?"},
    {"unknown_rule", "watchdog:\n  rules:\n    pause_storms: {}\n", 3, 5,
     "watchdog.rules.pause_storms", "did you mean \"pause_storm\"?"},
    {"unknown_rule_field", "watchdog:\n  rules:\n    link_flap:\n      down_event: 2\n", 4, 7,
     "watchdog.rules.link_flap.down_event", "did you mean \"down_events\"?"},
    // Wrong types.
    {"string_for_integer", "qos:\n  roce_priority: three\n", 2, 18, "qos.roce_priority",
     "expected an integer between 0 and 7, got the string \"three\""},
    {"quoted_integer", "qos:\n  roce_dscp: \"26\"\n", 2, 14, "qos.roce_dscp",
     "(remove the quotes)"},
    {"fraction_for_integer", "watchdog:\n  min_samples: 2.5\n", 2, 16, "watchdog.min_samples",
     "expected an integer"},
    {"string_for_number", "watchdog:\n  rules:\n    link_errors:\n      ber_limit: low\n", 4, 18,
     "watchdog.rules.link_errors.ber_limit", "expected a number, got the string \"low\""},
    {"nan_for_number", "watchdog:\n  rules:\n    pause_storm:\n      pause_fraction: .nan\n", 4, 23,
     "watchdog.rules.pause_storm.pause_fraction", "expected a number"},
    {"string_for_bool", "qos:\n  dcqcn_enabled: maybe\n", 2, 18, "qos.dcqcn_enabled",
     "expected true or false, got the string \"maybe\""},
    {"quoted_bool", "watchdog:\n  rules:\n    lossless_drop:\n      enabled: \"false\"\n", 4, 16,
     "watchdog.rules.lossless_drop.enabled", "expected true or false"},
    {"string_for_list", "devices:\n  include: mlx5_0\n", 2, 12, "devices.include",
     "expected a list of regexes, got the string \"mlx5_0\""},
    {"map_in_list", "netdev:\n  include:\n    - {a: 1}\n", 3, 7, "netdev.include[0]",
     "expected a regex string, got a map"},
    {"map_for_string", "web:\n  listen: {port: 1}\n", 2, 11, "web.listen",
     "expected a string, got a map"},
    {"null_for_string", "sources:\n  sysfs_root:\n", 2, 3, "sources.sysfs_root",
     "expected a string, got nothing"},
    {"empty_string", "sources:\n  sysfs_root: ''\n", 2, 15, "sources.sysfs_root",
     "must not be empty"},
    {"list_for_duration", "poll:\n  interval: [1s]\n", 2, 13, "poll.interval",
     "expected a duration"},
    {"relative_lldpcli", "sources:\n  lldpcli: lldpcli\n", 2, 12, "sources.lldpcli",
     "must be an absolute path (such as /usr/sbin/lldpcli), got \"lldpcli\""},
    {"lldp_timeout_too_long", "sources:\n  lldp_timeout: 1m\n", 2, 17, "sources.lldp_timeout",
     "must be between 10ms and 30s, got 1m"},
    {"kmsg_accept_not_bool", "sources:\n  kmsg_accept_user_records: maybe\n", 2, 29,
     "sources.kmsg_accept_user_records", "expected true or false"},
    {"empty_kmsg", "sources:\n  kmsg: ''\n", 2, 9, "sources.kmsg", "must not be empty"},
    // Out of range.
    {"priority_above_7", "qos:\n  cnp_priority: 8\n", 2, 17, "qos.cnp_priority",
     "must be between 0 and 7, got 8"},
    {"dscp_above_63", "qos:\n  cnp_dscp: 64\n", 2, 13, "qos.cnp_dscp",
     "must be between 0 and 63, got 64"},
    {"negative_dscp", "qos:\n  roce_dscp: -1\n", 2, 14, "qos.roce_dscp",
     "must be between 0 and 63, got -1"},
    // A median counts the 24 parts before the current one (watchdog/day_baseline.hpp).
    {"baseline_min_parts_beyond_the_day",
     "watchdog:\n  rules:\n    optics_degraded:\n      baseline_min_parts: 25\n", 4, 27,
     "watchdog.rules.optics_degraded.baseline_min_parts", "must be between 1 and 24, got 25"},
    {"huge_integer", "qos:\n  roce_dscp: 99999999999999999999\n", 2, 14, "qos.roce_dscp",
     "must be between 0 and 63"},
    {"fraction_zero", "watchdog:\n  rules:\n    pause_storm:\n      pause_fraction: 0\n", 4, 23,
     "watchdog.rules.pause_storm.pause_fraction", "must be (0, 1], got 0"},
    {"fraction_above_one", "watchdog:\n  rules:\n    pause_storm:\n      sustained_fraction: 1.5\n",
     4, 27, "watchdog.rules.pause_storm.sustained_fraction", "must be (0, 1], got 1.5"},
    {"for_samples_zero", "watchdog:\n  rules:\n    pause_storm:\n      for_samples: 0\n", 4, 20,
     "watchdog.rules.pause_storm.for_samples", "must be between 1 and"},
    {"min_samples_zero", "watchdog:\n  min_samples: 0\n", 2, 16, "watchdog.min_samples",
     "must be between 1 and"},
    {"down_events_zero", "watchdog:\n  rules:\n    link_flap:\n      down_events: 0\n", 4, 20,
     "watchdog.rules.link_flap.down_events", "must be between 1 and"},
    {"ber_limit_one", "watchdog:\n  rules:\n    link_errors:\n      ber_limit: 1\n", 4, 18,
     "watchdog.rules.link_errors.ber_limit", "must be (0, 1), got 1"},
    {"negative_per_hour",
     "watchdog:\n  rules:\n    link_errors:\n      symbol_errors_per_hour: -1\n", 4, 31,
     "watchdog.rules.link_errors.symbol_errors_per_hour", "must be >= 0, got -1"},
    {"negative_rate", "watchdog:\n  rules:\n    port_degraded:\n      expected_rate_gbps: -400\n",
     4, 27, "watchdog.rules.port_degraded.expected_rate_gbps", "must be > 0, got -400"},
    {"zero_duration", "poll:\n  discovery_interval: 0s\n", 2, 23, "poll.discovery_interval",
     "must be greater than 0"},
    // Values with their own syntax.
    {"bad_regex", "devices:\n  include:\n    - 'mlx5_('\n", 3, 7, "devices.include[0]",
     "invalid regex \"mlx5_(\""},
    {"bad_regex_second", "ethtool:\n  stats_include: [rx_.*, '[']\n", 2, 26,
     "ethtool.stats_include[1]", "invalid regex \"[\""},
    {"duration_without_unit", "poll:\n  interval: 5\n", 2, 13, "poll.interval",
     "invalid duration \"5\": missing unit"},
    {"duration_unknown_unit", "watchdog:\n  peak_window: 1d\n", 2, 16, "watchdog.peak_window",
     "unknown unit \"d\""},
    {"negative_duration", "watchdog:\n  rules:\n    link_flap:\n      quiet: -10m\n", 4, 14,
     "watchdog.rules.link_flap.quiet", "negative durations are not allowed"},
    {"bad_listen", "web:\n  listen: localhost\n", 2, 11, "web.listen",
     "invalid listen address \"localhost\": missing :PORT"},
    {"bad_listen_port", "web:\n  listen: ':70000'\n", 2, 11, "web.listen", "port must be 0..65535"},
    {"bad_log_level", "log:\n  level: verbose\n", 2, 10, "log.level",
     "unknown log level \"verbose\""},
    // web.config_file and textfile.
    {"web_config_file_empty", "web:\n  config_file: ''\n", 2, 16, "web.config_file",
     "must not be empty"},
    {"web_config_file_list", "web:\n  config_file: [a]\n", 2, 16, "web.config_file",
     "expected a string, got a list"},
    {"textfile_not_prom", "textfile:\n  path: /var/lib/ne/fabricmon.txt\n", 2, 9, "textfile.path",
     "the file name must end in \".prom\""},
    {"textfile_only_suffix", "textfile:\n  path: /var/lib/ne/.prom\n", 2, 9, "textfile.path",
     "must end in \".prom\""},
    {"textfile_directory", "textfile:\n  path: /var/lib/fabricmon.prom/\n", 2, 9, "textfile.path",
     "must end in \".prom\""},
    {"textfile_interval_below_1s", "textfile:\n  interval: 500ms\n", 2, 13, "textfile.interval",
     "must be at least 1s, got 500ms"},
    {"textfile_interval_zero", "textfile:\n  interval: 0s\n", 2, 13, "textfile.interval",
     "must be greater than 0"},
    {"textfile_unknown_key", "textfile:\n  file: x.prom\n", 2, 3, "textfile.file",
     "unknown key"},
    // Rules over more than one key: reported at the key the file sets.
    {"stale_not_above_slow", "poll:\n  stale_after: 5s\n", 2, 16, "poll.stale_after",
     "poll.stale_after (5s) must be longer than poll.slow_interval (10s)"},
    {"slow_not_below_stale", "poll:\n  slow_interval: 1m\n", 2, 18, "poll.slow_interval",
     "poll.stale_after (30s) must be longer than poll.slow_interval (1m)"},
    {"export_only_not_below_stale", "poll:\n  export_only_interval: 30s\n", 2, 25,
     "poll.export_only_interval",
     "poll.stale_after (30s) must be longer than poll.export_only_interval (30s)"},
    {"stale_not_above_fast", "poll:\n  interval: 40s\n  slow_interval: 20s\n", 2, 13,
     "poll.interval", "poll.stale_after (30s) must be longer than poll.interval (40s)"},
    {"poll_below_10ms", "poll:\n  interval: 5ms\n", 2, 13, "poll.interval",
     "must be at least 10ms, got 5ms"},
    {"collector_interval_above_stale", "collectors:\n  pma_counters:\n    interval: 1m\n", 3, 15,
     "collectors.pma_counters.interval",
     "poll.stale_after (30s) must be longer than collectors.pma_counters.interval (1m)"},
    {"collector_interval_below_10ms", "collectors:\n  hw_counters:\n    interval: 1ms\n", 3, 15,
     "collectors.hw_counters.interval", "must be at least 10ms"},
    {"window_not_above_poll", "watchdog:\n  rules:\n    dcqcn_misconfig:\n      window: 1s\n", 4,
     15, "watchdog.rules.dcqcn_misconfig.window", "fewer than two samples"},
    // A baseline's 24 parts must each hold a reading of what fills them.
    {"optics_baseline_parts_below_transceiver_interval",
     "watchdog:\n  rules:\n    optics_degraded:\n      baseline_window: 20m\n", 4, 24,
     "watchdog.rules.optics_degraded.baseline_window",
     "watchdog.rules.optics_degraded.baseline_window (20m) must be at least 24 × collectors.transceiver.interval (1m)"},
    {"transceiver_interval_above_baseline_parts",
     "collectors:\n  transceiver:\n    interval: 2h\npoll:\n  stale_after: 5h\n", 3, 15,
     "collectors.transceiver.interval", "(24h) must be at least 24 × collectors.transceiver.interval (2h)"},
    {"baseline_parts_are_whole_seconds",
     "poll:\n  interval: 1500ms\nwatchdog:\n  rules:\n    link_ber:\n      window: 20s\n      baseline_window: 36s\n",
     7, 24, "watchdog.rules.link_ber.baseline_window",
     "watchdog.rules.link_ber.baseline_window (36s) must be at least 24 × poll.interval (1s500ms)"},
    {"link_ber_baseline_parts_below_fec_interval",
     "collectors:\n  fec:\n    interval: 25s\nwatchdog:\n  rules:\n    link_ber:\n      baseline_window: 8m\n", 7,
     24, "watchdog.rules.link_ber.baseline_window",
     "watchdog.rules.link_ber.baseline_window (8m) must be at least 24 × collectors.fec.interval (25s)"},
    {"link_ber_baseline_parts_below_poll",
     "poll:\n  interval: 2s\nwatchdog:\n  rules:\n    link_ber:\n      window: 10s\n      baseline_window: 40s\n", 7,
     24, "watchdog.rules.link_ber.baseline_window",
     "watchdog.rules.link_ber.baseline_window (40s) must be at least 24 × poll.interval (2s)"},
    // Issue #14's rules.
    {"expected_port_without_port", "watchdog:\n  rules:\n    port_down:\n      expected_ports: [mlx5_0]\n", 4, 24,
     "watchdog.rules.port_down.expected_ports[0]", "expected \"<device>/<port>\""},
    {"expected_port_zero", "watchdog:\n  rules:\n    port_down:\n      expected_ports: [mlx5_0/1, mlx5_1/0]\n", 4,
     34, "watchdog.rules.port_down.expected_ports[1]", "must be a number from 1"},
    {"expected_device_twice", "watchdog:\n  rules:\n    device_missing:\n      expected_devices: [mlx5_0, mlx5_0]\n",
     4, 34, "watchdog.rules.device_missing.expected_devices[1]", "duplicate entry \"mlx5_0\""},
    {"expected_device_path", "watchdog:\n  rules:\n    device_missing:\n      expected_devices: [ib/mlx5_0]\n", 4,
     26, "watchdog.rules.device_missing.expected_devices[0]", "expected an RDMA device name"},
    {"expected_device_count_zero", "watchdog:\n  rules:\n    device_missing:\n      expected_device_count: 0\n", 4,
     30, "watchdog.rules.device_missing.expected_device_count", "must be between 1 and 1000000, got 0"},
    {"grace_not_above_discovery", "watchdog:\n  rules:\n    device_missing:\n      grace: 5s\n", 4, 14,
     "watchdog.rules.device_missing.grace",
     "watchdog.rules.device_missing.grace (5s) must be longer than poll.discovery_interval (10s)"},
    {"dscp_out_of_range", "watchdog:\n  rules:\n    lossless_class_shared:\n      allowed_dscps: [24, 64]\n", 4,
     27, "watchdog.rules.lossless_class_shared.allowed_dscps[1]", "expected an integer from 0 to 63, got \"64\""},
    {"recurrence_count_one", "watchdog:\n  recurrence:\n    count: 1\n", 3, 12, "watchdog.recurrence.count",
     "must be between 2 and 1000000, got 1"},
    {"share_above_one", "watchdog:\n  rules:\n    lossless_class_shared:\n      max_non_rdma_share: 1.5\n", 4,
     27, "watchdog.rules.lossless_class_shared.max_non_rdma_share", ""},
    // alertmanager: (the direct push).
    {"alertmanager_url_scheme", "alertmanager:\n  urls: [\"am:9093\"]\n", 2, 10, "alertmanager.urls[0]",
     "expected an http:// or https:// URL"},
    {"alertmanager_urls_not_list", "alertmanager:\n  urls: http://am:9093\n", 2, 9, "alertmanager.urls",
     "expected a list of URLs"},
    {"alertmanager_unknown_key", "alertmanager:\n  url: [\"http://am:9093\"]\n", 2, 3, "alertmanager.url",
     "did you mean \"urls\"?"},
    {"alertmanager_user_without_password", "alertmanager:\n  basic_auth:\n    username: u\n", 2, 3, "alertmanager",
     "basic_auth needs username and password_file together"},
    {"alertmanager_basic_and_bearer",
     "alertmanager:\n  basic_auth: {username: u, password_file: /p}\n  bearer_token_file: /t\n", 2, 3, "alertmanager",
     "exclude each other"},
    {"alertmanager_bad_resend", "alertmanager:\n  resend_interval: soon\n", 2, 20, "alertmanager.resend_interval",
     "duration"},
    // health_check: (fabricmon health-check).
    {"health_check_rule_name", "health_check:\n  drain_rules: [port_down, Port-Down]\n", 2, 28,
     "health_check.drain_rules[1]", "expected a rule name"},
    {"health_check_severity", "health_check:\n  drain_severities: [fatal]\n", 2, 22, "health_check.drain_severities[0]",
     "expected info, warning or critical"},
    {"health_check_relative_scontrol", "health_check:\n  slurm:\n    scontrol: scontrol\n", 3, 15,
     "health_check.slurm.scontrol", "must be an absolute path"},
    {"health_check_node_list", "health_check:\n  slurm:\n    node_name: gpu[01-04]\n", 3, 16,
     "health_check.slurm.node_name", "expected one Slurm node name"},
    {"health_check_url_scheme", "health_check:\n  url: localhost:19110\n", 2, 8, "health_check.url",
     "expected an http:// or https:// URL"},
    {"health_check_max_output", "health_check:\n  max_output: 10\n", 2, 15, "health_check.max_output", ""},
};

class LoaderError : public testing::TestWithParam<ErrorCase> {};

TEST_P(LoaderError, ReportsExactlyOneErrorWithPositionAndKey) {
  const ErrorCase& c = GetParam();
  const ConfigLoad load = loadConfigText(c.yaml, "test.yaml", configSchema());
  ASSERT_EQ(load.errors.size(), 1u) << [&] {
    std::string all;
    for (const auto& e : load.errors) all += e.format() + "\n";
    return all;
  }();
  const ConfigError& e = load.errors.front();
  EXPECT_FALSE(load.ok());
  EXPECT_EQ(e.file, "test.yaml");
  EXPECT_EQ(e.line, c.line) << e.format();
  EXPECT_EQ(e.column, c.column) << e.format();
  EXPECT_EQ(e.key, c.key) << e.format();
  EXPECT_NE(e.message.find(c.message), std::string::npos) << e.format();
}

INSTANTIATE_TEST_SUITE_P(Table, LoaderError, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<ErrorCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(Loader, ReportsEveryErrorOfAFileInOneLoadSortedByPosition) {
  const char* yaml =
      "web:\n"
      "  listen: nowhere\n"  // 2:11
      "poll:\n"
      "  intervall: 1s\n"    // 4:3
      "  stale_after: 5s\n"  // 5:16, cross-field
      "qos:\n"
      "  roce_priority: 9\n"  // 7:18
      "devices:\n"
      "  exclude: [\"(\", ok, \"[\"]\n"  // 9:13 and 9:22
      "log:\n"
      "  level: 3\n";  // 11:10
  const ConfigLoad load = loadConfigText(yaml, "/etc/fabricmon/fabricmon.yaml", configSchema());
  std::vector<std::string> got;
  for (const auto& e : load.errors)
    got.push_back(std::to_string(e.line) + ":" + std::to_string(e.column) + " " + e.key);
  const std::vector<std::string> want = {
      "2:11 web.listen",        "4:3 poll.intervall",      "5:16 poll.stale_after",
      "7:18 qos.roce_priority", "9:13 devices.exclude[0]", "9:22 devices.exclude[2]",
      "11:10 log.level",
  };
  EXPECT_EQ(got, want);
  ASSERT_FALSE(load.errors.empty());
  EXPECT_EQ(load.errors.front().format(),
            "/etc/fabricmon/fabricmon.yaml:2:11: web.listen: invalid listen address \"nowhere\": "
            "missing :PORT");
  // Rejected values leave the defaults in place; valid neighbours are still read.
  EXPECT_EQ(load.config.web.listen, ":19110");
  EXPECT_EQ(load.config.qos.rocePriority, 3u);
  EXPECT_EQ(load.config.poll.staleAfter, 5s);
}

// A baseline whose parts are exactly as long as the transceiver's interval learns (a reading in each
// part), and one whose collector is off is not checked: nothing fills it either way.
TEST(Loader, ABaselineWindowFitsItsFeedingCollectorsInterval) {
  for (const char* yaml : {"collectors:\n  transceiver:\n    interval: 20s\nwatchdog:\n  rules:\n"
                           "    optics_degraded:\n      baseline_window: 8m\n",
                           "collectors:\n  transceiver:\n    enabled: false\nwatchdog:\n  rules:\n"
                           "    optics_degraded:\n      baseline_window: 10m\n",
                           // A rule that is off learns nothing: its window is not held against the collector.
                           "collectors:\n  transceiver:\n    interval: 20s\npoll:\n  stale_after: 1m\nwatchdog:\n  rules:\n"
                           "    optics_degraded:\n      enabled: false\n      baseline_window: 5m\n",
                           "poll:\n  interval: 250ms\nwatchdog:\n  rules:\n    link_ber:\n      window: 20s\n"
                           "      baseline_window: 6s\n"}) {
    const ConfigLoad load = loadConfigText(yaml, "test.yaml", configSchema());
    EXPECT_TRUE(load.ok()) << yaml << (load.errors.empty() ? "" : load.errors.front().format());
  }
}

TEST(Loader, SkipsACrossFieldRuleWhenOneOfItsKeysIsAlreadyWrong) {
  const ConfigLoad load =
      loadConfigText("poll:\n  slow_interval: soon\n  stale_after: 5s\n", "t.yaml", configSchema());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_EQ(load.errors[0].key, "poll.slow_interval");
}

TEST(Loader, ASyntaxErrorIsTheOnlyError) {
  // Line 2 has an unknown key too, but the parser never gets that far in a broken document.
  const ConfigLoad load = loadConfigText("poll:\n  bogus: 1\n  interval: [1s\n", "t.yaml", configSchema());
  ASSERT_EQ(load.errors.size(), 1u);
  EXPECT_NE(load.errors[0].message.find("YAML syntax error"), std::string::npos);
  EXPECT_EQ(load.errors[0].key, "");
}

// Found by tests/fuzz/config_yaml_fuzz.cpp: a line that starts with ',' made YAML::LoadAll (yaml-cpp
// 0.7) return null documents forever, growing memory until the OOM killer came
// (jbeder/yaml-cpp#1319). The load now ends, with an error.
TEST(Loader, AStrayCommaEndsTheLoadWithAnError) {
  for (const char* text : {"\n,\n    ", "poll:\n  interval: 1s\n ,  stale_after: 5s\n", ",\n"}) {
    const ConfigLoad load = loadConfigText(text, "t.yaml", configSchema());
    EXPECT_FALSE(load.ok()) << text;
  }
}

TEST(ConfigErrorFormat, LeavesOutAbsentParts) {
  EXPECT_EQ(
      (ConfigError{"f.yaml", 3, 7, "qos.roce_dscp", "must be between 0 and 63, got 64"}.format()),
      "f.yaml:3:7: qos.roce_dscp: must be between 0 and 63, got 64");
  EXPECT_EQ((ConfigError{"f.yaml", 1, 5, "", "YAML syntax error: illegal map value"}.format()),
            "f.yaml:1:5: YAML syntax error: illegal map value");
  EXPECT_EQ((ConfigError{"/nope.yaml", 0, 0, "",
                         "cannot open config file: No such file or directory (ENOENT)"}
                 .format()),
            "/nope.yaml: cannot open config file: No such file or directory (ENOENT)");
}

}  // namespace
}  // namespace fabricmon

namespace fabricmon {
namespace {

// A collector's own settings: declared by its settings struct, read as collectors.<name>.<key>
// through the same binder as every other key (docs/architecture.md, "Config keys are declared one
// way").
struct FakeCollectorSettings {
  std::optional<std::string> file;
  unsigned depth = 2;
  void bind(SettingsBinder& b) {
    b.optionalText("file", file, nullptr, nullptr);
    b.count("depth", depth, 1, 8);
  }
  bool operator==(const FakeCollectorSettings&) const = default;
};

void bindFake(SettingsBinder& b, RuleSettingsSet& s) { s.get<FakeCollectorSettings>().bind(b); }

TEST(Loader, ACollectorsOwnSettingsAreItsKeysUnderCollectors) {
  ConfigSchema schema = configSchema();
  schema.collectors.push_back({"fake_source", &bindFake});
  const ConfigLoad good =
      loadConfigText("collectors:\n  fake_source:\n    interval: 5s\n    file: /tmp/x\n", "c.yaml", schema);
  ASSERT_TRUE(good.ok()) << good.errors.front().format();
  EXPECT_EQ(good.config.collectorSettings.get<FakeCollectorSettings>().file, "/tmp/x");
  EXPECT_EQ(good.config.collectorSettings.get<FakeCollectorSettings>().depth, 2u);
  ASSERT_NE(good.config.collector("fake_source"), nullptr);
  EXPECT_EQ(good.config.collector("fake_source")->interval, std::chrono::seconds(5));

  const ConfigLoad bad = loadConfigText("collectors:\n  fake_source:\n    depth: 9\n    fil: /x\n", "c.yaml", schema);
  ASSERT_EQ(bad.errors.size(), 2u);
  EXPECT_EQ(bad.errors[0].format().substr(0, 39), "c.yaml:3:12: collectors.fake_source.dep");
  EXPECT_NE(bad.errors[0].message.find("must be between 1 and 8"), std::string::npos) << bad.errors[0].message;
  EXPECT_EQ(bad.errors[1].key, "collectors.fake_source.fil");
  EXPECT_NE(bad.errors[1].message.find("did you mean \"file\""), std::string::npos) << bad.errors[1].message;
  // A collector without settings of its own has only enabled and interval.
  EXPECT_FALSE(loadConfigText("collectors:\n  rdma_port:\n    file: /x\n", "c.yaml", schema).ok());
}

}  // namespace
}  // namespace fabricmon
