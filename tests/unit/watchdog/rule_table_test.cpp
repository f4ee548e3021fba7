// The rule table is the one list of rules: the config loader, the finding tracker and the docs
// derive every rule name and key from it.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "config/config_loader.hpp"
#include "daemon/config_schema.hpp"
#include "watchdog/rules/link_flap.hpp"
#include "watchdog/rules/pause_storm.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon::watchdog {
namespace {

TEST(RuleTable, NamesAreUniqueSnakeCaseAndFindable) {
  std::set<std::string_view> seen;
  static const std::regex kSnake("[a-z][a-z0-9_]*");
  for (const RuleDef* rule : ruleTable()) {
    EXPECT_TRUE(seen.insert(rule->name).second) << rule->name << " is in the table twice";
    EXPECT_TRUE(std::regex_match(std::string(rule->name), kSnake)) << rule->name;
    EXPECT_EQ(findRule(rule->name), rule);
  }
  EXPECT_EQ(findRule("pause_storms"), nullptr);
}

TEST(RuleTable, EveryRuleCanBeSwitchedOffByItsNameInTheConfig) {
  for (const RuleDef* rule : ruleTable()) {
    EXPECT_TRUE(rule->enabled(WatchdogConfig{}.rules)) << rule->name << " is on by default";
    const std::string yaml = "watchdog:\n  rules:\n    " + std::string(rule->name) + ":\n      enabled: false\n";
    const ConfigLoad load = loadConfigText(yaml, "off.yaml", configSchema());
    ASSERT_TRUE(load.ok()) << rule->name << ": " << (load.errors.empty() ? "" : load.errors[0].format());
    EXPECT_FALSE(rule->enabled(load.config.watchdog.rules)) << rule->name;
    for (const RuleDef* other : ruleTable()) {
      if (other != rule) {
        EXPECT_TRUE(other->enabled(load.config.watchdog.rules)) << other->name;
      }
    }
  }
}

TEST(RuleTable, EveryRulesWindowsAreCheckedAgainstThePollInterval) {
  // A window no longer than poll.interval is an error naming the rule's own key (reported at the
  // key the file set, poll.interval; one error per
  // poll.interval: the watchdog's own peak_window is made long enough not to be that error).
  const ConfigLoad load = loadConfigText(
      "poll:\n  interval: 90s\n  stale_after: 20m\nwatchdog:\n  peak_window: 5m\n", "slow.yaml", configSchema());
  ASSERT_FALSE(load.ok());
  bool dcqcnWindow = false;
  for (const ConfigError& e : load.errors) {
    dcqcnWindow |= e.message.find("watchdog.rules.dcqcn_misconfig.window") != std::string::npos;
  }
  EXPECT_TRUE(dcqcnWindow) << load.errors.front().format();
}

TEST(RuleSettingsSet, AnAbsentRuleReadsAsItsDefaults) {
  RuleSettingsSet empty, touched;
  (void)touched.get<PauseStormRule>();
  EXPECT_EQ(empty, touched);
  EXPECT_EQ(empty.get<PauseStormRule>().pauseFraction, PauseStormRule{}.pauseFraction);
  touched.get<PauseStormRule>().pauseFraction = 0.5;
  EXPECT_NE(empty, touched);
  EXPECT_NE(touched, empty);
}

TEST(RuleSettingsSet, ACopyIsIndependent) {
  RuleSettingsSet a;
  a.get<LinkFlapRule>().downEvents = 7;
  RuleSettingsSet b = a;
  b.get<LinkFlapRule>().downEvents = 9;
  EXPECT_EQ(a.get<LinkFlapRule>().downEvents, 7u);
  EXPECT_EQ(b.get<LinkFlapRule>().downEvents, 9u);
  b = a;
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace fabricmon::watchdog
