// A collector whose read blocks must not delay the other collectors, the rendered snapshot or
// shutdown; it shows as down and its values go stale (issue #2 point 4). Uses real threads and
// real time (short), since thread isolation is the behaviour under test.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "daemon/collector_runner.hpp"
#include "daemon/pipeline.hpp"
#include "tests/support/http_get.hpp"

namespace fabricmon {
namespace {

using namespace std::chrono_literals;

const FamilyDef kTicks{"fabricmon_test_ticks_total", "Runs of the test collector.", MetricType::kCounter};

/// Counts its runs; the `blocking` one blocks inside its second run until released.
class FakeCollector : public Collector {
 public:
  FakeCollector(std::string name, bool blocking, std::shared_ptr<std::atomic<bool>> release)
      : Collector(name), blocking_(blocking), release_(std::move(release)),
        series_(makeSeries(kTicks, {{"collector", std::move(name)}})) {}
  std::span<const FamilyDef* const> families() const override { return {}; }
  CollectStatus collect(const Topology&, CollectOutput& out) override {
    ++runs_;
    if (blocking_ && runs_ >= 2) {
      while (!release_->load()) std::this_thread::sleep_for(5ms);
    }
    out.add(series_, runs_);
    return CollectStatus::kOk;
  }

 private:
  bool blocking_;
  std::shared_ptr<std::atomic<bool>> release_;
  SeriesPtr series_;
  double runs_ = 0;
};

TEST(IsolationTest, BlockedCollectorStallsOnlyItself) {
  boost::asio::io_context io;
  auto store = std::make_shared<Store>();
  auto topology = std::make_shared<TopologyHolder>();
  auto release = std::make_shared<std::atomic<bool>>(false);
  std::vector<std::unique_ptr<CollectorRunner>> runners;
  std::unique_ptr<Pipeline> pipeline;
  for (bool blocking : {false, true}) {
    runners.push_back(std::make_unique<CollectorRunner>(
        io, std::make_unique<FakeCollector>(blocking ? "stuck" : "healthy", blocking, release), 50ms, store,
        topology, [&] { pipeline->notify(); }));
  }
  pipeline = std::make_unique<Pipeline>(
      store, nullptr, SelfMetrics("test", "test"),
      [&] {
        std::vector<CollectorHealth> h;
        for (auto& r : runners) h.push_back(r->health());
        return h;
      },
      PipelineOptions{50ms, 500ms});
  pipeline->start();
  for (auto& r : runners) r->start();
  std::thread loop([&] {
    auto guard = boost::asio::make_work_guard(io);
    io.run();
  });

  auto value = [&](const std::string& series) {
    return testing::seriesValue(pipeline->payload()->text, series);
  };
  const std::string healthyTicks = "fabricmon_test_ticks_total{collector=\"healthy\"}";
  const std::string stuckTicks = "fabricmon_test_ticks_total{collector=\"stuck\"}";
  const std::string stuckUp = "fabricmon_collector_up{collector=\"stuck\"}";

  // Wait (bounded) until the healthy collector has run well past the moment the other one blocked,
  // and the blocked one has been reported down and its value dropped as stale.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline &&
         !(value(healthyTicks) > 40 && value(stuckUp) == 0 && std::isnan(value(stuckTicks)))) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_GT(value(healthyTicks), 40) << "the healthy collector kept its cadence";
  EXPECT_EQ(value(stuckUp), 0) << "the stuck collector is reported down";
  EXPECT_TRUE(std::isnan(value(stuckTicks))) << "its last values are dropped after stale_after";
  EXPECT_EQ(value("fabricmon_collector_up{collector=\"healthy\"}"), 1);

  // Shutdown does not wait for the blocked run beyond the grace period. The timers belong to the
  // loop's thread, so the loop stops first (as App does: it stops from a signal handler on it).
  io.stop();
  loop.join();
  pipeline->stop();
  const auto stopStart = std::chrono::steady_clock::now();
  const auto joinDeadline = stopStart + 300ms;
  for (auto& r : runners) r->requestStop();
  EXPECT_TRUE(runners[0]->join(joinDeadline));
  EXPECT_FALSE(runners[1]->join(joinDeadline)) << "the blocked worker is left behind";
  EXPECT_LT(std::chrono::steady_clock::now() - stopStart, 1s);

  // Released, the left-behind run finishes and must publish nothing.
  const uint64_t generation = store->snapshot()->generation;
  release->store(true);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(store->snapshot()->generation, generation);
  runners.clear();
}

}  // namespace
}  // namespace fabricmon
