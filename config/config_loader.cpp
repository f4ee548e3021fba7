#include "config/config_loader.hpp"


#include <algorithm>
#include <charconv>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "config/duration.hpp"
#include "config/listen_address.hpp"
#include "config/yaml_reader.hpp"

namespace fabricmon {
namespace {

/// Counts the documents of a YAML stream without building them, and keeps where the second one's
/// root starts. YAML::LoadAll loops forever on some malformed streams (yaml-cpp 0.7: a document
/// whose first token the parser does not consume is "parsed" again and again, each time one more
/// null document until memory runs out: jbeder/yaml-cpp#1319; found by
/// tests/fuzz/config_yaml_fuzz.cpp). Reading at most two documents bounds it.
class DocumentCounter final : public YAML::EventHandler {
 public:
  size_t documents = 0;
  std::optional<YAML::Mark> secondRoot;

  void OnDocumentStart(const YAML::Mark&) override { ++documents; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { node(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& m) {
    if (documents == 2 && !secondRoot) secondRoot = m;
  }
};

using config_detail::Field;
using config_detail::YamlReader;
using Entry = YamlReader::Entry;

constexpr std::array<std::string_view, 5> kLogLevels{"trace", "debug", "info", "warn", "error"};
constexpr Duration kMinPollInterval =
    10ms;  // below this the sampling loop would only measure itself
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

/// Rule windows (dotted key → value) for the check that each exceeds poll.interval, or (rescan)
/// poll.discovery_interval.
struct WindowKey {
  std::string key;
  const Duration* value;
  bool rescan = false;
};
using WindowKeys = std::vector<WindowKey>;

// A rule's keys, as it declares them (config/rule_settings.hpp), turned into reader entries. The
// values are bound by reference: the entries write straight into the rule's settings.
class RuleKeys final : public SettingsBinder {
 public:
  /// `windows` (may be null) collects the rule's windows.
  RuleKeys(YamlReader& reader, std::string prefix, WindowKeys* windows)
      : r_(reader), prefix_(std::move(prefix)), windows_(windows) {}

  std::span<const Entry> entries() const { return entries_; }

  void flag(std::string_view key, bool& v) override {
    add(key, [this, &v](const Field& f) { r_.readBool(f, v); });
  }
  void count(std::string_view key, unsigned& v, unsigned min, unsigned max) override {
    add(key, [this, &v, min, max](const Field& f) { r_.readUnsigned(f, v, min, max); });
  }
  void number(std::string_view key, double& v, const Range& range) override {
    add(key, [this, &v, range](const Field& f) { r_.readNumber(f, v, range); });
  }
  void optionalNumber(std::string_view key, std::optional<double>& v, const Range& range) override {
    add(key, [this, &v, range](const Field& f) { r_.readOptionalNumber(f, v, range); });
  }
  void duration(std::string_view key, Duration& v) override {
    add(key, [this, &v](const Field& f) { r_.readDuration(f, v); });
  }
  void window(std::string_view key, Duration& v) override {
    duration(key, v);
    if (windows_ != nullptr) windows_->push_back(WindowKey{prefix_ + std::string(key), &v, false});
  }
  void rescanWindow(std::string_view key, Duration& v) override {
    duration(key, v);
    if (windows_ != nullptr) windows_->push_back(WindowKey{prefix_ + std::string(key), &v, true});
  }
  void optionalCount(std::string_view key, std::optional<unsigned>& v, unsigned min, unsigned max) override {
    add(key, [this, &v, min, max](const Field& f) {
      if (f.node.IsNull()) {  // "~": unset
        v.reset();
        return;
      }
      unsigned n = 0;
      if (r_.readUnsigned(f, n, min, max)) v = n;
    });
  }
  void stringList(std::string_view key, std::vector<std::string>& v,
                  std::string (*check)(const std::string&)) override {
    add(key, [this, &v, check](const Field& f) { r_.readStringList(f, v, check); });
  }
  void regexList(std::string_view key, std::vector<std::string>& v) override {
    add(key, [this, &v](const Field& f) { r_.readRegexList(f, v); });
  }
  void optionalCountList(std::string_view key, std::optional<std::vector<unsigned>>& v, unsigned min,
                         unsigned max) override {
    add(key, [this, &v, min, max](const Field& f) {
      if (f.node.IsNull()) {  // "~": unset, the rule's own default applies
        v.reset();
        return;
      }
      std::vector<std::string> items;
      const auto check = [min, max](const std::string& text) -> std::string {
        unsigned n = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (ec != std::errc() || ptr != text.data() + text.size() || n < min || n > max) {
          return "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got \"" +
                 text + "\"";
        }
        return {};
      };
      if (!r_.readStringList(f, items, check)) return;
      std::vector<unsigned> values;
      for (const auto& item : items) values.push_back(static_cast<unsigned>(std::stoul(item)));
      v = std::move(values);
    });
  }

 private:
  void add(std::string_view key, std::function<void(const Field&)> read) {
    entries_.push_back(Entry{key, std::move(read)});
  }

  YamlReader& r_;
  std::string prefix_;
  WindowKeys* windows_;
  std::vector<Entry> entries_;
};

// The schema: one function per section, each a table of keys. Keys are the snake_case of the
// Config members; docs/configuration.md documents them in the same order.
class Loader {
 public:
  Loader(Config& config, YamlReader& reader, const ConfigSchema& schema)
      : c_(config), r_(reader), schema_(schema) {}

  void root(const Field& f) {
    const Entry entries[] = {
        {"web", [&](const Field& s) { web(s); }},
        {"textfile", [&](const Field& s) { textfile(s); }},
        {"state", [&](const Field& s) { state(s); }},
        {"sources", [&](const Field& s) { sources(s); }},
        {"poll", [&](const Field& s) { poll(s); }},
        {"devices", [&](const Field& s) { devices(s); }},
        {"netdev", [&](const Field& s) { netdev(s); }},
        {"topology", [&](const Field& s) { topology(s); }},
        {"collectors", [&](const Field& s) { collectors(s); }},
        {"ethtool", [&](const Field& s) { ethtool(s); }},
        {"qos", [&](const Field& s) { qos(s); }},
        {"log", [&](const Field& s) { log(s); }},
        {"watchdog", [&](const Field& s) { watchdog(s); }},
        {"alertmanager", [&](const Field& s) { alertmanager(s); }},
        {"health_check", [&](const Field& s) { healthCheck(s); }},
        {"slurm_jobs", [&](const Field& s) { slurmJobs(s); }},
        {"window", [&](const Field& s) { window(s); }},
    };
    if (!f.node.IsNull() && !f.node.IsMap()) {
      r_.error(f, "the top level must be a map of sections (web, sources, poll, ...), got " +
                      config_detail::describeNode(f.node));
      return;
    }
    r_.readMap(f, entries);
  }

 private:
  void web(const Field& f) {
    const Entry entries[] = {
        {"listen",
         [&](const Field& v) {
           std::string text;
           if (!r_.readString(v, text)) return;
           if (auto parsed = parseListen(text); !parsed) {
             r_.error(v, parsed.error().message);
           } else {
             c_.web.listen = text;
           }
         }},
        {"config_file",
         [&](const Field& v) {
           if (!r_.readOptionalString(v, c_.web.configFile)) return;
           c_.web.configFileOrigin.text = c_.web.configFile ? r_.position(v.mark) : std::string();
         }},
        {"max_connections",
         [&](const Field& v) {
           r_.readUnsigned(v, c_.web.maxConnections, kMinConnections, kMaxConnections);
         }},
        {"header_timeout", [&](const Field& v) { r_.readDuration(v, c_.web.headerTimeout); }},
        {"idle_timeout", [&](const Field& v) { r_.readDuration(v, c_.web.idleTimeout); }},
    };
    r_.readMap(f, entries);
  }

  void state(const Field& f) {
    const Entry entries[] = {
        {"path",
         [&](const Field& v) {
           std::optional<std::string> path;
           if (!r_.readOptionalString(v, path)) return;
           if (path && (path->empty() || path->back() == '/')) {
             r_.error(v, "must name a file, got \"" + *path + "\"");
             return;
           }
           c_.state.path = path;
         }},
        {"interval", [&](const Field& v) { r_.readDurationBetween(v, c_.state.interval, std::chrono::seconds(10), std::chrono::hours(24)); }},
    };
    r_.readMap(f, entries);
  }

  void textfile(const Field& f) {
    const Entry entries[] = {
        {"path",
         [&](const Field& v) {
           std::optional<std::string> path;
           if (!r_.readOptionalString(v, path)) return;
           if (path) {
             // node_exporter's textfile collector reads only files whose name ends in ".prom"
             // (collector/textfile.go), so any other name would be written and never exported.
             const std::string_view name = std::string_view(*path).substr(path->rfind('/') + 1);
             if (name.size() <= kTextfileSuffix.size() || !name.ends_with(kTextfileSuffix)) {
               r_.error(v, "the file name must end in \".prom\" (node_exporter's textfile "
                           "collector reads only those), got \"" + *path + "\"");
               return;
             }
           }
           c_.textfile.path = std::move(path);
         }},
        {"interval",
         [&](const Field& v) {
           Duration interval = c_.textfile.interval;
           if (!r_.readDuration(v, interval)) return;
           if (interval < kMinTextfileInterval) {
             r_.error(v, "must be at least " + formatDuration(kMinTextfileInterval) + ", got " +
                             formatDuration(interval));
             return;
           }
           c_.textfile.interval = interval;
         }},
    };
    r_.readMap(f, entries);
  }

  void sources(const Field& f) {
    const Entry entries[] = {
        {"sysfs_root", [&](const Field& v) { r_.readString(v, c_.sources.sysfsRoot); }},
        {"ethtool_dir", [&](const Field& v) { r_.readOptionalString(v, c_.sources.ethtoolDir); }},
        {"module_eeprom_dir", [&](const Field& v) { r_.readOptionalString(v, c_.sources.moduleEepromDir); }},
        {"dcb_dir", [&](const Field& v) { r_.readOptionalString(v, c_.sources.dcbDir); }},
        {"fec_dir", [&](const Field& v) { r_.readOptionalString(v, c_.sources.fecDir); }},
        {"max_open_files",
         [&](const Field& v) { r_.readUnsigned(v, c_.sources.maxOpenFiles, 0, kMaxConfigCount); }},
        {"mad_timeout", [&](const Field& v) { r_.readDurationBetween(v, c_.sources.madTimeout, 1ms, 10s); }},
        {"mad_retries", [&](const Field& v) { r_.readUnsigned(v, c_.sources.madRetries, 0, 5); }},
        {"lldpcli",
         [&](const Field& v) {
           std::string program;
           if (!r_.readString(v, program)) return;
           // Run without a shell or a PATH search: a relative name would depend on the working directory.
           if (program.empty() || program.front() != '/') {
             r_.error(v, "must be an absolute path (such as /usr/sbin/lldpcli), got \"" + program + "\"");
             return;
           }
           c_.sources.lldpcli = program;
         }},
        {"lldp_socket", [&](const Field& v) { r_.readOptionalString(v, c_.sources.lldpSocket); }},
        {"lldp_file", [&](const Field& v) { r_.readOptionalString(v, c_.sources.lldpFile); }},
        {"lldp_timeout", [&](const Field& v) { r_.readDurationBetween(v, c_.sources.lldpTimeout, 10ms, 30s); }},
        {"kmsg", [&](const Field& v) { r_.readString(v, c_.sources.kmsg); }},
        {"kmsg_file", [&](const Field& v) { r_.readOptionalString(v, c_.sources.kmsgFile); }},
        {"kmsg_accept_user_records", [&](const Field& v) { r_.readBool(v, c_.sources.kmsgAcceptUserRecords); }},
    };
    r_.readMap(f, entries);
  }

  void poll(const Field& f) {
    const Entry entries[] = {
        {"interval", [&](const Field& v) { r_.readDuration(v, c_.poll.interval); }},
        {"slow_interval", [&](const Field& v) { r_.readDuration(v, c_.poll.slowInterval); }},
        {"discovery_interval",
         [&](const Field& v) { r_.readDuration(v, c_.poll.discoveryInterval); }},
        {"stale_after", [&](const Field& v) { r_.readDuration(v, c_.poll.staleAfter); }},
    };
    r_.readMap(f, entries);
  }

  void devices(const Field& f) {
    const Entry entries[] = {
        {"include", [&](const Field& v) { r_.readRegexList(v, c_.devices.include); }},
        {"exclude", [&](const Field& v) { r_.readRegexList(v, c_.devices.exclude); }},
    };
    r_.readMap(f, entries);
  }

  void netdev(const Field& f) {
    const Entry entries[] = {
        {"include", [&](const Field& v) { r_.readRegexList(v, c_.netdev.include); }},
    };
    r_.readMap(f, entries);
  }

  void topology(const Field& f) {
    const Entry entries[] = {
        {"compute", [&](const Field& v) { r_.readRegexList(v, c_.topology.compute); }},
        {"storage", [&](const Field& v) { r_.readRegexList(v, c_.topology.storage); }},
        {"management", [&](const Field& v) { r_.readRegexList(v, c_.topology.management); }},
        {"rails", [&](const Field& v) { r_.readRegexList(v, c_.topology.rails); }},
    };
    r_.readMap(f, entries);
  }

  void collectors(const Field& f) {
    std::vector<Entry> entries;
    for (std::string_view name : schema_.collectors) {
      entries.push_back({name, [this, name](const Field& v) { collector(name, v); }});
    }
    r_.readMap(f, entries);
  }

  void collector(std::string_view name, const Field& f) {
    CollectorConfig cc;
    cc.name = name;
    const Entry entries[] = {
        {"enabled", [&](const Field& v) { r_.readBool(v, cc.enabled); }},
        {"interval", [&](const Field& v) { r_.readOptionalDuration(v, cc.interval); }},
    };
    r_.readMap(f, entries);
    c_.collectors.push_back(std::move(cc));
  }

  void ethtool(const Field& f) {
    const Entry entries[] = {
        {"stats_include", [&](const Field& v) { r_.readRegexList(v, c_.ethtool.statsInclude); }},
    };
    r_.readMap(f, entries);
  }

  void qos(const Field& f) {
    // IEEE 802.1Q has 8 priorities; the DSCP field is 6 bits (RFC 2474).
    const Entry entries[] = {
        {"roce_priority", [&](const Field& v) { r_.readUnsigned(v, c_.qos.rocePriority, 0, 7); }},
        {"roce_dscp", [&](const Field& v) { r_.readUnsigned(v, c_.qos.roceDscp, 0, 63); }},
        {"cnp_priority", [&](const Field& v) { r_.readUnsigned(v, c_.qos.cnpPriority, 0, 7); }},
        {"cnp_dscp", [&](const Field& v) { r_.readUnsigned(v, c_.qos.cnpDscp, 0, 63); }},
        {"dcqcn_enabled", [&](const Field& v) { r_.readBool(v, c_.qos.dcqcnEnabled); }},
    };
    r_.readMap(f, entries);
  }

  void window(const Field& f) {
    const Entry entries[] = {
        {"enabled", [&](const Field& v) { r_.readBool(v, c_.window.enabled); }},
        {"length",
         [&](const Field& v) {
           // 0 turns the window off (as enabled: false); otherwise at most what /api/v1/window
           // can be asked for.
           if (v.node.IsScalar() && v.node.Scalar() == "0") {
             c_.window.length = Duration{0};
             return;
           }
           r_.readDurationBetween(v, c_.window.length, kMinWindowLength, kMaxWindowLength);
         }},
    };
    r_.readMap(f, entries);
  }

  void log(const Field& f) {
    const Entry entries[] = {
        {"level",
         [&](const Field& v) {
           std::string level;
           if (!r_.readString(v, level)) return;
           if (std::find(kLogLevels.begin(), kLogLevels.end(), level) == kLogLevels.end()) {
             r_.error(
                 v, "unknown log level \"" + level + "\" (use trace, debug, info, warn or error)");
           } else {
             c_.log.level = level;
           }
         }},
    };
    r_.readMap(f, entries);
  }

  void alertmanager(const Field& f) {
    AlertmanagerConfig& a = c_.alertmanager;
    const Entry tls[] = {
        {"ca_file", [&](const Field& v) { r_.readOptionalString(v, a.caFile); }},
        {"cert_file", [&](const Field& v) { r_.readOptionalString(v, a.certFile); }},
        {"key_file", [&](const Field& v) { r_.readOptionalString(v, a.keyFile); }},
        {"insecure_skip_verify", [&](const Field& v) { r_.readBool(v, a.insecureSkipVerify); }},
    };
    const Entry basicAuth[] = {
        {"username", [&](const Field& v) { r_.readOptionalString(v, a.username); }},
        {"password_file", [&](const Field& v) { r_.readOptionalString(v, a.passwordFile); }},
    };
    const Entry entries[] = {
        {"urls", [&](const Field& v) { alertmanagerUrls(v); }},
        {"timeout", [&](const Field& v) { r_.readDuration(v, a.timeout); }},
        {"resend_interval", [&](const Field& v) { r_.readDuration(v, a.resendInterval); }},
        {"job", [&](const Field& v) { r_.readString(v, a.job); }},
        {"instance", [&](const Field& v) { r_.readOptionalString(v, a.instance); }},
        {"tls_config", [&](const Field& v) { r_.readMap(v, tls); }},
        {"basic_auth", [&](const Field& v) { r_.readMap(v, basicAuth); }},
        {"bearer_token_file", [&](const Field& v) { r_.readOptionalString(v, a.bearerTokenFile); }},
    };
    r_.readMap(f, entries);
    if (a.certFile.has_value() != a.keyFile.has_value()) {
      r_.error(f, "tls_config needs cert_file and key_file together");
    }
    if (a.username.has_value() != a.passwordFile.has_value()) {
      r_.error(f, "basic_auth needs username and password_file together");
    }
    if (a.username && a.bearerTokenFile) {
      r_.error(f, "basic_auth and bearer_token_file exclude each other (Prometheus' http_config too)");
    }
  }

  void slurmJobs(const Field& f) {
    SlurmJobsConfig& j = c_.slurmJobs;
    const Entry entries[] = {
        {"spool_dir", [&](const Field& v) { r_.readString(v, j.spoolDir); }},
        {"cgroup_root", [&](const Field& v) { r_.readString(v, j.cgroupRoot); }},
        {"proc_root", [&](const Field& v) { r_.readString(v, j.procRoot); }},
        {"gpu_job_map_dir", [&](const Field& v) { r_.readOptionalString(v, j.gpuJobMapDir); }},
    };
    r_.readMap(f, entries);
  }

  void healthCheck(const Field& f) {
    HealthCheckConfig& h = c_.healthCheck;
    const Entry tls[] = {
        {"ca_file", [&](const Field& v) { r_.readOptionalString(v, h.caFile); }},
        {"cert_file", [&](const Field& v) { r_.readOptionalString(v, h.certFile); }},
        {"key_file", [&](const Field& v) { r_.readOptionalString(v, h.keyFile); }},
        {"insecure_skip_verify", [&](const Field& v) { r_.readBool(v, h.insecureSkipVerify); }},
    };
    const Entry basicAuth[] = {
        {"username", [&](const Field& v) { r_.readOptionalString(v, h.username); }},
        {"password_file", [&](const Field& v) { r_.readOptionalString(v, h.passwordFile); }},
    };
    const Entry slurm[] = {
        {"scontrol",
         [&](const Field& v) {
           std::string program;
           if (!r_.readString(v, program)) return;
           // Run without a shell or a PATH search (slurmd runs the health check with no PATH).
           if (program.empty() || program.front() != '/') {
             r_.error(v, "must be an absolute path (such as /usr/bin/scontrol), got \"" + program + "\"");
             return;
           }
           h.slurm.scontrol = program;
         }},
        {"node_name",
         [&](const Field& v) {
           std::optional<std::string> name;
           if (!r_.readOptionalString(v, name)) return;
           if (name && (name->empty() || name->find_first_of(" ,=\"'[]") != std::string::npos)) {
             r_.error(v, "expected one Slurm node name (no spaces, commas or brackets), got \"" + *name + "\"");
             return;
           }
           h.slurm.nodeName = std::move(name);
         }},
        {"timeout", [&](const Field& v) { r_.readDurationBetween(v, h.slurm.timeout, 100ms, 60s); }},
    };
    const auto ruleName = [](const std::string& name) -> std::string {
      const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      });
      return ok ? std::string() : "expected a rule name (lower case, digits, _), got \"" + name + "\"";
    };
    const auto severity = [](const std::string& name) -> std::string {
      return name == "info" || name == "warning" || name == "critical"
                 ? std::string()
                 : "expected info, warning or critical, got \"" + name + "\"";
    };
    const Entry entries[] = {
        {"url",
         [&](const Field& v) {
           std::optional<std::string> url;
           if (!r_.readOptionalString(v, url)) return;
           if (url && !url->starts_with("http://") && !url->starts_with("https://")) {
             r_.error(v, "expected an http:// or https:// URL, got \"" + *url + "\"");
             return;
           }
           if (url) {
             while (url->ends_with('/')) url->pop_back();
           }
           h.url = std::move(url);
         }},
        {"timeout", [&](const Field& v) { r_.readDurationBetween(v, h.timeout, 100ms, 60s); }},
        {"drain_rules", [&](const Field& v) { r_.readStringList(v, h.drainRules, ruleName); }},
        {"drain_severities", [&](const Field& v) { r_.readStringList(v, h.drainSeverities, severity); }},
        // Fewer than 20 characters cannot hold a rule and a port.
        {"max_output", [&](const Field& v) { r_.readUnsigned(v, h.maxOutput, 20, 4096); }},
        {"tls_config", [&](const Field& v) { r_.readMap(v, tls); }},
        {"basic_auth", [&](const Field& v) { r_.readMap(v, basicAuth); }},
        {"bearer_token_file", [&](const Field& v) { r_.readOptionalString(v, h.bearerTokenFile); }},
        {"slurm", [&](const Field& v) { r_.readMap(v, slurm); }},
    };
    r_.readMap(f, entries);
    if (h.certFile.has_value() != h.keyFile.has_value()) {
      r_.error(f, "tls_config needs cert_file and key_file together");
    }
    if (h.username.has_value() != h.passwordFile.has_value()) {
      r_.error(f, "basic_auth needs username and password_file together");
    }
    if (h.username && h.bearerTokenFile) {
      r_.error(f, "basic_auth and bearer_token_file exclude each other");
    }
  }

