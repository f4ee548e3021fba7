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

#include "config/config_keys.hpp"
#include "config/duration.hpp"
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

constexpr Duration kMinPollInterval =
    10ms;  // below this the sampling loop would only measure itself

/// Rule windows (dotted key → value) for the check that each exceeds poll.interval, or (rescan)
/// poll.discovery_interval.
struct WindowKey {
  std::string key;
  const Duration* value;
  bool rescan = false;
  unsigned parts = 0;  ///< a parted window (SettingsBinder::partedWindow): its parts
  std::string fedBy;   ///< ... the collectors whose readings fill them, comma-separated
  const bool* enabled = nullptr;  ///< ... and its rule's `enabled` (a rule that is off fills nothing)
};
using WindowKeys = std::vector<WindowKey>;

// The keys of a section, as their owner declares them (config/rule_settings.hpp), turned into
// reader entries. The values are bound by reference: the entries write straight into the settings.
class YamlBinder final : public SettingsBinder {
 public:
  /// `prefix`: the section's dotted key and a '.'; `windows` (may be null) collects rule windows.
  YamlBinder(YamlReader& reader, std::string prefix, WindowKeys* windows)
      : r_(reader), prefix_(std::move(prefix)), windows_(windows) {}

  std::span<const Entry> entries() const { return entries_; }

