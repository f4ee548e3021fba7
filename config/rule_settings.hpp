#pragma once
// How a watchdog rule's settings meet the config file without the config layer knowing the rule.
// Each rule owns its settings struct (defaults included) and declares its keys through a
// SettingsBinder; the loader implements the binder over YAML. A WatchdogConfig holds the settings
// of every rule by type (RuleSettingsSet), so adding a rule touches no file in config/.

#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fabricmon {

using Duration = std::chrono::milliseconds;

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

/// The keys of one rule's section (`watchdog.rules.<name>`), declared by the rule.
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

/// The names the config may refer to, from the one table of each kind (the watchdog's rule table,
/// the collector registry); the daemon assembles it (daemon/config_schema.hpp).
struct ConfigSchema {
  std::vector<RuleSchema> rules;
  std::vector<std::string_view> collectors;
};

}  // namespace fabricmon
