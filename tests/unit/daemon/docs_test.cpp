// docs/metrics.md and the code must list the same metric names, and every rule (from the rule
// table) and collector (from the registry) must be documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "collectors/registry.hpp"
#include "daemon/self_metrics.hpp"
#include "watchdog/rules/rule.hpp"
#include "watchdog/watchdog.hpp"

namespace fabricmon {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> documentedMetrics() {
  const std::string text = readFile(FABRICMON_SOURCE_DIR "/docs/metrics.md");
  std::set<std::string> names;
  static const std::regex kRow(R"(^\|\s*`(fabricmon_[a-z0-9_]+)`)");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kRow)) names.insert(m[1].str());
  }
  return names;
}

std::set<std::string> codeMetrics() {
  std::set<std::string> names;
  const auto dir = std::filesystem::temp_directory_path();
  SourcesConfig sc;
  sc.sysfsRoot = dir.string();
  sc.ethtoolDir = dir.string();
  sc.dcbDir = dir.string();
  const Sources sources = makeSources(sc);
  const Config config;
  for (const auto& entry : collectorRegistry()) {
    const auto collector = entry.make(sources, config);
    EXPECT_EQ(collector->name(), entry.name);
    for (const FamilyDef* f : collector->families()) names.insert(std::string(f->name));
  }
  for (const FamilyDef* f : SelfMetrics::families()) names.insert(std::string(f->name));
  for (const FamilyDef* f : Watchdog::families()) names.insert(std::string(f->name));
  return names;
}

TEST(DocsTest, MetricsPageListsExactlyTheMetricsTheCodeEmits) {
  const auto documented = documentedMetrics();
  const auto code = codeMetrics();
  ASSERT_GT(code.size(), 40u);
  for (const auto& n : code) EXPECT_TRUE(documented.count(n)) << n << " is emitted but not in docs/metrics.md";
  for (const auto& n : documented) EXPECT_TRUE(code.count(n)) << n << " is documented but no code emits it";
}

TEST(DocsTest, EveryRuleIsDocumented) {
  const std::string rules = readFile(FABRICMON_SOURCE_DIR "/docs/rules.md");
  const std::string config = readFile(FABRICMON_SOURCE_DIR "/docs/configuration.md");
  ASSERT_GE(watchdog::ruleTable().size(), 7u);
  for (const watchdog::RuleDef* rule : watchdog::ruleTable()) {
    const std::string name(rule->name);
    EXPECT_NE(rules.find("## " + name), std::string::npos) << name << " has no section in docs/rules.md";
    EXPECT_NE(config.find(name), std::string::npos) << name << " is not in docs/configuration.md";
  }
}

TEST(DocsTest, EveryCollectorIsDocumented) {
  const std::string config = readFile(FABRICMON_SOURCE_DIR "/docs/configuration.md");
  for (const auto& entry : collectorRegistry()) {
    EXPECT_NE(config.find(std::string(entry.name)), std::string::npos)
        << entry.name << " is not in docs/configuration.md";
  }
}

}  // namespace
}  // namespace fabricmon
