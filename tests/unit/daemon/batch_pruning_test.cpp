// withoutVanished (daemon/batch_pruning.hpp): what a batch from before a discovery keeps of its
// samples, and that what it drops is unread, not gone, until the collector's next run says.
#include "daemon/batch_pruning.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/support/owned_samples.hpp"

namespace fabricmon {
namespace {

const FamilyDef kValue{"fabricmon_test_pruned", "test", MetricType::kGauge};

std::set<std::string> keys(const std::vector<SeriesPtr>& series) {
  std::set<std::string> out;
  for (const SeriesPtr& s : series) out.insert(s->key);
  return out;
}

TEST(BatchPruning, VanishedDevicesAndInterfacesLeaveTheSamplesAndAreUnread) {
  Topology now;
  now.devices = {RdmaDevice{"mlx5_0", "", 1, {}}};
  now.netdevs = {Netdev{"eth0", "", "", 0}};
  auto batch = std::make_shared<Batch>();
  batch->collector = "slow";
  testing::writeSamples(*batch, {{makeSeries(kValue, {{"device", "mlx5_0"}}), 1},
                                 {makeSeries(kValue, {{"device", "mlx5_1"}}), 2},
                                 {makeSeries(kValue, {{"device", "mlx5_1,mlx5_0"}}), 3},
                                 {makeSeries(kValue, {{"device", "mlx5_1,mlx5_2"}}), 4},
                                 {makeSeries(kValue, {{"interface", "eth1"}}), 5}});
  batch->unread = {makeSeries(kValue, {{"device", "mlx5_0"}, {"interface", "eth0"}}),
                   makeSeries(kValue, {{"device", "mlx5_0"}, {"interface", "eth1"}}),
                   makeSeries(kValue, {{"device", "mlx5_1"}})};
  const BatchPtr pruned = withoutVanished(batch, now);
  std::set<std::string> kept;
  for (size_t i = 0; i < pruned->samples.size(); ++i) {
    EXPECT_EQ(pruned->seriesAt(i).get(), pruned->samples[i].series) << "the roster stays parallel";
    kept.insert(pruned->samples[i].series->key);
  }
  EXPECT_EQ(kept, (std::set<std::string>{"fabricmon_test_pruned{device=\"mlx5_0\"}",
                                         "fabricmon_test_pruned{device=\"mlx5_1,mlx5_0\"}"}));
  // Not rendered (the samples are gone), but not vanished either: a series the collector's next run
  // still reports unread stays held (nic_driver_log's function away for its recovery); one it no
  // longer reports at all goes then.
  EXPECT_EQ(keys(pruned->unread),
            (std::set<std::string>{"fabricmon_test_pruned{device=\"mlx5_0\",interface=\"eth0\"}",
                                   "fabricmon_test_pruned{device=\"mlx5_0\",interface=\"eth1\"}",
                                   "fabricmon_test_pruned{device=\"mlx5_1\"}",
                                   "fabricmon_test_pruned{device=\"mlx5_1,mlx5_2\"}",
                                   "fabricmon_test_pruned{interface=\"eth1\"}"}));
}

}  // namespace
}  // namespace fabricmon
