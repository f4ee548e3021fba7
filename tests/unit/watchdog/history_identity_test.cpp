// The history keys series by Series::id: a series object seen before costs one integer lookup. A new
// object for the same labels (a collector that rebuilt its series) continues the same history; a
// vanished series is forgotten with its id; ids of series no rule reads are remembered too (so their
// family is not looked up by name again), and none of it grows without bound.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "model/store.hpp"
#include "watchdog/history.hpp"
#include "model/families/netdev.hpp"
#include "model/families/port.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon::watchdog {
namespace {

const FamilyDef& kCarrier = families::netdev::kCarrierChanges;
const FamilyDef kNotAnInput{"fabricmon_something_else_total", "read by no rule", MetricType::kCounter};

class HistoryIdentity : public ::testing::Test {
 protected:
  void publish(std::vector<testing::OwnedSample> samples, std::vector<SeriesPtr> unread = {}) {
    auto batch = std::make_shared<Batch>();
    batch->collector = "netdev_link";
    now_ += std::chrono::seconds(1);
    batch->monotonic = now_;
    testing::writeSamples(*batch, samples);
    batch->unread = std::move(unread);
    snapshot_.batches["netdev_link"] = std::move(batch);
    ++snapshot_.generation;
    history_.ingest(snapshot_);
  }
  const Tracked* carrier(std::string_view iface) const { return history_.find(Fam::kCarrierChanges, iface); }

  History history_;
  Snapshot snapshot_;
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
};

TEST_F(HistoryIdentity, TheSameLabelsAreOneSeriesObjectWithOneHistory) {
  auto first = makeSeries(kCarrier, {{"interface", "eth0"}});
  publish({{first, 10}});
  auto rebuilt = makeSeries(kCarrier, {{"interface", "eth0"}});  // a collector re-creating it
  EXPECT_EQ(rebuilt.get(), first.get());
  EXPECT_EQ(rebuilt->id, first->id);
  publish({{rebuilt, 12}});
  EXPECT_EQ(history_.size(), 1u);
  ASSERT_NE(carrier("eth0"), nullptr);
  EXPECT_EQ(carrier("eth0")->samples, 2u);
  EXPECT_EQ(carrier("eth0")->total, 2.0);
}

TEST_F(HistoryIdentity, ANewSeriesWithTheSameKeyLabelsContinuesTheSameHistory) {
  // port_info's rate label follows renegotiation: another series (another id), the same port.
  const FamilyDef& info = families::port::kPortInfo;
  auto fast = makeSeries(info, {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "eth0"}, {"link_layer", "Ethernet"}, {"rate", "400 Gb/sec (4X NDR)"}});
  publish({{fast, 1}});
  auto slow = makeSeries(info, {{"device", "mlx5_0"}, {"port", "1"}, {"interface", "eth0"}, {"link_layer", "Ethernet"}, {"rate", "200 Gb/sec (4X HDR)"}});
  ASSERT_NE(slow->id, fast->id);
  publish({{slow, 1}});
  EXPECT_EQ(history_.size(), 1u);
  const Tracked* port = history_.find(Fam::kPortInfo, "mlx5_0", "1", "eth0");
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->samples, 2u);
  EXPECT_EQ(port->series.get(), slow.get());  // the newest labels are the ones rules read
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

// A series its collector could not read this run (Batch::unread) is unknown, not gone: its history
// is kept as it was, and continues when it is read again; one neither sampled nor unread is gone.
TEST_F(HistoryIdentity, AnUnreadSeriesKeepsItsHistoryAVanishedOneDoesNot) {
  auto eth0 = makeSeries(kCarrier, {{"interface", "eth0"}});
  auto eth1 = makeSeries(kCarrier, {{"interface", "eth1"}});
  auto other = makeSeries(kNotAnInput, {{"interface", "eth1"}});
  publish({{eth0, 1}, {eth1, 1}, {other, 1}});
  publish({{eth0, 2}, {eth1, 3}, {other, 2}});
  for (int run = 0; run < 5; ++run) publish({{eth0, 3.0 + run}}, {eth1, other});
  ASSERT_NE(carrier("eth1"), nullptr) << "held while unread";
  EXPECT_EQ(carrier("eth1")->samples, 2u) << "no sample while unread";
  EXPECT_EQ(carrier("eth1")->total, 2.0);
  EXPECT_EQ(history_.seriesObjects(), 3u) << "ids of unread series are kept too";
  publish({{eth0, 8}, {eth1, 7}, {other, 3}});
  ASSERT_NE(carrier("eth1"), nullptr);
  EXPECT_EQ(carrier("eth1")->samples, 3u);
  EXPECT_EQ(carrier("eth1")->total, 6.0) << "the increase across the unread runs counts";
  publish({{eth0, 9}});
  EXPECT_EQ(carrier("eth1"), nullptr) << "neither sampled nor unread: gone";
  EXPECT_EQ(history_.size(), 1u);
}

