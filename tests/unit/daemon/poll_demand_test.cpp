// What the daemon reads at every poll (pollDemand): the series the watchdog ingests and, while the
// window is on, the window's families; every other series is export-only.
#include <gtest/gtest.h>

#include "daemon/sampler.hpp"
#include "model/families/pma.hpp"
#include "model/families/roce.hpp"

namespace fabricmon {
namespace {

SeriesPtr hwStat(const char* counter) {
  return makeSeries(families::roce::kHwCounter, {{"device", "mlx5_0"}, {"port", "1"}, {"counter", counter}});
}

TEST(PollDemand, TheWatchdogsInputsAreReadAtEveryPollDownToTheCountersItUses) {
  Config config;
  const auto demand = pollDemand(config);
  EXPECT_EQ(demand->exportOnlyInterval, config.poll.slowInterval) << "unset: the slow cadence";
  EXPECT_TRUE(demand->readsEveryPoll(*makeSeries(families::roce::kEcnMarked, {{"device", "mlx5_0"}, {"port", "1"}})));
  // roce_packet_loss reads this one generic hw_counters file; no rule reads the other.
  EXPECT_TRUE(demand->readsEveryPoll(*hwStat("roce_adp_retrans")));
  EXPECT_FALSE(demand->readsEveryPoll(*hwStat("out_of_buffer")));
}

TEST(PollDemand, TheWindowsFamiliesOnlyWhileTheWindowIsOn) {
  // Throughput is charted by the window, read by no rule.
  const SeriesPtr bytes = makeSeries(families::pma::kTransmitBytes, {{"device", "mlx5_0"}, {"port", "1"}});
  Config config;
  ASSERT_TRUE(config.window.on());
  EXPECT_TRUE(pollDemand(config)->readsEveryPoll(*bytes));
  config.window.enabled = false;
  EXPECT_FALSE(pollDemand(config)->readsEveryPoll(*bytes));
  EXPECT_TRUE(pollDemand(config)->readsEveryPoll(*hwStat("roce_adp_retrans")));
}

}  // namespace
}  // namespace fabricmon
