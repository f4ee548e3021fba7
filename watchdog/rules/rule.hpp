#pragma once
// What a watchdog rule is: one file pair under watchdog/rules/ (its settings struct with defaults
// and keys in the header; its evaluation, finding texts and RuleDef in the .cpp), registered by one
// entry in rule_table.cpp. Everything else that needs a rule's name or keys (the config loader,
// check-config, the finding tracker, the docs test) derives it from that table.

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "config/config.hpp"
#include "config/rule_settings.hpp"
#include "watchdog/history.hpp"

namespace fabricmon::watchdog {

struct RuleContext;

/// What a rule remembers beyond the History's series, which vanish with their device (ports ever
/// ACTIVE, devices last seen, a BER baseline that takes a day to learn). A rule that needs memory
/// declares its type in its RuleDef (withMemory()); the engine keeps one per rule, across SIGHUP,
/// and the rule reads it as ctx.remembered<T>().
struct RuleState {
  virtual ~RuleState() = default;
  /// What must outlive a restart or upgrade, as JSON; false: nothing to keep. The watchdog keeps
  /// every rule's document in the state file (watchdog/state_file.hpp, docs/deployment.md "State
  /// directory").
  virtual bool save(nlohmann::json& /*out*/) const { return false; }
  /// Takes back what save() wrote. Must accept anything: the file may be from another version.
  virtual void restore(const nlohmann::json& /*in*/) {}
  /// The rule's own series (RuleDef::families) for the watchdog's batch, while the rule is enabled.
  virtual void appendSamples(SampleWriter& /*out*/) {}
  /// The rule was switched off (SIGHUP).
  virtual void disabled() {}
};

/// What the engine prepares for the rules, filled by each enabled rule's plan().
struct EnginePlan {
  HistoryPlan history;
  Nanos stormWindow = 0;  ///< how long the StormLedger remembers storm time (0: not needed)
};

struct RuleDef {
  std::string_view name;
  /// The runbook step its findings belong to: the id of a triage check (triage/checks.cpp,
  /// docs/runbook.md "Triage"), so triage learns a new rule from this table.
  std::string_view triageStep;
  void (*bind)(SettingsBinder& binder, RuleSettingsSet& settings);  ///< declares the rule's config keys
  bool (*enabled)(const RuleSettingsSet& settings);
  void (*plan)(const WatchdogConfig& config, EnginePlan& plan);     ///< the history windows it reads
  void (*evaluate)(RuleContext& ctx);
  /// The rule's memory (RuleState), made once per engine; nullptr: the rule remembers nothing.
  std::unique_ptr<RuleState> (*makeMemory)() = nullptr;
  /// The families of the rule's own series (RuleState::appendSamples), beyond findings.
  std::span<const FamilyDef* const> families = {};

  RuleSchema schema() const { return RuleSchema{name, bind}; }
};

/// Every rule, in a stable order (the order findings are evaluated and listed).
std::span<const RuleDef* const> ruleTable();

/// The rule called `name`, or nullptr.
const RuleDef* findRule(std::string_view name);

}  // namespace fabricmon::watchdog