// A read that never works again is not held for good: after kUnreadHold without a sample the
// series is let go, its id with it, and a later sample starts it over.
TEST_F(HistoryIdentity, AnUnreadSeriesIsLetGoAfterTheHold) {
  auto eth0 = makeSeries(kCarrier, {{"interface", "eth0"}});
  auto eth1 = makeSeries(kCarrier, {{"interface", "eth1"}});
  publish({{eth0, 1}, {eth1, 1}});
  const int holdRuns = static_cast<int>(kUnreadHold / kSecond);
  for (int run = 0; run < holdRuns; ++run) publish({{eth0, 1}}, {eth1});
  ASSERT_NE(carrier("eth1"), nullptr) << "held for kUnreadHold";
  publish({{eth0, 1}}, {eth1});
  EXPECT_EQ(carrier("eth1"), nullptr) << "let go after it";
  EXPECT_EQ(history_.seriesObjects(), 1u);
  publish({{eth0, 1}, {eth1, 5}});
  ASSERT_NE(carrier("eth1"), nullptr);
  EXPECT_EQ(carrier("eth1")->samples, 1u) << "a fresh history";
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

// The tracked series live in a pool indexed by an open-addressing table of their keys: a series
// that goes frees its slot and its index entry, and every other series is still found (a lookup
// must not stop at the hole it left); a slot reused by a new series starts it over.
TEST_F(HistoryIdentity, FreedSlotsAreReusedAndEverySeriesIsStillFound) {
  const int kInterfaces = 300;  // several index growths
  std::vector<SeriesPtr> all;
  for (int i = 0; i < kInterfaces; ++i) all.push_back(makeSeries(kCarrier, {{"interface", "eth" + std::to_string(i)}}));
  auto publishWhere = [&](auto keep, double value) {
    std::vector<testing::OwnedSample> samples;
    for (int i = 0; i < kInterfaces; ++i) {
      if (keep(i)) samples.push_back({all[i], value});
    }
    publish(std::move(samples));
  };
  publishWhere([](int) { return true; }, 5);
  publishWhere([](int) { return true; }, 7);
  ASSERT_EQ(history_.size(), size_t(kInterfaces));
  publishWhere([](int i) { return i % 3 != 0; }, 8);  // every third goes
  EXPECT_EQ(history_.size(), size_t(kInterfaces - 100));
  for (int i = 0; i < kInterfaces; ++i) {
    const Tracked* s = carrier("eth" + std::to_string(i));
    if (i % 3 == 0) {
      EXPECT_EQ(s, nullptr) << i;
    } else {
      ASSERT_NE(s, nullptr) << i;
      EXPECT_EQ(s->key().substr(1), "eth" + std::to_string(i) + "\x1f\x1f");
      EXPECT_EQ(s->samples, 3u) << i;
      EXPECT_EQ(s->total, 3.0) << i;
    }
  }
  publishWhere([](int) { return true; }, 20);  // they come back, into the freed slots
  EXPECT_EQ(history_.size(), size_t(kInterfaces));
  for (int i = 0; i < kInterfaces; ++i) {
    const Tracked* s = carrier("eth" + std::to_string(i));
    ASSERT_NE(s, nullptr) << i;
    EXPECT_EQ(s->series.get(), all[i].get());
    EXPECT_EQ(s->samples, i % 3 == 0 ? 1u : 4u) << i;
    EXPECT_EQ(s->total, i % 3 == 0 ? 0.0 : 15.0) << i;  // a reused slot keeps nothing of its last series
  }
}

}  // namespace
}  // namespace fabricmon::watchdog
