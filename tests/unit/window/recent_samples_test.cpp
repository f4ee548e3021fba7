// RecentSamples: the node's fine-grained recent history behind /api/v1/window and the status page.
#include "window/recent_samples.hpp"
#include "model/families/ethtool.hpp"
#include "model/families/netdev.hpp"
#include "tests/support/owned_samples.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace fabricmon {
namespace {

using namespace std::chrono_literals;

const FamilyDef& kPause = families::ethtool::kPfcPauseSeconds;
const FamilyDef& kUp = families::netdev::kUp;

class RecentSamplesTest : public ::testing::Test {
 protected:
  /// One collector run `ago` before now with the given samples.
  void publish(std::chrono::milliseconds ago, std::vector<testing::OwnedSample> samples, const std::string& collector = "c") {
    auto b = std::make_shared<Batch>();
    b->collector = collector;
    b->monotonic = now_ - ago;
    b->wall = std::chrono::system_clock::now() - ago;
    testing::writeSamples(*b, samples);
    snapshot_.batches[collector] = b;
    recent_.ingest(snapshot_);
  }
  const RecentSamples::SeriesWindow* find(const std::vector<RecentSamples::SeriesWindow>& w, const SeriesPtr& s) {
    for (const auto& x : w) {
      if (x.series == s) return &x;
    }
    return nullptr;
  }
  // A pointer into a temporary window would dangle at the end of the statement (ThreadSanitizer
  // reported the heap-use-after-free): keep the window in a variable.
  const RecentSamples::SeriesWindow* find(std::vector<RecentSamples::SeriesWindow>&&, const SeriesPtr&) = delete;
  std::chrono::steady_clock::time_point now_ = std::chrono::steady_clock::now();
  Snapshot snapshot_;
  RecentSamples recent_;
  SeriesPtr pause_ = makeSeries(kPause, {{"interface", "eth0"}, {"priority", "3"}});
  SeriesPtr up_ = makeSeries(kUp, {{"interface", "eth0"}});
};

// A NIC that latches its counters once a second, polled every 250 ms: the value jumps by a
// second's worth every fourth poll. The peak is the true rate (fully paused = 1.0), not 4.0.
TEST_F(RecentSamplesTest, PeakRateIsJudgedBetweenValueChanges) {
  double total = 0;
  for (int i = 0; i <= 40; ++i) {
    if (i > 0 && i % 4 == 0) total += 1.0;
    publish(std::chrono::milliseconds(250 * (40 - i)), {{pause_, total}});
  }
  RecentSamples::Query q;
  q.window = 60s;
  const auto w = recent_.window(q);
  const auto* s = find(w, pause_);
  ASSERT_NE(s, nullptr);
  EXPECT_NEAR(s->peakRate, 1.0, 0.01);
  EXPECT_NEAR(s->increase, 10.0, 1e-9);
  EXPECT_NEAR(s->refreshSeconds, 1.0, 0.01);
  EXPECT_EQ(s->samples, 41u);
}

// A read that failed is not a series that left: its window still reaches back past the gap, the
// gap has no point, and the next value's increase spans it. A series missing from a batch without
// being listed unread has left, and its window starts again.
TEST_F(RecentSamplesTest, AnUnreadSeriesKeepsItsWindowAMissingOneDoesNot) {
  publish(5s, {{pause_, 10}, {up_, 1}});
  publish(4s, {{pause_, 12}, {up_, 1}});
  {
    auto b = std::make_shared<Batch>();
    b->collector = "c";
    b->monotonic = now_ - 3s;
    b->wall = std::chrono::system_clock::now() - 3s;
    testing::writeSamples(*b, {{up_, 1}});
    b->unread.push_back(pause_);
    snapshot_.batches["c"] = b;
    recent_.ingest(snapshot_);
  }
  publish(2s, {{pause_, 20}, {up_, 1}});
  RecentSamples::Query q;
  q.window = 60s;
  q.points = true;
  auto w = recent_.window(q);
  const auto* s = find(w, pause_);
  ASSERT_NE(s, nullptr) << "kept through the unread run";
  EXPECT_EQ(s->samples, 3u) << "the unread run holds no value";
  EXPECT_DOUBLE_EQ(s->increase, 10);
  EXPECT_DOUBLE_EQ(s->seconds, 3);
  ASSERT_EQ(s->points.size(), 2u);
  EXPECT_DOUBLE_EQ(s->points[1].v, 8.0 / 2) << "the increase after the gap spans it";
  EXPECT_EQ(recent_.usage().series, 2u);

  publish(1s, {{up_, 1}});  // pause_ neither given nor unread: gone
  publish(0s, {{pause_, 21}, {up_, 1}});
  w = recent_.window(q);
  s = find(w, pause_);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->samples, 1u) << "a series that left starts anew";
}

