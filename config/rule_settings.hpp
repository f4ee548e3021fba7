#pragma once
// How settings meet the config file. Every key of the file is declared one way: through a
// SettingsBinder, by whoever owns the setting — each watchdog rule for its own section (its settings
// struct, defaults included, and its bind()), config/config_keys.cpp for the core sections. The
// loader implements the binder over YAML. A WatchdogConfig holds the settings of every rule by type
// (RuleSettingsSet), so adding a rule touches no file in config/.

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fabricmon {

using Duration = std::chrono::milliseconds;

/// The width of each of `parts` equal parts of `window`: whole seconds, at least one. How a
/// baseline's day is cut (watchdog/day_baseline.hpp) and what the loader holds a parted window to
/// (SettingsBinder::partedWindow).
inline std::chrono::seconds partWidth(Duration window, unsigned parts) {
  return std::max(std::chrono::seconds(1), std::chrono::floor<std::chrono::seconds>(window / parts));
}

/// An allowed numeric interval, printed in interval notation: "(0, 1]", "[0, inf)".
struct Range {
  double min;
  bool minOpen;
  double max;
  bool maxOpen;

  bool contains(double v) const;
  std::string describe() const;
};

inline constexpr Range kPositive{0, true, std::numeric_limits<double>::infinity(), true};
inline constexpr Range kNonNegative{0, false, std::numeric_limits<double>::infinity(), true};
inline constexpr Range kFraction{0, true, 1, false};
inline constexpr Range kProbability{0, true, 1, true};
/// Upper bound of counts in the config (samples, events): larger values are typos.
inline constexpr unsigned kMaxConfigCount = 1'000'000;

/// Checks a string value: returns an error message ("" = good); may normalise the value (strip a
/// trailing '/').
using TextCheck = std::string (*)(std::string& value);

/// The keys of one section of the file (a rule's `watchdog.rules.<name>`, or a core section such
/// as `web`), declared by their owner. Each call declares one key and binds it to the value it
/// fills; a value that fails its check is an error naming file:line:column and the dotted key, and
/// leaves the default in place.
class SettingsBinder {
 public:
  virtual ~SettingsBinder() = default;
  virtual void flag(std::string_view key, bool& value) = 0;
  virtual void count(std::string_view key, unsigned& value, unsigned min, unsigned max) = 0;
  virtual void number(std::string_view key, double& value, const Range& range) = 0;
  virtual void optionalNumber(std::string_view key, std::optional<double>& value, const Range& range) = 0;
  virtual void duration(std::string_view key, Duration& value) = 0;
  /// A duration the rule judges history over: it must exceed poll.interval, or it holds fewer
  /// than two samples and the rule could never judge.
  virtual void window(std::string_view key, Duration& value) = 0;
  /// A duration that must exceed poll.discovery_interval: presence (a device, a port) is only
  /// re-read at a discovery rescan.
  virtual void rescanWindow(std::string_view key, Duration& value) = 0;
  /// A window cut into `parts` equal parts, each of which must hold a reading of the collectors
  /// `fedBy` (comma-separated; the slowest enabled one counts): while the rule is enabled, it must
  /// be at least `parts` times that collector's interval, or parts stay empty and a baseline that
  /// needs most of them is never learned (watchdog/day_baseline.hpp). Also a window().
  virtual void partedWindow(std::string_view key, Duration& value, unsigned parts, std::string_view fedBy) = 0;
  virtual void optionalCount(std::string_view key, std::optional<unsigned>& value, unsigned min, unsigned max) = 0;
  /// A list of strings, each passed to `check` (returns an error message, "" = good); no duplicates.
  virtual void stringList(std::string_view key, std::vector<std::string>& value,
                          std::string (*check)(const std::string&)) = 0;
  /// A list of ECMAScript regexes, each compiled to check it.
  virtual void regexList(std::string_view key, std::vector<std::string>& value) = 0;
  /// Unset (`~`) or a list of integers in [min, max], no duplicates.
  virtual void optionalCountList(std::string_view key, std::optional<std::vector<unsigned>>& value, unsigned min,
                                 unsigned max) = 0;

  /// A non-empty string; `check` may be null.
  virtual void text(std::string_view key, std::string& value, TextCheck check) = 0;
  /// A string, or unset when the value is empty or `~`; `check` (may be null) sees a set value.
  /// `position` (may be null) receives "file:line:column" of a set value, for later messages.
  virtual void optionalText(std::string_view key, std::optional<std::string>& value, TextCheck check,
                            std::string* position) = 0;
  /// A duration within [min, max] (Duration::max(): no upper bound); `zeroTurnsOff`: a bare 0 is
  /// allowed too.
  virtual void durationBetween(std::string_view key, Duration& value, Duration min, Duration max,
                               bool zeroTurnsOff) = 0;
  /// A duration, or unset when the value is empty or `~`.
  virtual void optionalDuration(std::string_view key, std::optional<Duration>& value) = 0;
  /// A list of at most `maxItems` strings, each passed to `check`; `what` names the items in the
  /// message for a value that is not a list ("URLs"). An empty value leaves the default.
  virtual void textList(std::string_view key, std::vector<std::string>& value, TextCheck check, size_t maxItems,
                        std::string_view what) = 0;
  /// A nested map. `declare` declares its keys on the binder it is given — when the section is in
  /// the file (a section may add what its keys fill, as `collectors.<name>` does); `check` then
  /// returns the errors of combinations of its keys, reported at the section.
  virtual void section(std::string_view key, std::function<void(SettingsBinder&)> declare,
                       std::function<std::vector<std::string>()> check) = 0;
};

/// The settings of every rule, keyed by the settings type. A rule absent from the set reads as its
/// defaults, so `WatchdogConfig{}` is the documented default configuration.
class RuleSettingsSet {
 public:
  RuleSettingsSet() = default;
  RuleSettingsSet(const RuleSettingsSet& other) { *this = other; }
  RuleSettingsSet(RuleSettingsSet&&) noexcept = default;
  RuleSettingsSet& operator=(RuleSettingsSet&&) noexcept = default;
  RuleSettingsSet& operator=(const RuleSettingsSet& other) {
    if (this == &other) return *this;
    slots_.clear();
    for (const Slot& s : other.slots_) slots_.push_back(Slot{s.ops, s.ops->clone(s.value.get())});
    return *this;
  }

  /// The settings of type T, created with their defaults on first use.
  template <class T>
  T& get() {
    const Ops* ops = &opsOf<T>();
    for (Slot& s : slots_) {
      if (s.ops == ops) return *static_cast<T*>(s.value.get());
    }
    slots_.push_back(Slot{ops, std::make_shared<T>()});
    return *static_cast<T*>(slots_.back().value.get());
  }
  template <class T>
  const T& get() const {
    const Ops* ops = &opsOf<T>();
    for (const Slot& s : slots_) {
      if (s.ops == ops) return *static_cast<const T*>(s.value.get());
    }
    static const T defaults{};
    return defaults;
  }

  /// Equal when every rule's settings are equal, an absent rule counting as its defaults.
  bool operator==(const RuleSettingsSet& other) const {
    return coveredBy(other) && other.coveredBy(*this);
  }

 private:
  struct Ops {
    std::shared_ptr<void> (*clone)(const void*);
    bool (*equal)(const void*, const void*);  ///< nullptr second = compare with the defaults
  };
  struct Slot {
    const Ops* ops;
    std::shared_ptr<void> value;
  };
  template <class T>
  static const Ops& opsOf() {
    static const Ops ops{
        [](const void* v) -> std::shared_ptr<void> { return std::make_shared<T>(*static_cast<const T*>(v)); },
        [](const void* a, const void* b) {
          static const T defaults{};
          return *static_cast<const T*>(a) == (b != nullptr ? *static_cast<const T*>(b) : defaults);
        }};
    return ops;
  }
  bool coveredBy(const RuleSettingsSet& other) const {
    for (const Slot& s : slots_) {
      const void* theirs = nullptr;
      for (const Slot& o : other.slots_) {
        if (o.ops == s.ops) theirs = o.value.get();
      }
      if (!s.ops->equal(s.value.get(), theirs)) return false;
    }
    return true;
  }

  std::vector<Slot> slots_;
};

/// What the config loader needs to know of a rule: its name and how to bind its keys.
struct RuleSchema {
  std::string_view name;
  void (*bind)(SettingsBinder& binder, RuleSettingsSet& settings);
};

/// What the config loader needs to know of a collector: its name and, when it has settings of its
/// own (`collectors.<name>.<key>` beside `enabled` and `interval`), how to bind their keys.
struct CollectorSchema {
  std::string_view name;
  void (*bind)(SettingsBinder& binder, RuleSettingsSet& settings) = nullptr;
  /// Its interval when `collectors.<name>.interval` is unset: a default of its own (non-zero), else
  /// poll.slow_interval for a slow collector and poll.interval for a fast one.
  Duration ownInterval{};
  bool slow = false;
};

/// The names the config may refer to, from the one table of each kind (the watchdog's rule table,
/// the collector registry); the daemon assembles it (daemon/config_schema.hpp).
struct ConfigSchema {
  std::vector<RuleSchema> rules;
  std::vector<CollectorSchema> collectors;
};

}  // namespace fabricmon
