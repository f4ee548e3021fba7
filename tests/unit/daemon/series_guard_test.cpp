// A series carried twice in one snapshot (daemon/series_guard.hpp): counted and served once in
// production, fatal under FABRICMON_STRICT_SERIES=1, and checked again only when a batch changes.
#include <gtest/gtest.h>

#include <cstdlib>

#include "daemon/pipeline.hpp"
#include "daemon/series_guard.hpp"
#include "model/series_clash.hpp"
#include "tests/support/http_get.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon {
namespace {

const FamilyDef kBytes{"fabricmon_test_receive_bytes_total", "Bytes the test counts.", MetricType::kCounter};

BatchPtr batch(std::string collector, const std::vector<testing::OwnedSample>& samples) {
  auto b = std::make_shared<Batch>();
  b->collector = std::move(collector);
  testing::writeSamples(*b, samples);
  b->seriesFingerprint = seriesFingerprint(b->samples);
  return b;
}

TEST(SeriesGuard, ACountedErrorOncePerSnapshotInProduction) {
  SeriesPtr rx = makeSeries(kBytes, {{"device", "mlx5_0"}});
  SeriesGuard guard(false);
  std::vector<BatchPtr> clean{batch("pma_counters", {{rx, 400}})};
  guard.check(clean);
  EXPECT_EQ(guard.conflicts(), 0u);
  std::vector<BatchPtr> clash{batch("pma_counters", {{rx, 400}}), batch("hw_counters", {{rx, 14}})};
  guard.check(clash);
  EXPECT_EQ(guard.conflicts(), 1u);
  // The same batches again: nothing changed, nothing re-checked.
  guard.check(clash);
  EXPECT_EQ(guard.conflicts(), 1u);
  // A changed batch of the same collectors is checked again.
  std::vector<BatchPtr> changed{batch("pma_counters", {{rx, 401}, {makeSeries(kBytes, {{"device", "mlx5_1"}}), 1}}),
                                batch("hw_counters", {{rx, 15}})};
  guard.check(changed);
  EXPECT_EQ(guard.conflicts(), 2u);
}

TEST(SeriesGuardDeathTest, StrictModeAborts) {
  SeriesPtr rx = makeSeries(kBytes, {{"device", "mlx5_0"}});
  std::vector<BatchPtr> clash{batch("pma_counters", {{rx, 400}}), batch("hw_counters", {{rx, 14}})};
  EXPECT_DEATH(
      {
        SeriesGuard guard(true);
        guard.check(clash);
      },
      "emitted by both pma_counters and hw_counters");
}

// Through the pipeline: two collectors publish one series; /metrics shows it once and the conflict
// is counted in fabricmon_series_conflicts_total.
TEST(SeriesGuard, ThePipelineCountsAClashBetweenTwoCollectors) {
  const char* old = std::getenv("FABRICMON_STRICT_SERIES");
  const std::string saved = old ? old : "";
  setenv("FABRICMON_STRICT_SERIES", "0", 1);
  auto store = std::make_shared<Store>();
  Pipeline pipeline{store, nullptr, SelfMetrics("test", "test", std::make_shared<RequestDurations>()),
                    [] {
                      std::vector<CollectorHealth> hs;
                      for (const char* name : {"hw_counters", "pma_counters"}) {
                        CollectorHealth h;
                        h.name = name;
                        h.up = true;
                        h.lastSuccess = std::chrono::steady_clock::now();
                        hs.push_back(h);
                      }
                      return hs;
                    },
                    PipelineOptions{}};
  if (old) setenv("FABRICMON_STRICT_SERIES", saved.c_str(), 1); else unsetenv("FABRICMON_STRICT_SERIES");
  SeriesPtr rx = makeSeries(kBytes, {{"device", "mlx5_0"}});
  store->publish(batch("pma_counters", {{rx, 400}}));
  store->publish(batch("hw_counters", {{rx, 14}}));
  pipeline.runPass();
  const auto payload = pipeline.payload();
  ASSERT_NE(payload, nullptr);
  EXPECT_EQ(testing::seriesValue(payload->text, "fabricmon_series_conflicts_total"), 1);
  size_t lines = 0;
  for (size_t pos = 0; (pos = payload->text.find("fabricmon_test_receive_bytes_total{", pos)) != std::string::npos; ++pos) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u);
}

}  // namespace
}  // namespace fabricmon
