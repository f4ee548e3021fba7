#pragma once
// What a watchdog rule is: one file pair under watchdog/rules/ (its settings struct with defaults
// and keys in the header; its evaluation, finding texts and RuleDef in the .cpp), registered by one
// entry in rule_table.cpp. Everything else that needs a rule's name or keys (the config loader,
// check-config, the finding tracker, the docs test) derives it from that table.

#include <span>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "config/config.hpp"
#include "config/rule_settings.hpp"
#include "watchdog/history.hpp"

namespace fabricmon::watchdog {

struct RuleContext;
struct RuleMemory;

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
  /// A rule whose memory must outlive a restart or upgrade (a baseline that takes a day to learn)
  /// declares it here: what it keeps, as JSON, and how it takes it back. The watchdog keeps every
  /// rule's document in the state file (watchdog/state_file.hpp, docs/deployment.md "State
  /// directory"). nullptr: nothing to keep. `restoreState` must accept anything: the file may be
  /// from another version.
  void (*saveState)(const RuleMemory& memory, nlohmann::json& out) = nullptr;
  void (*restoreState)(RuleMemory& memory, const nlohmann::json& in) = nullptr;

  RuleSchema schema() const { return RuleSchema{name, bind}; }
};

/// Every rule, in a stable order (the order findings are evaluated and listed).
std::span<const RuleDef* const> ruleTable();

/// The rule called `name`, or nullptr.
const RuleDef* findRule(std::string_view name);

}  // namespace fabricmon::watchdog
