// What the daemon reads at every poll (pollDemand): with poll.export_only_interval set, the series
// the watchdog ingests and, while the window is on, the window's families; every other series is
// export-only. Unset, there is no demand: every file is read at every poll.
#include <gtest/gtest.h>

#include "daemon/sampler.hpp"
#include "model/families/pma.hpp"
#include "model/families/roce.hpp"

namespace fabricmon {
namespace {

using namespace std::chrono_literals;

SeriesPtr hwStat(const char* counter) {
  return makeSeries(families::roce::kHwCounter, {{"device", "mlx5_0"}, {"port", "1"}, {"counter", counter}});
}

Config exportOnlyEvery(Duration interval) {
  Config config;
  config.poll.exportOnlyInterval = interval;
  return config;
}

TEST(PollDemand, UnsetEveryFileIsReadAtEveryPoll) { EXPECT_EQ(pollDemand(Config{}), nullptr); }

TEST(PollDemand, TheWatchdogsInputsAreReadAtEveryPollDownToTheCountersItUses) {
  const auto demand = pollDemand(exportOnlyEvery(10s));
  ASSERT_NE(demand, nullptr);
  EXPECT_EQ(demand->exportOnlyInterval, 10s);
  EXPECT_TRUE(demand->readsEveryPoll(*makeSeries(families::roce::kEcnMarked, {{"device", "mlx5_0"}, {"port", "1"}})));
  // roce_packet_loss reads this one generic hw_counters file; no rule reads the other.
  EXPECT_TRUE(demand->readsEveryPoll(*hwStat("roce_adp_retrans")));
  EXPECT_FALSE(demand->readsEveryPoll(*hwStat("out_of_buffer")));
}

TEST(PollDemand, TheWindowsFamiliesOnlyWhileTheWindowIsOn) {
  // Throughput is charted by the window, read by no rule.
  const SeriesPtr bytes = makeSeries(families::pma::kTransmitBytes, {{"device", "mlx5_0"}, {"port", "1"}});
  Config config = exportOnlyEvery(10s);
  ASSERT_TRUE(config.window.on());
  EXPECT_TRUE(pollDemand(config)->readsEveryPoll(*bytes));
  config.window.enabled = false;
  EXPECT_FALSE(pollDemand(config)->readsEveryPoll(*bytes));
  EXPECT_TRUE(pollDemand(config)->readsEveryPoll(*hwStat("roce_adp_retrans")));
}

}  // namespace
}  // namespace fabricmon
