#include "config/config_keys.hpp"

#include <algorithm>
#include <array>

#include "config/duration.hpp"
#include "config/listen_address.hpp"

namespace fabricmon::config_detail {
namespace {

constexpr std::array<std::string_view, 5> kLogLevels{"trace", "debug", "info", "warn", "error"};
constexpr std::string_view kTextfileSuffix = ".prom";
// Each write is an fsync and a rename; node_exporter reads the file at scrape time (15s or more),
// so rewriting it more often than once a second only costs disk I/O.
constexpr Duration kMinTextfileInterval = 1s;
constexpr Duration kMinWindowLength = 10s;
constexpr Duration kMaxWindowLength = 1h;  // exporters/window_json.hpp, kMaxWindowSeconds
// Fewer than 4 slots leave no room for a scraper beside a browser and a curl; above 10000 the
// descriptors would crowd out the counter files (docs/configuration.md, web.max_connections).
constexpr unsigned kMinConnections = 4;
constexpr unsigned kMaxConnections = 10000;
constexpr Duration kNoLimit = Duration::max();

std::string listen(std::string& text) {
  auto parsed = parseListen(text);
  return parsed ? std::string() : parsed.error().message;
}

std::string stateFile(std::string& path) {
  return path.empty() || path.back() == '/' ? "must name a file, got \"" + path + "\"" : std::string();
}

// node_exporter's textfile collector reads only files whose name ends in ".prom"
// (collector/textfile.go), so any other name would be written and never exported.
std::string textfileName(std::string& path) {
  const std::string_view name = std::string_view(path).substr(path.rfind('/') + 1);
  if (name.size() <= kTextfileSuffix.size() || !name.ends_with(kTextfileSuffix)) {
    return "the file name must end in \".prom\" (node_exporter's textfile collector reads only those), got \"" +
           path + "\"";
  }
  return {};
}

// Run without a shell or a PATH search: a relative name would depend on the working directory
// (and slurmd runs the health check with no PATH).
std::string lldpcliProgram(std::string& program) {
  return program.front() == '/' ? std::string()
                                : "must be an absolute path (such as /usr/sbin/lldpcli), got \"" + program + "\"";
}
std::string scontrolProgram(std::string& program) {
  return program.front() == '/' ? std::string()
                                : "must be an absolute path (such as /usr/bin/scontrol), got \"" + program + "\"";
}

std::string logLevel(std::string& level) {
  return std::find(kLogLevels.begin(), kLogLevels.end(), level) != kLogLevels.end()
             ? std::string()
             : "unknown log level \"" + level + "\" (use trace, debug, info, warn or error)";
}

// An http(s) base URL, kept without trailing '/' (paths such as /api/v2/alerts are appended).
std::string httpUrl(std::string& url) {
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    return "expected an http:// or https:// URL, got \"" + url + "\"";
  }
  while (url.ends_with('/')) url.pop_back();
  return {};
}

std::string slurmNodeName(std::string& name) {
  return name.empty() || name.find_first_of(" ,=\"'[]") != std::string::npos
             ? "expected one Slurm node name (no spaces, commas or brackets), got \"" + name + "\""
             : std::string();
}

std::string ruleName(const std::string& name) {
  const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  return ok ? std::string() : "expected a rule name (lower case, digits, _), got \"" + name + "\"";
}

std::string severity(const std::string& name) {
  return name == "info" || name == "warning" || name == "critical"
             ? std::string()
             : "expected info, warning or critical, got \"" + name + "\"";
}

/// tls_config, basic_auth and bearer_token_file of an outbound HTTP client (Prometheus'
/// http_config shape), and the checks of their combinations.
template <class Client>
void bindClientAuth(SettingsBinder& b, Client& c) {
  b.section("tls_config", [&c](SettingsBinder& s) {
    s.optionalText("ca_file", c.caFile, nullptr, nullptr);
    s.optionalText("cert_file", c.certFile, nullptr, nullptr);
    s.optionalText("key_file", c.keyFile, nullptr, nullptr);
    s.flag("insecure_skip_verify", c.insecureSkipVerify);
  }, {});
  b.section("basic_auth", [&c](SettingsBinder& s) {
    s.optionalText("username", c.username, nullptr, nullptr);
    s.optionalText("password_file", c.passwordFile, nullptr, nullptr);
  }, {});
  b.optionalText("bearer_token_file", c.bearerTokenFile, nullptr, nullptr);
}

template <class Client>
std::vector<std::string> clientAuthErrors(const Client& c, std::string_view bearerClash) {
  std::vector<std::string> errors;
  if (c.certFile.has_value() != c.keyFile.has_value()) errors.push_back("tls_config needs cert_file and key_file together");
  if (c.username.has_value() != c.passwordFile.has_value()) {
    errors.push_back("basic_auth needs username and password_file together");
  }
  if (c.username && c.bearerTokenFile) errors.push_back(std::string(bearerClash));
  return errors;
}

}  // namespace