TEST_F(RecentSamplesTest, AResetCountsTheNewValueAsTheIncrease) {
  publish(3s, {{pause_, 100}});
  publish(2s, {{pause_, 102}});
  publish(1s, {{pause_, 1}});  // driver reload
  publish(0s, {{pause_, 3}});
  RecentSamples::Query q;
  const auto w = recent_.window(q);
  const auto* s = find(w, pause_);
  ASSERT_NE(s, nullptr);
  EXPECT_DOUBLE_EQ(s->increase, 2 + 1 + 2);
}

TEST_F(RecentSamplesTest, TheWindowStartsAtItsBaseAndGaugesKeepTheirRange) {
  for (int i = 0; i <= 20; ++i) publish(std::chrono::seconds(20 - i), {{pause_, double(i)}, {up_, i == 15 ? 0.0 : 1.0}});
  RecentSamples::Query q;
  q.window = 5s;
  q.points = true;
  const auto w = recent_.window(q);
  const auto* s = find(w, pause_);
  ASSERT_NE(s, nullptr);
  EXPECT_NEAR(s->increase, 5, 1e-9);  // from the point at the window start to now
  EXPECT_NEAR(s->rate, 1, 1e-9);
  const auto* g = find(w, up_);
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->counter);
  EXPECT_EQ(g->min, 0);
  EXPECT_EQ(g->last, 1);
  EXPECT_FALSE(g->points.empty());
}

TEST_F(RecentSamplesTest, AVanishedSeriesIsDropped) {
  publish(2s, {{pause_, 1}, {up_, 1}});
  publish(1s, {{up_, 1}});  // the collector's next run no longer has the pause series
  RecentSamples::Query q;
  const auto w = recent_.window(q);
  EXPECT_EQ(find(w, pause_), nullptr);
  EXPECT_NE(find(w, up_), nullptr);
  snapshot_.batches.clear();
  recent_.ingest(snapshot_);  // the collector left the snapshot
  EXPECT_EQ(recent_.seriesCount(), 0u);
}

// The store keeps its length in time, not points: 12 s of 10 ms samples in a 6 s store leave 6 s
// plus at most one chunk, and the memory of the chunks that left is given back.
TEST_F(RecentSamplesTest, MemoryIsBoundedByTheLength) {
  RecentSamples store(6s);
  Snapshot snap;
  // Compared at the same point of the chunk cycle (the first sample of a chunk: 720 and 1080 are
  // multiples of kChunkSamples), so the open chunk's growth is not counted as growth of the store.
  size_t bytesAtLength = 0, bytesLater = 0;
  static_assert(720 % RecentSamples::kChunkSamples == 0 && 1080 % RecentSamples::kChunkSamples == 0);
  for (int i = 0; i < 1200; ++i) {
    auto b = std::make_shared<Batch>();
    b->collector = "c";
    b->monotonic = now_ - std::chrono::milliseconds(10 * (1200 - i));
    b->wall = std::chrono::system_clock::now();
    testing::writeSamples(*b, {{pause_, double(i)}, {up_, 1.0}});
    snap.batches["c"] = b;
    store.ingest(snap);
    if (i == 720) bytesAtLength = store.usage().bytes;
    if (i == 1080) bytesLater = store.usage().bytes;
  }
  const auto u = store.usage();
  EXPECT_EQ(u.series, 2u);
  EXPECT_GE(u.samples, 2u * 600);
  EXPECT_LE(u.samples, 2u * (600 + RecentSamples::kChunkSamples + 1));
  EXPECT_LE(bytesLater, bytesAtLength + 64);  // flat once the window is full
  EXPECT_LE(u.bytes, bytesAtLength + 512);    // and the open chunks full at the end
  EXPECT_LT(u.bytes, u.samples * 4);        // the plain store took 16 bytes a point
  RecentSamples::Query q;
  q.window = 3600s;
  const auto w = store.window(q);
  const auto* s = find(w, pause_);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->samples, u.samples / 2);
  EXPECT_GE(store.coveredSeconds(), 6.0);
  EXPECT_LT(store.coveredSeconds(), 6.0 + 1.3);
  EXPECT_DOUBLE_EQ(s->last, 1199);
}

}  // namespace
}  // namespace fabricmon

