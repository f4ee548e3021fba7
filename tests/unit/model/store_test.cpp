#include "model/store.hpp"
#include "tests/support/owned_samples.hpp"

#include <gtest/gtest.h>

namespace fabricmon {
namespace {

const FamilyDef kFamily{"fabricmon_test_total", "A test counter.", MetricType::kCounter};

BatchPtr batchOf(std::string collector, double value) {
  auto b = std::make_shared<Batch>();
  b->collector = std::move(collector);
  testing::addSample(*b, makeSeries(kFamily, {{"device", "mlx5_0"}}), value);
  return b;
}

TEST(StoreTest, PublishReplacesOnlyThatCollectorsBatch) {
  Store store;
  store.publish(batchOf("a", 1));
  store.publish(batchOf("b", 2));
  store.publish(batchOf("a", 3));
  const auto snap = store.snapshot();
  ASSERT_EQ(snap->batches.size(), 2u);
  EXPECT_EQ(snap->batches.at("a")->samples[0].value, 3);
  EXPECT_EQ(snap->batches.at("b")->samples[0].value, 2);
  EXPECT_EQ(snap->generation, 3u);
}

TEST(StoreTest, OldSnapshotStaysValidAfterPublish) {
  Store store;
  store.publish(batchOf("a", 1));
  const auto before = store.snapshot();
  store.publish(batchOf("a", 2));
  EXPECT_EQ(before->batches.at("a")->samples[0].value, 1);
  EXPECT_EQ(store.snapshot()->batches.at("a")->samples[0].value, 2);
}

TEST(StoreTest, RemoveDropsBatchAndUnknownIsNoop) {
  Store store;
  store.publish(batchOf("a", 1));
  store.remove("zzz");
  EXPECT_EQ(store.snapshot()->generation, 1u);
  store.remove("a");
  EXPECT_TRUE(store.snapshot()->batches.empty());
  EXPECT_EQ(store.snapshot()->generation, 2u);
}

TEST(SeriesTest, KeyIsCanonicalAndLabelLookupWorks) {
  const auto s = makeSeries(kFamily, {{"device", "mlx5_0"}, {"port", "1"}});
  EXPECT_EQ(s->key, "fabricmon_test_total{device=\"mlx5_0\",port=\"1\"}");
  EXPECT_EQ(s->label("port"), "1");
  EXPECT_EQ(s->label("missing"), "");
}

}  // namespace
}  // namespace fabricmon
