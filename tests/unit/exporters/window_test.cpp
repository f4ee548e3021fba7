// /api/v1/window: the query string is checked (bad input is a clear 400, never a huge answer) and
// the body carries the numbers of docs/contract.md.
#include <gtest/gtest.h>

#include "exporters/window_json.hpp"
#include "model/families/ethtool.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon {
namespace {

TEST(WindowQuery, AcceptsTheDocumentedParameters) {
  auto q = parseWindowQuery("seconds=60&family=fabricmon_pfc_pause_seconds_total&points=1");
  ASSERT_TRUE(q) << q.error().message;
  EXPECT_EQ(q->window, std::chrono::seconds(60));
  EXPECT_EQ(q->family, "fabricmon_pfc_pause_seconds_total");
  EXPECT_TRUE(q->points);
  auto d = parseWindowQuery("");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->window, std::chrono::seconds(300));
  EXPECT_FALSE(d->points);
}

TEST(WindowQuery, SelectsOnePortByItsLabels) {
  auto q = parseWindowQuery("seconds=300&device=mlx5_3&port=1");
  ASSERT_TRUE(q) << q.error().message;
  const std::vector<std::pair<std::string, std::string>> want{{"device", "mlx5_3"}, {"port", "1"}};
  EXPECT_EQ(q->labels, want);
  for (const char* bad : {"device=", "device=a&device=b", "interface=eth%200", "priority=3"}) {
    EXPECT_FALSE(parseWindowQuery(bad)) << bad;
  }
}

TEST(WindowQuery, RejectsWhatItDoesNotKnow) {
  for (const char* bad : {"seconds=0", "seconds=-5", "seconds=3601", "seconds=1e3", "seconds=12abc", "seconds=",
                          "family=fabricmon_build_info", "points=yes", "secs=5", "seconds=99999999999999"}) {
    EXPECT_FALSE(parseWindowQuery(bad)) << bad;
  }
}

TEST(WindowJson, SummarisesEachKeptSeries) {
  RecentSamples recent;
  const FamilyDef& kPause = families::ethtool::kPfcPauseSeconds;
  static const FamilyDef kOther{"fabricmon_build_info", "", MetricType::kGauge};
  const auto pause = makeSeries(kPause, {{"interface", "eth0"}, {"priority", "3"}});
  const auto other = makeSeries(kOther, {});
  const auto now = std::chrono::steady_clock::now();
  for (int i = 0; i <= 10; ++i) {
    Snapshot s;
    auto b = std::make_shared<Batch>();
    b->collector = "ethtool_pfc";
    b->monotonic = now - std::chrono::seconds(10 - i);
    b->wall = std::chrono::system_clock::now() - std::chrono::seconds(10 - i);
    testing::writeSamples(*b, {{pause, 0.5 * i}, {other, 1}});
    s.batches["ethtool_pfc"] = b;
    recent.ingest(s);
  }
  RecentSamples::Query q;
  q.window = std::chrono::seconds(60);
  const std::string body = renderWindowJson(recent, q);
  EXPECT_NE(body.find("\"name\":\"fabricmon_pfc_pause_seconds_total\""), std::string::npos) << body;
  EXPECT_EQ(body.find("fabricmon_build_info"), std::string::npos) << "only kept families";
  EXPECT_NE(body.find("\"increase\":5,"), std::string::npos) << body;
  EXPECT_NE(body.find("\"rate\":0.5,"), std::string::npos) << body;
  EXPECT_NE(body.find("\"samples\":11"), std::string::npos) << body;
}

}  // namespace
}  // namespace fabricmon
