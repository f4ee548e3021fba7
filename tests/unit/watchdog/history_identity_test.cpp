// The history keys series by Series::id: a series object seen before costs one integer lookup. A new
// object for the same labels (a collector that rebuilt its series) continues the same history; a
// vanished series is forgotten with its id; ids of series no rule reads are remembered too (so their
// family is not looked up by name again), and none of it grows without bound.
#include <gtest/gtest.h>

#include <chrono>

#include "model/store.hpp"
#include "watchdog/history.hpp"

namespace fabricmon::watchdog {
namespace {

const FamilyDef kCarrier{"fabricmon_netdev_carrier_changes_total", "carrier changes", MetricType::kCounter};
const FamilyDef kNotAnInput{"fabricmon_something_else_total", "read by no rule", MetricType::kCounter};

class HistoryIdentity : public ::testing::Test {
 protected:
  void publish(std::vector<Sample> samples) {
    auto batch = std::make_shared<Batch>();
    batch->collector = "netdev_link";
    now_ += std::chrono::seconds(1);
    batch->monotonic = now_;
    batch->samples = std::move(samples);
    snapshot_.batches["netdev_link"] = std::move(batch);
    ++snapshot_.generation;
    history_.ingest(snapshot_);
  }
  const Tracked* carrier(std::string_view iface) const { return history_.find(Fam::kCarrierChanges, iface); }

  History history_;
  Snapshot snapshot_;
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
};

TEST_F(HistoryIdentity, ANewObjectForTheSameLabelsContinuesTheSameHistory) {
  auto first = makeSeries(kCarrier, {{"interface", "eth0"}});
  publish({{first, 10}});
  publish({{first, 12}});
  ASSERT_NE(carrier("eth0"), nullptr);
  EXPECT_EQ(carrier("eth0")->samples, 2u);
  auto rebuilt = makeSeries(kCarrier, {{"interface", "eth0"}});  // same labels, another object and id
  ASSERT_NE(rebuilt->id, first->id);
  publish({{rebuilt, 15}});
  EXPECT_EQ(history_.size(), 1u);
  EXPECT_EQ(carrier("eth0")->samples, 3u);
  EXPECT_EQ(carrier("eth0")->total, 5.0);  // 10 → 12 → 15: one history, no reset
}

TEST_F(HistoryIdentity, AVanishedSeriesIsForgottenWithItsId) {
  auto eth0 = makeSeries(kCarrier, {{"interface", "eth0"}});
  auto eth1 = makeSeries(kCarrier, {{"interface", "eth1"}});
  auto other = makeSeries(kNotAnInput, {{"interface", "eth0"}});
  publish({{eth0, 1}, {eth1, 1}, {other, 1}});
  publish({{eth0, 2}, {eth1, 2}, {other, 2}});
  EXPECT_EQ(history_.size(), 2u);             // the family no rule reads is not tracked...
  EXPECT_EQ(history_.seriesObjects(), 3u);    // ...but its id is known, so it is skipped cheaply
  publish({{eth0, 3}});                        // eth1 vanished (and the other series)
  EXPECT_EQ(history_.size(), 1u);
  EXPECT_EQ(history_.seriesObjects(), 1u);
  EXPECT_EQ(carrier("eth1"), nullptr);
  publish({{eth0, 4}, {eth1, 9}});             // the same object again is a new series: it starts over
  ASSERT_NE(carrier("eth1"), nullptr);
  EXPECT_EQ(carrier("eth1")->samples, 1u);
}

TEST_F(HistoryIdentity, ObjectsRebuiltEveryPassDoNotAccumulate) {
  for (int pass = 0; pass < 300; ++pass) {
    publish({{makeSeries(kCarrier, {{"interface", "eth0"}}), double(pass)},
             {makeSeries(kNotAnInput, {{"interface", "eth0"}}), double(pass)}});
    EXPECT_LE(history_.seriesObjects(), 2u * 65u) << "pass " << pass;
  }
  EXPECT_EQ(history_.size(), 1u);
  EXPECT_EQ(carrier("eth0")->samples, 300u);
}

}  // namespace
}  // namespace fabricmon::watchdog
