// One series, one source (model/series_clash.hpp): repeats across batches and within one batch
// are found, and the fingerprint tells a changed series set from an unchanged one.
#include <gtest/gtest.h>

#include "model/series_clash.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon {
namespace {

const FamilyDef kBytes{"fabricmon_test_bytes_total", "Bytes the test counts.", MetricType::kCounter};

BatchPtr batch(std::string collector, const std::vector<testing::OwnedSample>& samples) {
  auto b = std::make_shared<Batch>();
  b->collector = std::move(collector);
  testing::writeSamples(*b, samples);
  return b;
}

TEST(SeriesClash, TwoCollectorsWithOneSeriesAreReportedByName) {
  SeriesPtr rx = makeSeries(kBytes, {{"direction", "rx"}});
  SeriesPtr tx = makeSeries(kBytes, {{"direction", "tx"}});
  // The same family and labels made twice give one series object (and one id).
  SeriesPtr rxAgain = makeSeries(kBytes, {{"direction", "rx"}});
  std::vector<BatchPtr> batches{batch("pma_counters", {{rx, 400}, {tx, 1}}), batch("hw_counters", {{rxAgain, 14}})};
  auto clashes = findSeriesClashes(batches);
  ASSERT_EQ(clashes.size(), 1u);
  EXPECT_EQ(clashes[0].series->key, rx->key);
  EXPECT_EQ(clashes[0].first, "pma_counters");
  EXPECT_EQ(clashes[0].second, "hw_counters");
}

TEST(SeriesClash, ARepeatWithinOneBatchIsAClashToo) {
  SeriesPtr rx = makeSeries(kBytes, {{"direction", "rx"}});
  std::vector<BatchPtr> batches{batch("hw_counters", {{rx, 1}, {rx, 2}})};
  auto clashes = findSeriesClashes(batches);
  ASSERT_EQ(clashes.size(), 1u);
  EXPECT_EQ(clashes[0].first, "hw_counters");
  EXPECT_EQ(clashes[0].second, "hw_counters");
}

TEST(SeriesClash, DistinctSeriesAndNullBatchesAreFine) {
  SeriesPtr rx = makeSeries(kBytes, {{"direction", "rx"}});
  SeriesPtr tx = makeSeries(kBytes, {{"direction", "tx"}});
  std::vector<BatchPtr> batches{batch("a", {{rx, 1}}), nullptr, batch("b", {{tx, 2}})};
  EXPECT_TRUE(findSeriesClashes(batches).empty());
}

TEST(SeriesClash, TheFingerprintFollowsTheSeriesNotTheValues) {
  SeriesPtr rx = makeSeries(kBytes, {{"direction", "rx"}});
  SeriesPtr tx = makeSeries(kBytes, {{"direction", "tx"}});
  const std::vector<Sample> a{{rx.get(), 1}, {tx.get(), 2}};
  const std::vector<Sample> sameSeries{{rx.get(), 100}, {tx.get(), 200}};
  const std::vector<Sample> fewer{{rx.get(), 1}};
  const std::vector<Sample> repeated{{rx.get(), 1}, {rx.get(), 2}};
  EXPECT_EQ(seriesFingerprint(a), seriesFingerprint(sameSeries));
  EXPECT_NE(seriesFingerprint(a), seriesFingerprint(fewer));
  EXPECT_NE(seriesFingerprint(a), seriesFingerprint(repeated));
}

}  // namespace
}  // namespace fabricmon