  // Each URL is Alertmanager's base URL; /api/v2/alerts is appended to it.
  void alertmanagerUrls(const Field& v) {
    if (v.node.IsNull()) return;
    if (!v.node.IsSequence()) {
      r_.error(v, "expected a list of URLs, got " + config_detail::describeNode(v.node));
      return;
    }
    constexpr size_t kMaxUrls = 16;
    if (v.node.size() > kMaxUrls) {
      r_.error(v, "at most " + std::to_string(kMaxUrls) + " URLs");
      return;
    }
    std::vector<std::string> urls;
    for (std::size_t i = 0; i < v.node.size(); ++i) {
      const Field item{v.node[i], v.key + "[" + std::to_string(i) + "]", v.node[i].Mark()};
      std::string url;
      if (!r_.readString(item, url)) return;
      if (!url.starts_with("http://") && !url.starts_with("https://")) {
        r_.error(item, "expected an http:// or https:// URL, got \"" + url + "\"");
        return;
      }
      while (url.ends_with('/')) url.pop_back();
      urls.push_back(std::move(url));
    }
    c_.alertmanager.urls = std::move(urls);
  }

  void watchdog(const Field& f) {
    WatchdogConfig& w = c_.watchdog;
    const Entry entries[] = {
        {"peak_window", [&](const Field& v) { r_.readDuration(v, w.peakWindow); }},
        {"min_samples", [&](const Field& v) { r_.readUnsigned(v, w.minSamples, 1, kMaxConfigCount); }},
        {"recurrence", [&](const Field& v) { recurrence(v, w.recurrence); }},
        {"judge_management", [&](const Field& v) { r_.readBool(v, w.judgeManagement); }},
        {"rules", [&](const Field& v) { rules(v); }},
    };
    r_.readMap(f, entries);
  }

