// Golden /metrics text of the sysfs collectors over each fixture tree (the four counter and link
// collectors, and port_topology: each port's PCI function, NUMA node, GPUs, role and rail). A golden
// file changes only by an explicit command, the one tests/fixtures/README.md gives
// (golden_command_test.sh runs it):
// FABRICMON_UPDATE_GOLDEN=1 build/tests/unit/collectors/rdma_collectors_test --gtest_filter='Fixtures/RdmaGolden.*'.
// Otherwise a difference fails the test.

#include <algorithm>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "collectors/registry.hpp"
#include "collectors/topology_discovery.hpp"
#include "exporters/prometheus_text.hpp"
#include "rdma_test_support.hpp"

namespace fabricmon {
namespace {

using testing::TempTree;

struct GoldenCase {
  const char* ttar;
  const char* golden;
  std::vector<std::string> netdevInclude;
};

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class RdmaGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(RdmaGolden, RenderedBatchesMatchTheGoldenFile) {
  const auto& c = GetParam();
  TempTree tree;
  tree.unpack(c.ttar);
  Sources sources;
  sources.sysfs = std::make_shared<SysfsRoot>(tree.root());
  Config config;
  TopologyDiscovery discovery(sources.sysfs, {}, NetdevConfig{c.netdevInclude});
  auto topology = discovery.scan();
  ASSERT_TRUE(topology.ok());

  std::vector<BatchPtr> batches;
  ErrorTracker tracker("golden");
  for (std::string_view name : {"rdma_port", "pma_counters", "hw_counters", "netdev_link", "port_topology"}) {
    auto collector = makeCollector(name, sources, config);
    auto batch = std::make_shared<Batch>();
    batch->collector = std::string(collector->name());
    CollectOutput out(*batch, tracker);
    collector->collect(**topology, out);
    out.finish();
    batches.push_back(std::move(batch));
  }
  const std::string text = renderPrometheusText(batches);
  ASSERT_FALSE(text.empty());

  const auto golden = testing::fixtureDir() / "golden" / c.golden;
  const char* update = std::getenv("FABRICMON_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary | std::ios::trunc) << text;
    GTEST_SKIP() << "golden file rewritten: " << golden;
  }
  ASSERT_TRUE(std::filesystem::exists(golden))
      << golden << " is missing; create it with FABRICMON_UPDATE_GOLDEN=1 and review it";
  EXPECT_EQ(text, readFile(golden)) << "differs from " << golden
                                    << " (regenerate with FABRICMON_UPDATE_GOLDEN=1 only if the change is intended)";
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, RdmaGolden,
    ::testing::Values(GoldenCase{"realdata/node_exporter_sys_ttar_class_infiniband.ttar", "node_exporter_infiniband.prom", {}},
                      GoldenCase{"realdata/procfs_fixtures_sys_class_infiniband.ttar", "procfs_infiniband.prom", {}},
                      GoldenCase{"realdata/procfs_fixtures_sys_class_net_eth0_incl_ecn.ttar", "procfs_net_eth0.prom", {"eth0"}},
                      GoldenCase{"handmade/roce_mlx5.ttar", "handmade_roce_mlx5.prom", {"lo"}},
                      GoldenCase{"handmade/other_drivers.ttar", "handmade_other_drivers.prom", {}}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) {
      std::string name = info.param.golden;
      name = name.substr(0, name.find('.'));
      return name;
    });

}  // namespace
}  // namespace fabricmon
