// SampleWriter: a batch's samples hold plain series pointers, and its roster keeps those series
// alive, shared with the producer's previous batch while the series are the same.

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/sample.hpp"
#include "model/series_clash.hpp"

namespace fabricmon {
namespace {

const FamilyDef kFamily{"fabricmon_test_writer_total", "A counter the test writes.", MetricType::kCounter};

SeriesPtr series(const std::string& name) { return makeSeries(kFamily, {{"name", name}}); }

/// Writes `names` (in order) into a fresh batch after `previous`; returns the batch.
std::shared_ptr<Batch> write(const std::vector<SeriesPtr>& all, const std::vector<size_t>& order,
                             SeriesRosterPtr previous, bool* reused = nullptr) {
  auto batch = std::make_shared<Batch>();
  SampleWriter out(*batch, std::move(previous));
  for (size_t i : order) out.add(all[i], double(i));
  out.finish();
  if (reused != nullptr) *reused = out.reused();
  return batch;
}

/// The invariant every finished batch keeps: one roster entry per sample, the same object.
void expectParallel(const Batch& b) {
  ASSERT_TRUE(b.roster);
  ASSERT_EQ(b.roster->series.size(), b.samples.size());
  for (size_t i = 0; i < b.samples.size(); ++i) EXPECT_EQ(b.seriesAt(i).get(), b.samples[i].series) << i;
}

TEST(SampleWriter, TheSameSeriesInTheSameOrderShareTheRoster) {
  const std::vector<SeriesPtr> all{series("a"), series("b"), series("c")};
  bool reused = true;
  auto first = write(all, {0, 1, 2}, nullptr, &reused);
  EXPECT_FALSE(reused);
  expectParallel(*first);
  auto second = write(all, {0, 1, 2}, first->roster, &reused);
  EXPECT_TRUE(reused);
  EXPECT_EQ(second->roster, first->roster);  // the same object: no reference count per sample
  expectParallel(*second);
  EXPECT_EQ(second->samples[2].value, 2.0);
}

TEST(SampleWriter, AnyDifferenceMakesARosterOfItsOwn) {
  const std::vector<SeriesPtr> all{series("a"), series("b"), series("c"), series("x")};
  auto base = write(all, {0, 1, 2}, nullptr);
  const std::vector<std::vector<size_t>> changes{
      {0, 3, 2},     // one replaced in the middle
      {0, 1},        // fewer: the matched part alone
      {0, 1, 2, 3},  // more
      {1, 0, 2},     // the same series, another order
      {},            // none
      {0, 1, 2, 2},  // a repeat at the end
  };
  for (const auto& order : changes) {
    bool reused = true;
    auto b = write(all, order, base->roster, &reused);
    EXPECT_FALSE(reused) << order.size();
    EXPECT_NE(b->roster, base->roster) << order.size();
    expectParallel(*b);
    EXPECT_EQ(base->roster->series.size(), 3u);  // the shared roster is never written
  }
}

TEST(SampleWriter, TheBatchKeepsItsSeriesAliveAndLetsThemGoWithIt) {
  const FamilyDef fam{"fabricmon_test_writer_alive", "Alive while a batch holds it.", MetricType::kGauge};
  std::weak_ptr<const Series> watched;
  std::shared_ptr<Batch> batch = std::make_shared<Batch>();
  {
    SeriesPtr s = makeSeries(fam, {{"name", "only"}});
    watched = s;
    SampleWriter out(*batch);
    out.add(s, 1);
    // Not finished yet: the series is already the batch's.
  }
  ASSERT_FALSE(watched.expired());
  EXPECT_EQ(batch->samples[0].series->key, R"(fabricmon_test_writer_alive{name="only"})");
  // The next batch shares the roster: the series lives while either batch does.
  auto next = std::make_shared<Batch>();
  {
    SampleWriter out(*next, batch->roster);
    out.add(batch->seriesAt(0), 2);
    out.finish();
    EXPECT_TRUE(out.reused());
  }
  batch.reset();
  EXPECT_FALSE(watched.expired());
  next.reset();
  EXPECT_TRUE(watched.expired());
}

TEST(SampleWriter, AnUnfinishedWriterStillOwnsEverySample) {
  const std::vector<SeriesPtr> all{series("a"), series("b"), series("c")};
  auto base = write(all, {0, 1, 2}, nullptr);
  // Fewer samples and no finish(): the shared roster is longer than the samples, never shorter,
  // and stays parallel to them.
  Batch b;
  SampleWriter out(b, base->roster);
  out.add(all[0], 1);
  ASSERT_TRUE(b.roster);
  ASSERT_GE(b.roster->series.size(), b.samples.size());
  EXPECT_EQ(b.seriesAt(0).get(), b.samples[0].series);
}

// Random runs of a producer whose series come and go: after every run the batch's roster is
// parallel to its samples, it is the previous one exactly when the sequence repeats, and the
// fingerprint of equal sequences is equal.
TEST(SampleWriter, RandomRunsKeepTheRosterParallelAndShareItOnlyWhenEqual) {
  std::mt19937 rng(20261127);
  std::vector<SeriesPtr> all;
  for (int i = 0; i < 12; ++i) all.push_back(series("r" + std::to_string(i)));
  SeriesRosterPtr previous;
  std::vector<size_t> previousOrder;
  uint64_t previousFingerprint = 0;
  bool havePrevious = false;
  for (int run = 0; run < 2000; ++run) {
    std::vector<size_t> order = previousOrder;
    switch (rng() % 6) {
      case 0: order.push_back(rng() % all.size()); break;
      case 1: if (!order.empty()) order.erase(order.begin() + long(rng() % order.size())); break;
      case 2: if (!order.empty()) order[rng() % order.size()] = rng() % all.size(); break;
      default: break;  // the steady case: the same series again
    }
    bool reused = false;
    auto b = write(all, order, previous, &reused);
    expectParallel(*b);
    for (size_t i = 0; i < order.size(); ++i) ASSERT_EQ(b->samples[i].series, all[order[i]].get()) << run;
    const bool equal = havePrevious && order == previousOrder;
    EXPECT_EQ(reused, equal) << run;
    EXPECT_EQ(b->roster == previous, equal) << run;
    const uint64_t fingerprint = seriesFingerprint(b->samples);
    if (havePrevious) {
      EXPECT_EQ(fingerprint == previousFingerprint, equal) << run;
    }
    previous = b->roster;
    previousOrder = order;
    previousFingerprint = fingerprint;
    havePrevious = true;
  }
}

}  // namespace
}  // namespace fabricmon