namespace fabricmon {
namespace {

// The store remembers what sample i of a collector's previous batch was; a collector that reorders
// its samples, drops one, puts a kept series where an unkept one was, or emits one series twice
// must still have every kept sample stored once, under its own series.
TEST_F(RecentSamplesTest, ABatchInAnotherOrderIsStoredSampleForSample) {
  const FamilyDef& unkept = families::netdev::kCarrierUp;
  const auto kept = RecentSamples::keptFamilies();
  ASSERT_EQ(std::find(kept.begin(), kept.end(), &unkept), kept.end()) << "the test needs a family the window does not keep";
  const SeriesPtr other = makeSeries(unkept, {{"interface", "eth0"}});
  const SeriesPtr up1 = makeSeries(kUp, {{"interface", "eth1"}});
  publish(4000ms, {{pause_, 1}, {up_, 1}, {other, 7}});
  publish(3000ms, {{other, 8}, {up_, 0}, {pause_, 2}});               // reversed
  publish(2000ms, {{up1, 1}, {pause_, 3}, {up_, 1}});                  // a kept series where the unkept one was
  publish(1000ms, {{up1, 0}, {pause_, 4}, {up_, 0}, {pause_, 4}});      // one series twice
  RecentSamples::Query q;
  q.window = 60s;
  const auto w = recent_.window(q);
  ASSERT_EQ(w.size(), 3u);
  const auto* pause = find(w, pause_);
  const auto* up = find(w, up_);
  const auto* upNew = find(w, up1);
  ASSERT_TRUE(pause && up && upNew);
  EXPECT_EQ(pause->samples, 4u);
  EXPECT_DOUBLE_EQ(pause->increase, 3.0);
  EXPECT_DOUBLE_EQ(pause->last, 4.0);
  EXPECT_EQ(up->samples, 4u);
  EXPECT_DOUBLE_EQ(up->last, 0.0);
  EXPECT_DOUBLE_EQ(up->min, 0.0);
  EXPECT_DOUBLE_EQ(up->max, 1.0);
  EXPECT_EQ(upNew->samples, 2u);
  EXPECT_DOUBLE_EQ(upNew->last, 0.0);
  EXPECT_EQ(recent_.usage().samples, 10u);
  EXPECT_EQ(recent_.seriesCount(), 3u);
}

// A label filter selects exactly the series whose label has the value: not a longer value that
// starts with it (eth1 / eth10), not the value under another label or in the family's name, and a
// key whose values needed escaping is read label by label like any other.
TEST_F(RecentSamplesTest, ALabelFilterSelectsExactlyItsSeries) {
  const SeriesPtr eth1 = makeSeries(kUp, {{"interface", "eth1"}});
  const SeriesPtr eth10 = makeSeries(kUp, {{"interface", "eth10"}});
  const SeriesPtr prio = makeSeries(kPause, {{"interface", "eth2"}, {"priority", "eth1"}});
  const SeriesPtr quoted = makeSeries(kPause, {{"interface", "eth1"}, {"priority", "a\"b"}});
  const SeriesPtr inValue = makeSeries(kPause, {{"interface", "x,interface=\"eth1"}, {"priority", "1"}});
  publish(1s, {{eth1, 1}, {eth10, 1}, {prio, 0}, {quoted, 0}, {inValue, 0}});
  publish(0s, {{eth1, 1}, {eth10, 1}, {prio, 0}, {quoted, 0}, {inValue, 0}});
  auto select = [&](std::vector<std::pair<std::string, std::string>> labels, std::string family = "") {
    RecentSamples::Query q;
    q.window = 60s;
    q.labels = std::move(labels);
    q.family = std::move(family);
    std::vector<SeriesPtr> got;
    for (const auto& w : recent_.window(q)) got.push_back(w.series);
    std::sort(got.begin(), got.end());
    return got;
  };
  auto set = [](std::vector<SeriesPtr> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(select({{"interface", "eth1"}}), set({quoted, eth1}));
  EXPECT_EQ(select({{"interface", "eth10"}}), (std::vector<SeriesPtr>{eth10}));
  EXPECT_EQ(select({{"interface", "eth"}}), (std::vector<SeriesPtr>{}));
  EXPECT_EQ(select({{"priority", "eth1"}}), (std::vector<SeriesPtr>{prio}));
  EXPECT_EQ(select({{"priority", "a\"b"}}), (std::vector<SeriesPtr>{quoted}));
  EXPECT_EQ(select({{"interface", "x,interface=\"eth1"}}), (std::vector<SeriesPtr>{inValue}));
  EXPECT_EQ(select({{"interface", "eth1"}, {"priority", "1"}}), (std::vector<SeriesPtr>{}));
  EXPECT_EQ(select({{"interface", "eth1"}}, std::string(kUp.name)), (std::vector<SeriesPtr>{eth1}));
  EXPECT_EQ(select({{"interface", ""}}), (std::vector<SeriesPtr>{}));
  EXPECT_EQ(select({{"device", ""}}).size(), 5u) << "an absent label reads as empty";
}

}  // namespace
}  // namespace fabricmon
