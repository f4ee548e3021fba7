#pragma once
// What every rule sees: the RuleContext (history, config, subjects, the finding tracker) and
// defineRule(), which turns a rule's settings struct and functions into its RuleDef (rule.hpp).
// docs/rules.md documents each rule.

#include <chrono>
#include <map>
#include <string>
#include <string_view>

#include "config/config.hpp"
#include "watchdog/finding_tracker.hpp"
#include "watchdog/history.hpp"
#include "watchdog/subjects.hpp"
#include "watchdog/rules/rule.hpp"
#include "watchdog/storm_ledger.hpp"

namespace fabricmon::watchdog {

inline Nanos toNanos(Duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); }

struct RuleContext {
  const History& history;
  const WatchdogConfig& config;
  const QosConfig& qos;
  const Subjects& subjects;  ///< history.subjects(): ports, interfaces, devices and their inputs
  FindingTracker& tracker;
  StormLedger& storms;
  std::string rocePriority;  ///< qos.rocePriority as a label value
  std::string cnpPriority;
  Nanos now = kNever;        ///< time of this evaluation (the snapshot's)
  /// Wall-clock time of this evaluation: what outlives a restart (the state file) is dated by it.
  std::chrono::system_clock::time_point wallNow{};
  size_t rule = 0;           ///< index in ruleTable() of the rule being evaluated
  RuleState* memory = nullptr;  ///< the memory of the rule being evaluated (RuleDef::makeMemory)

  /// The memory of the rule being evaluated, as the type its RuleDef declares (withMemory<T>).
  template <class T>
  T& remembered() const {
    return static_cast<T&>(*memory);
  }

  /// The settings of a rule (its own, or another's it depends on).
  template <class S>
  const S& settings() const {
    return config.rules.get<S>();
  }
  /// Reports a verdict of the rule being evaluated.
  void observe(std::string_view reason, Severity severity, const Subject& subject, const Policy& policy,
               const Verdict& verdict) {
    tracker.observe(rule, reason, severity, subject, policy, verdict);
  }
  /// Whether the rule being evaluated has an active finding `reason` about `subject`.
  bool isActive(std::string_view reason, const Subject& subject) const {
    return tracker.isActive(rule, reason, subject);
  }

  /// A series with enough samples to be judged (counters need two for a delta).
  bool ready(const Tracked* s) const {
    if (s == nullptr) return false;
    unsigned need = config.minSamples;
    if (inputFamily(s->fam).counter()) need = std::max(need, 2u);
    return s->samples >= need;
  }
  /// A counter with a judged rate (see History::judgeRate: cadence-proof).
  bool rated(const Tracked* s) const { return ready(s) && s->rated(); }
  /// The RDMA port is known to be not ACTIVE or its physical link not up.
  static bool portDown(const PortRef& port);
  /// The interface is known to be down (operstate, or its RDMA port).
  static bool interfaceDown(const IfaceRef& iface);
  /// "vendor/part number/serial number" of the interface's module; "" when not read, without a
  /// serial number, or read with a bad checksum (an I2C glitch in its bytes). Another module is
  /// another laser and another link budget: its own normal.
  static std::string moduleIdentity(const IfaceRef& iface);
  /// The subjects of a series about a NIC, from its device, port and interface labels: a series of
  /// a device without a port (a whole PCI function's) is about each port of that device the
  /// subjects know; otherwise, or when they know none, it is about what its labels name. Calls
  /// `judge(subject)` for each.
  template <class F>
  void forEachNicSubject(const Tracked& s, F&& judge) const {
    const std::string_view device = s.label("device"), port = s.label("port");
    if (!device.empty() && port.empty()) {
      bool any = false;
      for (const PortRef& p : subjects.ports()) {
        if (p.device != device) continue;
        any = true;
        judge(Subject{device, p.port, p.interface, {}});
      }
      if (any) return;
    }
    judge(Subject{device, port, s.label("interface"), {}});
  }
};

/// The RuleDef of a rule whose settings struct is S (with defaults, `bool enabled` and
/// `void bind(SettingsBinder&)`), planned by Plan and evaluated by Evaluate.
template <class S, void (*Plan)(const S&, EnginePlan&), void (*Evaluate)(RuleContext&, const S&)>
constexpr RuleDef defineRule(std::string_view name, std::string_view triageStep) {
  return RuleDef{
      name,
      triageStep,
      [](SettingsBinder& binder, RuleSettingsSet& set) { set.get<S>().bind(binder); },
      [](const RuleSettingsSet& set) { return set.get<S>().enabled; },
      [](const WatchdogConfig& config, EnginePlan& plan) { Plan(config.rules.get<S>(), plan); },
      [](RuleContext& ctx) { Evaluate(ctx, ctx.settings<S>()); },
  };
}

/// `def` with a memory of type T (a RuleState) and the families of its own series.
template <class T>
constexpr RuleDef withMemory(RuleDef def, std::span<const FamilyDef* const> families = {}) {
  def.makeMemory = []() -> std::unique_ptr<RuleState> { return std::make_unique<T>(); };
  def.families = families;
  return def;
}

/// HistoryPlan: keep `window` of history for each of `fams` (the longest any rule asks for wins).
inline void needHistory(EnginePlan& plan, std::initializer_list<Fam> fams, Duration window) {
  for (Fam f : fams) {
    auto& w = plan.history.longWindow[static_cast<size_t>(f)];
    w = std::max(w, toNanos(window));
  }
}

/// PortState values (Documentation/ABI/stable/sysfs-class-infiniband).
inline constexpr double kPortActive = 4;
inline constexpr double kPhysLinkUp = 5;
inline constexpr double kPhysDisabled = 3;

}  // namespace fabricmon::watchdog