void bindConfig(SettingsBinder& b, Config& c, const ConfigSchema& schema) {
  b.section("web", [&c](SettingsBinder& s) {
    s.text("listen", c.web.listen, &listen);
    s.optionalText("config_file", c.web.configFile, nullptr, &c.web.configFileOrigin.text);
    s.count("max_connections", c.web.maxConnections, kMinConnections, kMaxConnections);
    s.duration("header_timeout", c.web.headerTimeout);
    s.duration("idle_timeout", c.web.idleTimeout);
  }, {});
  b.section("textfile", [&c](SettingsBinder& s) {
    s.optionalText("path", c.textfile.path, &textfileName, nullptr);
    s.durationBetween("interval", c.textfile.interval, kMinTextfileInterval, kNoLimit, false);
  }, {});
  b.section("state", [&c](SettingsBinder& s) {
    s.optionalText("path", c.state.path, &stateFile, nullptr);
    s.durationBetween("interval", c.state.interval, std::chrono::seconds(10), std::chrono::hours(24), false);
  }, {});
  b.section("sources", [&c](SettingsBinder& s) {
    SourcesConfig& src = c.sources;
    s.text("sysfs_root", src.sysfsRoot, nullptr);
    s.optionalText("ethtool_dir", src.ethtoolDir, nullptr, nullptr);
    s.optionalText("module_eeprom_dir", src.moduleEepromDir, nullptr, nullptr);
    s.optionalText("dcb_dir", src.dcbDir, nullptr, nullptr);
    s.optionalText("fec_dir", src.fecDir, nullptr, nullptr);
    s.count("max_open_files", src.maxOpenFiles, 0, kMaxConfigCount);
    s.durationBetween("mad_timeout", src.madTimeout, 1ms, 10s, false);
    s.count("mad_retries", src.madRetries, 0, 5);
    s.text("lldpcli", src.lldpcli, &lldpcliProgram);
    s.optionalText("lldp_socket", src.lldpSocket, nullptr, nullptr);
    s.optionalText("lldp_file", src.lldpFile, nullptr, nullptr);
    s.durationBetween("lldp_timeout", src.lldpTimeout, 10ms, 30s, false);
    s.text("kmsg", src.kmsg, nullptr);
    s.optionalText("kmsg_file", src.kmsgFile, nullptr, nullptr);
    s.flag("kmsg_accept_user_records", src.kmsgAcceptUserRecords);
  }, {});
  b.section("poll", [&c](SettingsBinder& s) {
    s.duration("interval", c.poll.interval);
    s.duration("slow_interval", c.poll.slowInterval);
    s.optionalDuration("export_only_interval", c.poll.exportOnlyInterval);
    s.duration("discovery_interval", c.poll.discoveryInterval);
    s.duration("stale_after", c.poll.staleAfter);
  }, {});
  b.section("devices", [&c](SettingsBinder& s) {
    s.regexList("include", c.devices.include);
    s.regexList("exclude", c.devices.exclude);
  }, {});
  b.section("netdev", [&c](SettingsBinder& s) { s.regexList("include", c.netdev.include); }, {});
  b.section("topology", [&c](SettingsBinder& s) {
    s.regexList("compute", c.topology.compute);
    s.regexList("storage", c.topology.storage);
    s.regexList("management", c.topology.management);
    s.regexList("rails", c.topology.rails);
  }, {});
  // collectors.<name>: one section per registered collector; a section in the file adds its entry.
  b.section("collectors", [&c, &schema](SettingsBinder& s) {
    for (const CollectorSchema& collector : schema.collectors) {
      s.section(collector.name, [&c, &collector](SettingsBinder& one) {
        CollectorConfig& cc = c.collectors.emplace_back();
        cc.name = collector.name;
        one.flag("enabled", cc.enabled);
        one.optionalDuration("interval", cc.interval);
        if (collector.bind != nullptr) collector.bind(one, c.collectorSettings);
      }, {});
    }
  }, {});
  b.section("ethtool", [&c](SettingsBinder& s) { s.regexList("stats_include", c.ethtool.statsInclude); }, {});
  // IEEE 802.1Q has 8 priorities; the DSCP field is 6 bits (RFC 2474).
  b.section("qos", [&c](SettingsBinder& s) {
    s.count("roce_priority", c.qos.rocePriority, 0, 7);
    s.count("roce_dscp", c.qos.roceDscp, 0, 63);
    s.count("cnp_priority", c.qos.cnpPriority, 0, 7);
    s.count("cnp_dscp", c.qos.cnpDscp, 0, 63);
    s.flag("dcqcn_enabled", c.qos.dcqcnEnabled);
  }, {});
  b.section("log", [&c](SettingsBinder& s) { s.text("level", c.log.level, &logLevel); }, {});
  b.section("watchdog", [&c, &schema](SettingsBinder& s) {
    WatchdogConfig& w = c.watchdog;
    s.duration("peak_window", w.peakWindow);
    s.count("min_samples", w.minSamples, 1, kMaxConfigCount);
    s.section("recurrence", [&w](SettingsBinder& r) {
      // 1 would mark every finding recurring at its first start.
      r.count("count", w.recurrence.count, 2, kMaxConfigCount);
      r.duration("window", w.recurrence.window);
    }, {});
    s.flag("judge_management", w.judgeManagement);
    // Each rule declares its own keys (watchdog/rules/<rule>.hpp, bind()).
    s.section("rules", [&w, &schema](SettingsBinder& rules) {
      for (const RuleSchema& rule : schema.rules) {
        rules.section(rule.name, [&w, &rule](SettingsBinder& one) { rule.bind(one, w.rules); }, {});
      }
    }, {});
  }, {});
  b.section("alertmanager", [&c](SettingsBinder& s) {
    AlertmanagerConfig& a = c.alertmanager;
    // Each URL is Alertmanager's base URL; /api/v2/alerts is appended to it.
    s.textList("urls", a.urls, &httpUrl, 16, "URLs");
    s.duration("timeout", a.timeout);
    s.duration("resend_interval", a.resendInterval);
    s.text("job", a.job, nullptr);
    s.optionalText("instance", a.instance, nullptr, nullptr);
    bindClientAuth(s, a);
  }, [&c] { return clientAuthErrors(c.alertmanager, "basic_auth and bearer_token_file exclude each other (Prometheus' http_config too)"); });
  b.section("health_check", [&c](SettingsBinder& s) {
    HealthCheckConfig& h = c.healthCheck;
    s.optionalText("url", h.url, &httpUrl, nullptr);
    s.durationBetween("timeout", h.timeout, 100ms, 60s, false);
    s.stringList("drain_rules", h.drainRules, &ruleName);
    s.stringList("drain_severities", h.drainSeverities, &severity);
    // Fewer than 20 characters cannot hold a rule and a port.
    s.count("max_output", h.maxOutput, 20, 4096);
    bindClientAuth(s, h);
    s.section("slurm", [&h](SettingsBinder& slurm) {
      slurm.text("scontrol", h.slurm.scontrol, &scontrolProgram);
      slurm.optionalText("node_name", h.slurm.nodeName, &slurmNodeName, nullptr);
      slurm.durationBetween("timeout", h.slurm.timeout, 100ms, 60s, false);
    }, {});
  }, [&c] { return clientAuthErrors(c.healthCheck, "basic_auth and bearer_token_file exclude each other"); });
  b.section("slurm_jobs", [&c](SettingsBinder& s) {
    SlurmJobsConfig& j = c.slurmJobs;
    s.text("spool_dir", j.spoolDir, nullptr);
    s.text("cgroup_root", j.cgroupRoot, nullptr);
    s.text("proc_root", j.procRoot, nullptr);
    s.optionalText("gpu_job_map_dir", j.gpuJobMapDir, nullptr, nullptr);
  }, {});
  b.section("window", [&c](SettingsBinder& s) {
    s.flag("enabled", c.window.enabled);
    // 0 turns the window off (as enabled: false); otherwise at most what /api/v1/window can be
    // asked for.
    s.durationBetween("length", c.window.length, kMinWindowLength, kMaxWindowLength, true);
  }, {});
}

}  // namespace fabricmon::config_detail