  void recurrence(const Field& f, RecurrenceConfig& rec) {
    const Entry entries[] = {
        // 1 would mark every finding recurring at its first start.
        {"count", [&](const Field& v) { r_.readUnsigned(v, rec.count, 2, kMaxConfigCount); }},
        {"window", [&](const Field& v) { r_.readDuration(v, rec.window); }},
    };
    r_.readMap(f, entries);
  }

  void rules(const Field& f) {
    std::vector<Entry> entries;
    for (const RuleSchema& rule : schema_.rules) {
      entries.push_back({rule.name, [this, &rule](const Field& v) { ruleSection(rule, v); }});
    }
    r_.readMap(f, entries);
  }

  // A rule's section: the keys the rule declares through the binder.
  void ruleSection(const RuleSchema& rule, const Field& f) {
    RuleKeys keys(r_, "watchdog.rules." + std::string(rule.name) + ".", nullptr);
    rule.bind(keys, c_.watchdog.rules);
    r_.readMap(f, keys.entries());
  }

  Config& c_;
  YamlReader& r_;
  const ConfigSchema& schema_;
};

// Rules that involve more than one key. Each error is reported at the first of `keys` the file
// sets (the defaults alone always pass), and skipped when one of the keys already has an error.
class CrossChecks {
 public:
  CrossChecks(const Config& config, YamlReader& reader, const std::vector<ConfigError>& errors,
              const WindowKeys& ruleWindows)
      : c_(config), r_(reader), errors_(errors), ruleWindows_(ruleWindows) {}