  void flag(std::string_view key, bool& v) override {
    add(key, [this, &v](const Field& f) { r_.readBool(f, v); });
    if (key == "enabled") enabled_ = &v;
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
  void partedWindow(std::string_view key, Duration& v, unsigned parts, std::string_view fedBy) override {
    duration(key, v);
    if (windows_ != nullptr) {
      windows_->push_back(WindowKey{prefix_ + std::string(key), &v, false, parts, std::string(fedBy), enabled_});
    }
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

  void text(std::string_view key, std::string& v, TextCheck check) override {
    add(key, [this, &v, check](const Field& f) {
      std::string value;
      if (!r_.readString(f, value)) return;
      if (check != nullptr) {
        if (std::string e = check(value); !e.empty()) return r_.error(f, std::move(e));
      }
      v = std::move(value);
    });
  }
  void optionalText(std::string_view key, std::optional<std::string>& v, TextCheck check,
                    std::string* position) override {
    add(key, [this, &v, check, position](const Field& f) {
      std::optional<std::string> value;
      if (!r_.readOptionalString(f, value)) return;
      if (value && check != nullptr) {
        if (std::string e = check(*value); !e.empty()) return r_.error(f, std::move(e));
      }
      v = std::move(value);
      if (position != nullptr) *position = v ? r_.position(f.mark) : std::string();
    });
  }
  void durationBetween(std::string_view key, Duration& v, Duration min, Duration max, bool zeroTurnsOff) override {
    add(key, [this, &v, min, max, zeroTurnsOff](const Field& f) {
      if (zeroTurnsOff && f.node.IsScalar() && f.node.Scalar() == "0") {
        v = Duration{0};
        return;
      }
      if (max != Duration::max()) {
        r_.readDurationBetween(f, v, min, max);
        return;
      }
      Duration value = v;
      if (!r_.readDuration(f, value)) return;
      if (value < min) {
        return r_.error(f, "must be at least " + formatDuration(min) + ", got " + formatDuration(value));
      }
      v = value;
    });
  }
  void optionalDuration(std::string_view key, std::optional<Duration>& v) override {
    add(key, [this, &v](const Field& f) { r_.readOptionalDuration(f, v); });
  }
  void textList(std::string_view key, std::vector<std::string>& v, TextCheck check, size_t maxItems,
                std::string_view what) override {
    add(key, [this, &v, check, maxItems, what](const Field& f) {
      if (f.node.IsNull()) return;
      if (!f.node.IsSequence()) {
        return r_.error(f, "expected a list of " + std::string(what) + ", got " + config_detail::describeNode(f.node));
      }
      if (f.node.size() > maxItems) return r_.error(f, "at most " + std::to_string(maxItems) + " " + std::string(what));
      std::vector<std::string> values;
      for (std::size_t i = 0; i < f.node.size(); ++i) {
        const Field item{f.node[i], f.key + "[" + std::to_string(i) + "]", f.node[i].Mark()};
        std::string value;
        if (!r_.readString(item, value)) return;
        if (check != nullptr) {
          if (std::string e = check(value); !e.empty()) return r_.error(item, std::move(e));
        }
        values.push_back(std::move(value));
      }
      v = std::move(values);
    });
  }
  void section(std::string_view key, std::function<void(SettingsBinder&)> declare,
               std::function<std::vector<std::string>()> check) override {
    add(key, [this, key, declare = std::move(declare), check = std::move(check)](const Field& f) {
      YamlBinder keys(r_, prefix_ + std::string(key) + ".", windows_);
      declare(keys);
      r_.readMap(f, keys.entries());
      if (check) {
        for (std::string& e : check()) r_.error(f, std::move(e));
      }
    });
  }

 private:
  void add(std::string_view key, std::function<void(const Field&)> read) {
    entries_.push_back(Entry{key, std::move(read)});
  }

  YamlReader& r_;
  std::string prefix_;
  WindowKeys* windows_;
  const bool* enabled_ = nullptr;  ///< the section's `enabled` flag, once declared
  std::vector<Entry> entries_;
};

// The file's top level: the keys config/config_keys.cpp declares (the rules' sections included).
void readRoot(Config& config, YamlReader& reader, const ConfigSchema& schema, const Field& f) {
  if (!f.node.IsNull() && !f.node.IsMap()) {
    reader.error(f, "the top level must be a map of sections (web, sources, poll, ...), got " +
                        config_detail::describeNode(f.node));
    return;
  }
  YamlBinder keys(reader, "", nullptr);
  config_detail::bindConfig(keys, config, schema);
  reader.readMap(f, keys.entries());
}

// Rules that involve more than one key. Each error is reported at the first of `keys` the file
// sets (the defaults alone always pass), and skipped when one of the keys already has an error.
class CrossChecks {
 public:
  CrossChecks(const Config& config, YamlReader& reader, const std::vector<ConfigError>& errors,
              const WindowKeys& ruleWindows, const ConfigSchema& schema)
      : c_(config), r_(reader), errors_(errors), ruleWindows_(ruleWindows), schema_(schema) {}

  void run() {
    const PollConfig& p = c_.poll;
    if (p.interval < kMinPollInterval) {
      fail({"poll.interval"}, "must be at least " + formatDuration(kMinPollInterval) + ", got " +
                                  formatDuration(p.interval));
    }
    mustExceed(
        "poll.stale_after", p.staleAfter, "poll.slow_interval", p.slowInterval,
        "otherwise the slow collectors' series would drop out of /metrics between their runs");
    if (p.exportOnlyInterval) {
      mustExceed("poll.stale_after", p.staleAfter, "poll.export_only_interval", *p.exportOnlyInterval,
                 "otherwise /metrics would show values read longer ago than that");
    }
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
    // A baseline's parts are filled by readings: a part shorter than the interval between them
    // is left empty now and then, and a baseline that needs most parts may never be learned.
    for (const WindowKey& w : ruleWindows_) {
      if (w.parts == 0 || (w.enabled != nullptr && !*w.enabled)) continue;
      const auto [feeder, every] = slowestOf(w.fedBy);
      if (every.count() <= 0 || partWidth(*w.value, w.parts) >= every) continue;
      fail({w.key, feeder}, w.key + " (" + formatDuration(*w.value) + ") must be at least " +
                                std::to_string(w.parts) + " × " + feeder + " (" + formatDuration(every) +
                                "): each of its " + std::to_string(w.parts) +
                                " parts (whole seconds) must be able to hold a reading, or the baseline may "
                                "never be learned and the rule never judges against it");
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
  /// Of the comma-separated `collectors`, the one that runs least often: the key that sets its
  /// interval and the interval. Disabled collectors fill nothing (interval 0 when all are).
  std::pair<std::string, Duration> slowestOf(std::string_view collectors) const {
    std::pair<std::string, Duration> slowest{"", Duration{}};
    while (!collectors.empty()) {
      const size_t comma = collectors.find(',');
      auto candidate = intervalOf(collectors.substr(0, comma));
      if (candidate.second > slowest.second) slowest = std::move(candidate);
      collectors = comma == std::string_view::npos ? std::string_view{} : collectors.substr(comma + 1);
    }
    return slowest;
  }

  /// The key that sets how often `collector` runs and the interval it runs at; a disabled
  /// collector fills nothing (interval 0: nothing to check).
  std::pair<std::string, Duration> intervalOf(std::string_view collector) const {
    const std::string key = "collectors." + std::string(collector) + ".interval";
    for (const CollectorConfig& cc : c_.collectors) {
      if (cc.name != collector) continue;
      if (!cc.enabled) return {key, Duration{}};
      if (cc.interval) return {key, *cc.interval};
    }
    for (const CollectorSchema& cs : schema_.collectors) {
      if (cs.name != collector) continue;
      if (cs.ownInterval.count() > 0) return {key, cs.ownInterval};
      return cs.slow ? std::pair{std::string("poll.slow_interval"), c_.poll.slowInterval}
                     : std::pair{std::string("poll.interval"), c_.poll.interval};
    }
    return {key, Duration{}};  // not a collector of this build: nothing fills it
  }

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
  const ConfigSchema& schema_;
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
    YamlBinder keys(reader, "watchdog.rules." + std::string(rule.name) + ".", &windows);
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
      readRoot(load.config, reader, schema, Field{root, "", root.Mark()});
    }
    CrossChecks(load.config, reader, load.errors, windows, schema).run();
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
    YamlBinder keys(reader, "watchdog.rules." + std::string(rule.name) + ".", &windows);
    rule.bind(keys, copy.watchdog.rules);
  }
  CrossChecks(copy, reader, errors, windows, schema).run();
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
