#include "config/config_loader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "config/duration.hpp"
#include "config/listen_address.hpp"
#include "config/yaml_reader.hpp"

namespace fabricmon {
namespace {

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
constexpr std::size_t kMaxFileBytes = 1 << 20;
// Fewer than 4 slots leave no room for a scraper beside a browser and a curl; above 10000 the
// descriptors would crowd out the counter files (docs/configuration.md, web.max_connections).
constexpr unsigned kMinConnections = 4;
constexpr unsigned kMaxConnections = 10000;

/// Rule windows (dotted key → value) for the check that each exceeds poll.interval.
using WindowKeys = std::vector<std::pair<std::string, const Duration*>>;

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
    if (windows_ != nullptr) windows_->emplace_back(prefix_ + std::string(key), &v);
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
        {"sources", [&](const Field& s) { sources(s); }},
        {"poll", [&](const Field& s) { poll(s); }},
        {"devices", [&](const Field& s) { devices(s); }},
        {"netdev", [&](const Field& s) { netdev(s); }},
        {"collectors", [&](const Field& s) { collectors(s); }},
        {"ethtool", [&](const Field& s) { ethtool(s); }},
        {"qos", [&](const Field& s) { qos(s); }},
        {"log", [&](const Field& s) { log(s); }},
        {"watchdog", [&](const Field& s) { watchdog(s); }},
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
        {"dcb_dir", [&](const Field& v) { r_.readOptionalString(v, c_.sources.dcbDir); }},
        {"max_open_files",
         [&](const Field& v) { r_.readUnsigned(v, c_.sources.maxOpenFiles, 0, kMaxConfigCount); }},
        {"mad_timeout",
         [&](const Field& v) {
           Duration timeout = c_.sources.madTimeout;
           if (!r_.readDuration(v, timeout)) return;
           if (timeout < 1ms || timeout > 10s) {
             r_.error(v, "must be between 1ms and 10s, got " + formatDuration(timeout));
             return;
           }
           c_.sources.madTimeout = timeout;
         }},
        {"mad_retries", [&](const Field& v) { r_.readUnsigned(v, c_.sources.madRetries, 0, 5); }},
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

  void watchdog(const Field& f) {
    WatchdogConfig& w = c_.watchdog;
    const Entry entries[] = {
        {"peak_window", [&](const Field& v) { r_.readDuration(v, w.peakWindow); }},
        {"min_samples", [&](const Field& v) { r_.readUnsigned(v, w.minSamples, 1, kMaxConfigCount); }},
        {"rules", [&](const Field& v) { rules(v); }},
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
    std::vector<std::pair<std::string, Duration>> windows{{"watchdog.peak_window", c_.watchdog.peakWindow}};
    for (const auto& [key, window] : ruleWindows_) windows.emplace_back(key, *window);
    for (const auto& [key, window] : windows) {
      mustExceed(key, window, "poll.interval", p.interval,
                 "a shorter window holds fewer than two samples");
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

std::string errnoText(int errnum) {
  const char* name = strerrorname_np(errnum);
  return std::string(std::strerror(errnum)) + " (" +
         (name != nullptr ? name : std::to_string(errnum)) + ")";
}

}  // namespace

Result<int> openRegularFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{errnoText(errno), errno};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error{errnoText(err), err};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    const int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    return Error{std::string("not a regular file (") + kind + "): " + strerrorname_np(err), err};
  }
  // Regular files never block; clear O_NONBLOCK anyway so reads behave as documented.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

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
    const std::vector<YAML::Node> documents = YAML::LoadAll(std::string(text));
    if (documents.size() > 1) {
      reader.error(documents[1].Mark(), "",
                   "only one YAML document is allowed (remove the second '---')");
    }
    if (!documents.empty()) {
      const YAML::Node& root = documents.front();
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
  auto opened = openRegularFile(path);
  if (!opened) {
    ConfigLoad load;
    load.errors.push_back(fileError(path, "cannot open config file: " + opened.error().message));
    return load;
  }
  const int fd = *opened;
  std::string text;
  std::string failure;
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failure = "cannot read config file: " + errnoText(errno);
      break;
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxFileBytes) {
      failure = "config file is larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB";
      break;
    }
  }
  ::close(fd);
  if (!failure.empty()) {
    ConfigLoad load;
    load.errors.push_back(fileError(path, std::move(failure)));
    return load;
  }
  return loadConfigText(text, path, schema);
}

}  // namespace fabricmon