  void run() {
    const PollConfig& p = c_.poll;
    if (p.interval < kMinPollInterval) {
      fail({"poll.interval"}, "must be at least " + formatDuration(kMinPollInterval) + ", got " +
                                  formatDuration(p.interval));
    }
    mustExceed(
        "poll.stale_after", p.staleAfter, "poll.slow_interval", p.slowInterval,
        "otherwise the slow collectors' series would drop out of /metrics between their runs");
    if (p.interval > p.slowInterval) {  // else the check above covers it
      mustExceed("poll.stale_after", p.staleAfter, "poll.interval", p.interval,
                 "otherwise every series would drop out of /metrics between polls");
    }
    for (const CollectorConfig& cc : c_.collectors) {
      if (!cc.interval) continue;
      const std::string key = "collectors." + cc.name + ".interval";
      if (*cc.interval < kMinPollInterval) {
        fail({key}, "must be at least " + formatDuration(kMinPollInterval) + ", got " +
                        formatDuration(*cc.interval));
      }
      mustExceed("poll.stale_after", p.staleAfter, key, *cc.interval,
                 "otherwise this collector's series would drop out of /metrics between its runs");
    }
    // A window no longer than the poll interval holds at most one sample: the rule could never
    // judge.
    std::vector<std::pair<std::string, Duration>> windows{{"watchdog.peak_window", c_.watchdog.peakWindow},
                                                          {"watchdog.recurrence.window", c_.watchdog.recurrence.window}};
    for (const WindowKey& w : ruleWindows_) {
      if (!w.rescan) windows.emplace_back(w.key, *w.value);
    }
    for (const auto& [key, window] : windows) {
      mustExceed(key, window, "poll.interval", p.interval,
                 "a shorter window holds fewer than two samples");
    }
    // A device is only seen to be gone or back at a discovery rescan: a grace no longer than the
    // rescan interval would report every driver reload it happens to straddle.
    for (const WindowKey& w : ruleWindows_) {
      if (w.rescan) {
        mustExceed(w.key, *w.value, "poll.discovery_interval", p.discoveryInterval,
                   "a device is seen to leave or return only at a discovery rescan");
      }
    }
  }

