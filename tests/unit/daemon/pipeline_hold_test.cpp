// The pipeline's hold (docs/architecture.md, "Threads"): after a publish, the pass waits for the
// collector runs still in flight, so collectors that share a tick make one pass; it never waits for
// a run that began long before (a stuck one) and never longer than the hold. These tests run the
// pipeline's own thread, so they wait on the clock; every bound is seconds wide, and each
// lower bound is a wait the pipeline itself times.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "daemon/pipeline.hpp"
#include "tests/support/http_get.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const FamilyDef kValue{"fabricmon_test_value", "A value the test publishes.", MetricType::kGauge};

/// Two collectors, "a" and "b", whose runs the test begins and ends by hand.
class HoldRig {
 public:
  explicit HoldRig(Duration hold) {
    health_.resize(2);
    health_[0].name = "a";
    health_[1].name = "b";
    PipelineOptions options;
    options.tick = 60s;  // no pass without a publish while a test runs
    options.hold = hold;
    pipeline_ = std::make_unique<Pipeline>(store_, nullptr,
                                           SelfMetrics("test", "test", std::make_shared<RequestDurations>()),
                                           [this] {
                                             std::lock_guard lock(mu_);
                                             return health_;
                                           },
                                           options);
    pipeline_->setAfterPass([this] { passes_.fetch_add(1); });
  }
  ~HoldRig() { pipeline_->stop(); }
  void stop() { pipeline_->stop(); }

  void start() {
    pipeline_->start();  // one pass now, before the thread starts
    startPasses_ = passes_.load();
  }
  void beginRun(size_t collector, Clock::time_point at = Clock::now()) {
    std::lock_guard lock(mu_);
    health_[collector].runningSince = at;
  }
  /// Ends the collector's run as CollectorRunner and PeriodicTask do: marks it finished, publishes
  /// its batch and notifies; the task clears runningSince only after that.
  void finishRun(size_t collector, double value) {
    const std::string name = collector == 0 ? "a" : "b";
    auto batch = std::make_shared<Batch>();
    batch->collector = name;
    batch->monotonic = Clock::now();
    testing::writeSamples(*batch, {{makeSeries(kValue, {{"collector", name}}), value}});
    {
      std::lock_guard lock(mu_);
      health_[collector].up = true;
      health_[collector].lastSuccess = health_[collector].lastFinished = Clock::now();
    }
    store_->publish(std::move(batch));
    pipeline_->notify();
    std::this_thread::sleep_for(50ms);  // the pipeline looks before the task has returned
    std::lock_guard lock(mu_);
    health_[collector].runningSince = {};
  }
  /// Passes since start().
  int passes() const { return passes_.load() - startPasses_; }
  bool waitForPasses(int n, Duration within) const {
    const auto until = Clock::now() + within;
    while (passes() < n) {
      if (Clock::now() > until) return false;
      std::this_thread::sleep_for(2ms);
    }
    return true;
  }
  double value(const std::string& collector) const {
    return testing::seriesValue(pipeline_->payload()->text,
                                "fabricmon_test_value{collector=\"" + collector + "\"}");
  }

 private:
  std::shared_ptr<Store> store_ = std::make_shared<Store>();
  mutable std::mutex mu_;
  std::vector<CollectorHealth> health_;
  std::unique_ptr<Pipeline> pipeline_;
  std::atomic<int> passes_{0};
  int startPasses_ = 0;
};

TEST(PipelineHoldTest, CollectorsThatShareATickMakeOnePass) {
  HoldRig rig(10s);
  rig.start();
  rig.beginRun(0);
  rig.beginRun(1);
  rig.finishRun(0, 1);
  // "b" is still in its run: far past the 20 ms every publish waits, there is still no pass.
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(rig.passes(), 0) << "the pass went ahead while b's run was in flight";
  rig.finishRun(1, 2);
  ASSERT_TRUE(rig.waitForPasses(1, 5s)) << "the pass waited out its hold after the last run ended";
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(rig.passes(), 1) << "both publishes make one pass";
  EXPECT_EQ(rig.value("a"), 1);
  EXPECT_EQ(rig.value("b"), 2);
}

TEST(PipelineHoldTest, ARunThatBeganLongBeforeIsNotWaitedFor) {
  HoldRig rig(10s);
  rig.start();
  rig.beginRun(1, Clock::now() - 30s);  // stuck in firmware since long before this tick
  rig.beginRun(0);
  const auto published = Clock::now();
  rig.finishRun(0, 1);
  ASSERT_TRUE(rig.waitForPasses(1, 5s)) << "the pass waited for a stuck run";
  EXPECT_LT(Clock::now() - published, 5s);
  EXPECT_EQ(rig.value("a"), 1);
}

TEST(PipelineHoldTest, ThePassWaitsNoLongerThanTheHold) {
  HoldRig rig(1s);
  rig.start();
  rig.beginRun(1);  // never ends while the test runs
  rig.beginRun(0);
  const auto published = Clock::now();
  rig.finishRun(0, 1);
  ASSERT_TRUE(rig.waitForPasses(1, 10s)) << "the pass waited past its hold";
  EXPECT_GE(Clock::now() - published, 1s) << "the pass did not wait for b's run in flight";
  EXPECT_EQ(rig.value("a"), 1);
}

TEST(PipelineHoldTest, StopDoesNotWaitOutTheHold) {
  HoldRig rig(60s);
  rig.start();
  rig.beginRun(1);  // never ends: the pipeline is inside its hold when it is stopped
  rig.beginRun(0);
  rig.finishRun(0, 1);
  std::this_thread::sleep_for(100ms);
  const auto stopping = Clock::now();
  rig.stop();
  EXPECT_LT(Clock::now() - stopping, 5s) << "stop() waited for the hold";
  EXPECT_EQ(rig.passes(), 0);
}

TEST(PipelineHoldTest, WithoutARunInFlightAPublishMakesItsOwnPass) {
  HoldRig rig(10s);
  rig.start();
  rig.beginRun(0);
  rig.finishRun(0, 1);
  ASSERT_TRUE(rig.waitForPasses(1, 5s));
  rig.beginRun(1);
  rig.finishRun(1, 2);
  ASSERT_TRUE(rig.waitForPasses(2, 5s));
  EXPECT_EQ(rig.value("b"), 2);
}

TEST(PipelineHoldTest, TheHoldIsAQuarterOfThePollIntervalWithinItsBounds) {
  EXPECT_EQ(passHold(1s), 100ms);
  EXPECT_EQ(passHold(250ms), 62ms);
  EXPECT_EQ(passHold(10ms), 20ms);
  EXPECT_EQ(passHold(60s), 100ms);
}

}  // namespace
}  // namespace fabricmon
