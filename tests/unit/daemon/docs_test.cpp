// docs/metrics.md and the code must list the same metric names, and every rule (from the rule
// table) and collector (from the registry) must be documented.
#include <gtest/gtest.h>

#include "window/recent_samples.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "collectors/registry.hpp"
#include "daemon/read_waits.hpp"
#include "daemon/self_metrics.hpp"
#include "exporters/alertmanager_pusher.hpp"
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

std::vector<const FamilyDef*> codeFamilies() {
  std::vector<const FamilyDef*> families;
  const auto dir = std::filesystem::temp_directory_path();
  SourcesConfig sc;
  sc.sysfsRoot = dir.string();
  sc.ethtoolDir = dir.string();
  sc.dcbDir = dir.string();
  const Sources sources = makeSources(sc);
  const Config config;
  for (const CollectorEntry* entry : collectorRegistry()) {
    const auto collector = entry->make(sources, config);
    EXPECT_EQ(collector->name(), entry->name);
    for (const FamilyDef* f : collector->families()) families.push_back(f);
  }
  for (auto group : {SelfMetrics::families(), Watchdog::families(), AlertmanagerPusher::families(),
                     RecentSamples::families(), ReadWaits::families()}) {
    families.insert(families.end(), group.begin(), group.end());
  }
  return families;
}

std::set<std::string> codeMetrics() {
  std::set<std::string> names;
  for (const FamilyDef* f : codeFamilies()) names.insert(std::string(f->name));
  return names;
}

std::set<std::string> splitLabels(std::string_view list) {
  std::set<std::string> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty() && item != "—") out.emplace(item);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return out;
}

// Each family is defined once, in code (model/families/ for the collectors'); the page's row must
// say the same type, unit and label names, so a reader of docs/metrics.md reads the definition.
TEST(DocsTest, MetricsPageRowsAgreeWithTheFamilyDefinitions) {
  struct Row {
    std::string type, unit;
    std::set<std::string> labels;
  };
  std::map<std::string, Row> rows;
  static const std::regex kRow(R"(^\|\s*`(fabricmon_[a-z0-9_]+)`\s*\|\s*(\w+)\s*\|([^|]*)\|([^|]*)\|)");
  std::istringstream lines(readFile(FABRICMON_SOURCE_DIR "/docs/metrics.md"));
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, kRow)) continue;
    std::string unit = m[4].str();
    unit.erase(0, unit.find_first_not_of(' '));
    unit.erase(unit.find_last_not_of(' ') + 1);
    rows[m[1].str()] = Row{m[2].str(), unit, splitLabels(m[3].str())};
  }
  for (const FamilyDef* f : codeFamilies()) {
    const auto it = rows.find(std::string(f->name));
    if (it == rows.end()) continue;  // MetricsPageListsExactlyTheMetricsTheCodeEmits reports it
    const char* type = f->type == MetricType::kCounter ? "counter" : f->type == MetricType::kGauge ? "gauge" : "histogram";
    EXPECT_EQ(it->second.type, type) << f->name;
    EXPECT_FALSE(f->unit.empty()) << f->name << " has no unit in its definition";
    EXPECT_EQ(it->second.unit, f->unit) << f->name;
    EXPECT_EQ(it->second.labels, splitLabels(f->labels)) << f->name;
  }
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

TEST(DocsTest, EveryRuleHasARunbookSection) {
  // The anchor of "### Port down" is #port-down: each rule's alert links to the section named after it.
  std::set<std::string> anchors;
  std::istringstream runbook(readFile(FABRICMON_SOURCE_DIR "/docs/runbook.md"));
  for (std::string line; std::getline(runbook, line);) {
    if (line.rfind("### ", 0) != 0) continue;
    std::string anchor;
    for (char c : line.substr(4)) anchor += c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    anchors.insert(anchor);
  }
  for (const watchdog::RuleDef* rule : watchdog::ruleTable()) {
    std::string anchor(rule->name);
    std::replace(anchor.begin(), anchor.end(), '_', '-');
    EXPECT_TRUE(anchors.count(anchor)) << "docs/runbook.md has no section \"### ...\" for #" << anchor;
  }
}

TEST(DocsTest, EveryCollectorIsDocumented) {
  const std::string config = readFile(FABRICMON_SOURCE_DIR "/docs/configuration.md");
  for (const CollectorEntry* entry : collectorRegistry()) {
    EXPECT_NE(config.find(std::string(entry->name)), std::string::npos)
        << entry->name << " is not in docs/configuration.md";
  }
}

}  // namespace
}  // namespace fabricmon