 private:
  void mustExceed(const std::string& bigKey, Duration big, const std::string& smallKey,
                  Duration small, std::string_view why) {
    if (big > small) return;
    fail({bigKey, smallKey}, bigKey + " (" + formatDuration(big) + ") must be longer than " +
                                 smallKey + " (" + formatDuration(small) +
                                 "): " + std::string(why));
  }

  void fail(std::initializer_list<std::string> keys, std::string message) {
    for (const std::string& key : keys) {
      const bool hasError = std::any_of(errors_.begin(), errors_.end(),
                                        [&](const ConfigError& e) { return e.key == key; });
      if (hasError) return;
    }
    for (const std::string& key : keys) {
      if (auto mark = r_.markOf(key)) {
        r_.error(*mark, key, std::move(message));
        return;
      }
    }
    r_.error(YAML::Mark::null_mark(), *keys.begin(), std::move(message));
  }

  const Config& c_;
  YamlReader& r_;
  const std::vector<ConfigError>& errors_;
  const WindowKeys& ruleWindows_;
};

ConfigError fileError(const std::string& path, std::string message) {
  return ConfigError{path, 0, 0, "", std::move(message)};
}

}  // namespace

std::string ConfigError::format() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": ";
  if (!key.empty()) out += key + ": ";
  out += message;
  return out;
}

