// A collector's published batches share one roster of series while the collector emits the same
// series in the same order (no reference count touched per sample, model/sample.hpp), and get a new
// roster and a new fingerprint when they change. Real runner, real timer, short intervals.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "daemon/collector_runner.hpp"
#include "model/series_clash.hpp"

namespace fabricmon {
namespace {

using namespace std::chrono_literals;

const FamilyDef kValue{"fabricmon_test_roster_value", "A value of the test collector.", MetricType::kGauge};

/// Emits `width` series; the second one's `v` label is `variant` (both may change between runs).
class WidthCollector : public Collector {
 public:
  WidthCollector(std::shared_ptr<std::atomic<int>> width, std::shared_ptr<std::atomic<int>> variant)
      : Collector("roster"), width_(std::move(width)), variant_(std::move(variant)) {}
  std::span<const FamilyDef* const> families() const override { return {}; }
  CollectStatus collect(const Topology&, CollectOutput& out) override {
    const size_t n = size_t(width_->load());
    const std::string v = std::to_string(variant_->load());
    series_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      Labels labels{{"i", std::to_string(i)}, {"v", i == 1 ? v : "0"}};
      if (!series_[i] || series_[i]->label("v") != labels[1].second) series_[i] = makeSeries(kValue, std::move(labels));
      out.add(series_[i], ++runs_);
    }
    return CollectStatus::kOk;
  }

 private:
  std::shared_ptr<std::atomic<int>> width_;
  std::shared_ptr<std::atomic<int>> variant_;
  std::vector<SeriesPtr> series_;
  double runs_ = 0;
};

TEST(CollectorRunnerRoster, SteadySeriesShareOneRosterAndAChangeMakesANewOne) {
  boost::asio::io_context io;
  auto store = std::make_shared<Store>();
  auto width = std::make_shared<std::atomic<int>>(3);
  auto variant = std::make_shared<std::atomic<int>>(0);
  std::mutex mu;
  std::vector<BatchPtr> published;
  CollectorRunner runner(io, std::make_unique<WidthCollector>(width, variant), 10ms, store,
                         std::make_shared<TopologyHolder>(), [&] {
                           std::lock_guard lock(mu);
                           published.push_back(store->snapshot()->batches.at("roster"));
                         });
  runner.start();
  std::thread loop([&] {
    auto guard = boost::asio::make_work_guard(io);
    io.run();
  });
  auto waitFor = [&](size_t n) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard lock(mu);
        if (published.size() >= n) return true;
      }
      std::this_thread::sleep_for(5ms);
    }
    return false;
  };
  const bool steady = waitFor(3);
  size_t changedFrom = 0;
  {
    std::lock_guard lock(mu);
    changedFrom = published.size();
  }
  // The same number of series, one of them another object: a new roster too.
  variant->store(1);
  const bool replaced = waitFor(changedFrom + 3);
  size_t grownFrom = 0;
  {
    std::lock_guard lock(mu);
    grownFrom = published.size();
  }
  width->store(4);
  const bool changed = waitFor(grownFrom + 3);
  runner.requestStop();
  runner.join(std::chrono::steady_clock::now() + 2s);
  io.stop();
  loop.join();
  ASSERT_TRUE(steady);
  ASSERT_TRUE(replaced);
  ASSERT_TRUE(changed);

  std::lock_guard lock(mu);
  const BatchPtr& first = published[0];
  ASSERT_EQ(first->samples.size(), 3u);
  EXPECT_EQ(published[1]->roster, first->roster);
  EXPECT_EQ(published[2]->roster, first->roster);
  EXPECT_EQ(published[1]->seriesFingerprint, first->seriesFingerprint);
  EXPECT_EQ(first->seriesFingerprint, seriesFingerprint(first->samples));
  // The values differ from run to run; the series do not.
  EXPECT_NE(published[1]->samples[0].value, first->samples[0].value);

  // The last batch of three series, runs after the replacement: the same count, a new roster.
  BatchPtr sameCount;
  for (const BatchPtr& b : published) {
    if (b->samples.size() == 3) sameCount = b;
  }
  ASSERT_TRUE(sameCount);
  EXPECT_EQ(sameCount->samples[1].series->label("v"), "1");
  EXPECT_NE(sameCount->roster, first->roster);
  EXPECT_EQ(sameCount->seriesFingerprint, seriesFingerprint(sameCount->samples));
  EXPECT_NE(sameCount->seriesFingerprint, first->seriesFingerprint);

  const BatchPtr& last = published.back();
  ASSERT_EQ(last->samples.size(), 4u);
  EXPECT_NE(last->roster, first->roster);
  EXPECT_EQ(last->seriesFingerprint, seriesFingerprint(last->samples));
  EXPECT_NE(last->seriesFingerprint, first->seriesFingerprint);
  ASSERT_EQ(last->roster->series.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(last->seriesAt(i).get(), last->samples[i].series);
}

}  // namespace
}  // namespace fabricmon
