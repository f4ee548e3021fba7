// docs/metrics.md and the code must list the same metric names (STYLE.md), and every rule of
// CONTRACT §5 must be documented in docs/rules.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "collectors/registry.hpp"
#include "daemon/self_metrics.hpp"
#include "exporters/alertmanager_pusher.hpp"
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
  for (const FamilyDef* f : AlertmanagerPusher::families()) names.insert(std::string(f->name));
  return names;
}

TEST(DocsTest, MetricsPageListsExactlyTheMetricsTheCodeEmits) {
  const auto documented = documentedMetrics();
  const auto code = codeMetrics();
  ASSERT_GT(code.size(), 40u);
  for (const auto& n : code) EXPECT_TRUE(documented.count(n)) << n << " is emitted but not in docs/metrics.md";
  for (const auto& n : documented) EXPECT_TRUE(code.count(n)) << n << " is documented but no code emits it";
}

TEST(DocsTest, RegistryNamesMatchTheConfigsKnownCollectorNames) {
  std::set<std::string> registry, config;
  for (const auto& e : collectorRegistry()) registry.insert(std::string(e.name));
  for (const auto n : kCollectorNames) config.insert(std::string(n));
  EXPECT_EQ(registry, config);
}

TEST(DocsTest, EveryContractRuleIsDocumented) {
  const std::string rules = readFile(FABRICMON_SOURCE_DIR "/docs/rules.md");
  for (const char* rule : {"pause_storm", "dcqcn_misconfig", "link_flap", "link_errors", "port_degraded",
                           "roce_packet_loss", "lossless_drop"}) {
    EXPECT_NE(rules.find(std::string("## ") + rule), std::string::npos) << rule;
  }
}

}  // namespace
}  // namespace fabricmon