ConfigLoad loadConfigText(std::string_view text, std::string_view fileName, const ConfigSchema& schema) {
  ConfigLoad load;
  YamlReader reader(fileName, load.errors);
  // Every rule's windows are checked, set in the file or not: bind each rule once to collect them
  // (the pointers stay valid: RuleSettingsSet never moves a rule's settings).
  WindowKeys windows;
  for (const RuleSchema& rule : schema.rules) {
    RuleKeys keys(reader, "watchdog.rules." + std::string(rule.name) + ".", &windows);
    rule.bind(keys, load.config.watchdog.rules);
  }
  try {
    const std::string owned(text);
    DocumentCounter counter;
    {
      std::istringstream in(owned);
      YAML::Parser parser(in);
      for (int i = 0; i < 2 && parser.HandleNextDocument(counter); ++i) {
      }
    }
    if (counter.documents > 1) {
      reader.error(counter.secondRoot.value_or(YAML::Mark::null_mark()), "",
                   "only one YAML document is allowed (remove the second '---')");
    }
    if (counter.documents > 0) {
      const YAML::Node root = YAML::Load(owned);
      Loader(load.config, reader, schema).root(Field{root, "", root.Mark()});
    }
    CrossChecks(load.config, reader, load.errors, windows).run();
  } catch (const YAML::Exception& e) {
    // A syntax error stops the parser, so it is the only error of the file.
    load.errors.clear();
    reader.error(e.mark, "", "YAML syntax error: " + e.msg);
  }
  std::stable_sort(load.errors.begin(), load.errors.end(),
                   [](const ConfigError& a, const ConfigError& b) {
                     return a.line != b.line ? a.line < b.line : a.column < b.column;
                   });
  return load;
}

std::vector<ConfigError> validateConfig(const Config& config, const ConfigSchema& schema, std::string_view origin) {
  std::vector<ConfigError> errors;
  YamlReader reader(origin, errors);
  Config copy = config;  // binding needs mutable settings; the copy's windows are the config's values
  WindowKeys windows;
  for (const RuleSchema& rule : schema.rules) {
    RuleKeys keys(reader, "watchdog.rules." + std::string(rule.name) + ".", &windows);
    rule.bind(keys, copy.watchdog.rules);
  }
  CrossChecks(copy, reader, errors, windows).run();
  return errors;
}

ConfigLoad loadConfigFile(const std::string& path, const ConfigSchema& schema) {
  auto text = readRegularFile(path, "config file");
  if (!text) {
    ConfigLoad load;
    load.errors.push_back(fileError(path, text.error().message));
    return load;
  }
  return loadConfigText(*text, path, schema);
}

}  // namespace fabricmon
