#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include <set>
#include <thread>

#include "tests/unit/watchdog/test_node.hpp"
#include "model/families/ethtool.hpp"
#include "watchdog/history.hpp"
#include "watchdog/rules/dcqcn_misconfig.hpp"
#include "watchdog/rules/link_flap.hpp"
#include "watchdog/rules/pause_storm.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon::testing {
namespace {

const Labels kRxPause{{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}};

double valueOf(const BatchPtr& batch, std::string_view family, std::initializer_list<std::pair<const char*, const char*>> want,
               bool* found = nullptr) {
  for (const auto& s : batch->samples) {
    if (s.series->family->name != family) continue;
    bool match = true;
    for (const auto& [k, v] : want) {
      if (s.series->label(k) != v) match = false;
    }
    if (match) {
      if (found) *found = true;
      return s.value;
    }
  }
  if (found) *found = false;
  return -1;
}

void trustPcp(TestNode& n, double trust) { n.set("dcb_config", "fabricmon_dcb_trust_dscp", {{"interface", "eth0"}}, trust); }

TEST(Watchdog, FamiliesAreTheAgreedNames) {
  std::set<std::string_view> names;
  for (const FamilyDef* f : Watchdog::families()) names.insert(f->name);
  EXPECT_EQ(names, (std::set<std::string_view>{"fabricmon_watchdog_active", "fabricmon_watchdog_transitions_total",
                                               "fabricmon_pause_fraction_peak", "fabricmon_ecn_marked_rate_peak",
                                               "fabricmon_counter_refresh_seconds",
                                               "fabricmon_cnp_sent_rate_peak", "fabricmon_cnp_handled_rate_peak",
                                               "fabricmon_watchdog_recurring", "fabricmon_watchdog_port_ignored_info",
                                               "fabricmon_watchdog_link_ber_unjudged_info",
                                               "fabricmon_link_pre_fec_ber", "fabricmon_link_pre_fec_ber_baseline",
                                               "fabricmon_link_pre_fec_ber_warning_level",
                                               "fabricmon_port_pre_fec_ber", "fabricmon_port_pre_fec_ber_baseline",
                                               "fabricmon_port_pre_fec_ber_warning_level",
                                               "fabricmon_transceiver_rx_power_baseline_watts",
                                               "fabricmon_transceiver_tx_power_baseline_watts"}));
}

TEST(Watchdog, ActiveGaugeGoesBackToZeroAndTransitionsCount) {
  TestNode n;
  healthyRoce(n);
  auto batch = n.watchdog().metricsBatch();
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->collector, "watchdog");
  EXPECT_EQ(valueOf(batch, "fabricmon_watchdog_transitions_total", {{"rule", "dcqcn_misconfig"}}), 0);

  trustPcp(n, 0);
  n.tick();
  n.tick();
  batch = n.watchdog().metricsBatch();
  const std::initializer_list<std::pair<const char*, const char*>> labels = {
      {"rule", "dcqcn_misconfig"}, {"severity", "warning"}, {"device", ""}, {"port", ""},
      {"interface", "eth0"},       {"priority", ""},        {"reason", "trust_not_dscp"}};
  EXPECT_EQ(valueOf(batch, "fabricmon_watchdog_active", labels), 1);
  EXPECT_EQ(valueOf(batch, "fabricmon_watchdog_transitions_total", {{"rule", "dcqcn_misconfig"}}), 1);
  for (const auto& s : batch->samples) {
    if (s.series->family->name == "fabricmon_watchdog_active") {
      EXPECT_EQ(s.series->labels().size(), 8u);  // ... reason, side
    }
  }

  trustPcp(n, 1);
  n.tick();
  n.tick();
  batch = n.watchdog().metricsBatch();
  bool found = false;
  EXPECT_EQ(valueOf(batch, "fabricmon_watchdog_active", labels, &found), 0);
  EXPECT_TRUE(found) << "a cleared finding stays at 0 while its subject exists";
  EXPECT_TRUE(n.findings().empty());

  trustPcp(n, 0);
  n.tick();
  batch = n.watchdog().metricsBatch();
  EXPECT_EQ(valueOf(batch, "fabricmon_watchdog_active", labels), 1);
  EXPECT_EQ(valueOf(batch, "fabricmon_watchdog_transitions_total", {{"rule", "dcqcn_misconfig"}}), 2);

  // The interface vanishes: the finding ends and its gauge leaves the batch.
  for (const char* c : {"rdma_port", "netdev_link", "dcb_config", "dcqcn_config", "ethtool_pfc"}) {
    n.drop(c, "interface", "eth0");
  }
  n.tick();
  batch = n.watchdog().metricsBatch();
  valueOf(batch, "fabricmon_watchdog_active", labels, &found);
  EXPECT_FALSE(found);
  EXPECT_TRUE(n.findings().empty());
}

TEST(Watchdog, AFindingRecordsTheJobsRunningWhenItStarted) {
  TestNode n;
  healthyRoce(n);
  // slurm_jobs: two jobs on the node; only 4712 holds a GPU of mlx5_0 port 1.
  n.set("slurm_jobs", "fabricmon_node_job_info", {{"job_id", "4711"}, {"user", "alice"}}, 1);
  n.set("slurm_jobs", "fabricmon_node_job_info", {{"job_id", "4712"}, {"user", "bob"}}, 1);
  n.set("slurm_jobs", "fabricmon_port_job_info", {{"device", "mlx5_0"}, {"port", "1"}, {"job_id", "4712"}}, 1);
  trustPcp(n, 0);  // an interface finding (no port): every job on the node
  n.tick();
  n.tick();
  auto findings = n.findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].jobs, (std::vector<std::string>{"4711 (alice)", "4712 (bob)"}));
  // The jobs of a finding are those at its start: a job that ends later stays named.
  n.removeCollector("slurm_jobs");
  n.tick();
  findings = n.findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].jobs.size(), 2u);
}

TEST(Watchdog, ReconfigureSwitchingARuleOffClearsItsFindingsAndKeepsHistory) {
  TestNode n;
  healthyRoce(n);
  trustPcp(n, 0);
  for (int i = 0; i < 3; ++i) n.tick();
  ASSERT_EQ(n.findings().size(), 1u);

  WatchdogConfig off;
  off.rules.get<DcqcnMisconfigRule>().enabled = false;
  n.watchdog().reconfigure(off, QosConfig{});
  EXPECT_TRUE(n.findings().empty());
  EXPECT_EQ(valueOf(n.watchdog().metricsBatch(), "fabricmon_watchdog_active", {{"reason", "trust_not_dscp"}}), 0);
  n.tick();
  EXPECT_TRUE(n.findings().empty());

  // Back on: the history survived, so one new sample suffices (min_samples is already met).
  n.watchdog().reconfigure(WatchdogConfig{}, QosConfig{});
  n.tick();
  EXPECT_EQ(n.findings().size(), 1u);
}

// A SIGHUP reconfigures on the App's thread while the pipeline's thread evaluates (daemon/sampler.cpp
// stops the collectors, not the pipeline): the two must not meet inside the engine. Every other
// reload here changes a long window, so the history reshapes its rings while passes ingest. Without
// the engine's lock this races (a crash, or a report under -fsanitize=thread/address).
TEST(Watchdog, AReconfigureDuringEvaluationsIsSerialisedWithThem) {
  TestNode n;
  healthyRoce(n);
  n.tick();
  std::atomic<bool> done{false};
  std::thread reloads([&] {
    for (int i = 0; !done.load(); ++i) {
      WatchdogConfig c;
      c.rules.get<LinkFlapRule>().window = std::chrono::minutes(i % 2 == 0 ? 5 : 10);
      c.rules.get<PauseStormRule>().pauseFraction = i % 2 == 0 ? 0.5 : 0.2;
      n.watchdog().reconfigure(c, QosConfig{});
    }
  });
  for (int i = 0; i < 400; ++i) n.tick();
  done = true;
  reloads.join();
  EXPECT_TRUE(n.findings().empty()) << describe(n.findings()).front();
}

TEST(Watchdog, ReconfigureAppliesNewThresholds) {
  TestNode n;
  healthyRoce(n);
  n.tick();
  n.tick();
  WatchdogConfig lower;
  lower.rules.get<PauseStormRule>().pauseFraction = 0.5;
  n.watchdog().reconfigure(lower, QosConfig{});
  for (int i = 0; i < 2; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 0.6);
    n.tick();
  }
  EXPECT_EQ(describe(n.findings()), std::vector<std::string>{"pause_storm/storm/eth0/3"});
}

TEST(Watchdog, PeakGaugesKeepAShortStormForThePeakWindow) {
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 10; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 0.1);
    flowing(n);
    n.tick();
  }
  // A 2 s storm: invisible in a 30 s average (0.1 -> 0.16), kept whole by the peak gauge.
  for (int i = 0; i < 2; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 1.0);
    n.tick();
  }
  auto peak = [&] {
    return valueOf(n.watchdog().metricsBatch(), "fabricmon_pause_fraction_peak",
                   {{"interface", "eth0"}, {"priority", "3"}, {"direction", "rx"}});
  };
  EXPECT_DOUBLE_EQ(peak(), 1.0);
  for (int i = 0; i < 50; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 0.1);
    flowing(n);
    n.tick();
  }
  EXPECT_DOUBLE_EQ(peak(), 1.0) << "still inside peak_window";
  for (int i = 0; i < 20; ++i) {
    n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 0.1);
    flowing(n);
    n.tick();
  }
  EXPECT_NEAR(peak(), 0.1, 1e-6);
  EXPECT_NEAR(valueOf(n.watchdog().metricsBatch(), "fabricmon_cnp_sent_rate_peak", {{"device", "mlx5_0"}, {"port", "1"}}),
              5.0, 1e-9);
  EXPECT_NEAR(valueOf(n.watchdog().metricsBatch(), "fabricmon_ecn_marked_rate_peak", {{"device", "mlx5_0"}, {"port", "1"}}),
              5.0, 1e-9);
  EXPECT_NEAR(valueOf(n.watchdog().metricsBatch(), "fabricmon_cnp_handled_rate_peak", {{"device", "mlx5_0"}, {"port", "1"}}),
              5.0, 1e-9);
}

TEST(Watchdog, PeakUsesRealElapsedTime) {
  TestNode n;
  healthyRoce(n);
  for (int i = 0; i < 4; ++i) {  // the NIC's counters move every poll: its cadence is learned
    flowing(n);
    n.tick();
  }
  n.add("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", kRxPause, 1.35);
  n.tick(2.7);
  EXPECT_NEAR(valueOf(n.watchdog().metricsBatch(), "fabricmon_pause_fraction_peak", {{"direction", "rx"}}), 0.5, 1e-9);
}

TEST(Watchdog, StaleCollectorFreesItsSeries) {
  TestNode n;
  healthyRoce(n);
  n.tick();
  n.tick();
  auto countPeaks = [&] {
    size_t k = 0;
    for (const auto& s : n.watchdog().metricsBatch()->samples) k += s.series->family->name == "fabricmon_pause_fraction_peak";
    return k;
  };
  EXPECT_EQ(countPeaks(), 2u);
  n.removeCollector("ethtool_pfc");
  n.tick();
  EXPECT_EQ(countPeaks(), 0u);
  EXPECT_TRUE(n.findings().empty());
}

// ---- History ----

using watchdog::CoarseRing;
using watchdog::kSecond;
using watchdog::PeakBuckets;

TEST(CoarseRing, KeepsOnePointPerWidthAndTheNewestOnes) {
  CoarseRing ring(10 * kSecond, 4);
  for (int t = 0; t <= 100; ++t) ring.push(t * kSecond, t);
  // Points at 70, 80, 90, 100 remain.
  EXPECT_EQ(ring.baseFor(95 * kSecond)->t, 90 * kSecond);
  EXPECT_EQ(ring.baseFor(10 * kSecond)->t, 70 * kSecond) << "older than the ring: the oldest point";
  ring.reshape(20 * kSecond, 2);
  EXPECT_EQ(ring.baseFor(100 * kSecond)->t, 100 * kSecond);
  EXPECT_EQ(ring.baseFor(99 * kSecond)->t, 90 * kSecond);
}

// Times are milliseconds since the ring's origin (32 bits: 49 days); a daemon that runs longer
// moves the origin, and every point keeps its time and total.
TEST(CoarseRing, KeepsTimesAcrossMonthsOfUptime) {
  const watchdog::Nanos day = 86400 * kSecond;
  const watchdog::Nanos start = 1234567 * kSecond + 123'000'000;  // a steady clock that is not at 0
  CoarseRing ring(day, 4);
  for (int d = 0; d <= 120; ++d) ring.push(start + d * day, d * 1e12);
  const auto base = ring.baseFor(start + 118 * day + kSecond);
  ASSERT_TRUE(base);
  EXPECT_EQ(base->t, start + 118 * day);
  EXPECT_EQ(base->total, 118e12);
  EXPECT_EQ(ring.baseFor(start)->t, start + 117 * day) << "older than the ring: the oldest point";
}

// Totals are floats while every one is exactly a float and doubles from the first that is not: the
// rules' windows read back what was pushed, before and after the switch.
TEST(CoarseRing, KeepsTotalsExactWhenTheyOutgrowAFloat) {
  CoarseRing ring(kSecond, 8);
  for (int t = 0; t < 4; ++t) ring.push(t * kSecond, t == 3 ? 16777216.0 : t);  // 2^24: still a float
  EXPECT_FALSE(ring.wide());
  const size_t narrow = ring.bytes();
  ring.push(4 * kSecond, 16777217.0);  // 2^24 + 1: not a float
  EXPECT_TRUE(ring.wide());
  EXPECT_GT(ring.bytes(), narrow);
  ring.push(5 * kSecond, 0.1);
  for (int t = 0; t < 4; ++t) EXPECT_EQ(ring.baseFor(t * kSecond)->total, t == 3 ? 16777216.0 : t);
  EXPECT_EQ(ring.baseFor(4 * kSecond)->total, 16777217.0);
  EXPECT_EQ(ring.baseFor(5 * kSecond)->total, 0.1);
  // A reshape keeps the newest points exactly, whatever they need.
  ring.reshape(2 * kSecond, 2);
  EXPECT_EQ(ring.baseFor(5 * kSecond)->total, 0.1);
  EXPECT_EQ(ring.baseFor(4 * kSecond)->total, 16777217.0);
  CoarseRing idle(kSecond, 8);
  for (int t = 0; t < 20; ++t) idle.push(t * kSecond, 0);
  EXPECT_FALSE(idle.wide()) << "an idle counter's ring stays narrow";
}

// A series that stands still keeps one total for all its points; its first different total gives
// it a total per point, and every point reads back what was pushed, bit for bit.
TEST(CoarseRing, AStillSeriesKeepsOneTotal) {
  CoarseRing ring(kSecond, 62);
  for (int t = 0; t < 100; ++t) ring.push(t * kSecond, 7.0);
  EXPECT_TRUE(ring.still());
  EXPECT_FALSE(ring.wide());
  const size_t still = ring.bytes();
  EXPECT_LE(still, 32u) << "a header and one total, not 62";
  EXPECT_EQ(ring.baseFor(50 * kSecond)->total, 7.0);
  ring.push(100 * kSecond, 8.0);
  EXPECT_FALSE(ring.still());
  EXPECT_FALSE(ring.wide());
  EXPECT_GE(ring.bytes(), still + 60 * sizeof(float)) << "a float per point from the first change";
  EXPECT_EQ(ring.baseFor(99 * kSecond)->total, 7.0);
  EXPECT_EQ(ring.baseFor(100 * kSecond)->total, 8.0);
  EXPECT_EQ(ring.baseFor(0)->total, 7.0) << "older than the ring: its oldest point";
  EXPECT_EQ(ring.baseFor(0)->t, 39 * kSecond);

  // A still total that is no float reads back exactly, and so do the points after it.
  CoarseRing tenth(kSecond, 8);
  for (int t = 0; t < 5; ++t) tenth.push(t * kSecond, 0.1);
  EXPECT_TRUE(tenth.still());
  EXPECT_TRUE(tenth.wide());
  tenth.push(5 * kSecond, 1.0);
  EXPECT_TRUE(tenth.wide());
  EXPECT_EQ(tenth.baseFor(4 * kSecond)->total, 0.1);
  EXPECT_EQ(tenth.baseFor(5 * kSecond)->total, 1.0);

  // Equal means the same bits: -0.0 after 0.0 is a change, and a NaN stays the NaN it was.
  CoarseRing zero(kSecond, 4);
  zero.push(0, 0.0);
  zero.push(kSecond, -0.0);
  EXPECT_FALSE(zero.still());
  EXPECT_FALSE(std::signbit(zero.baseFor(0)->total));
  EXPECT_TRUE(std::signbit(zero.baseFor(kSecond)->total));
  CoarseRing nan(kSecond, 4);
  nan.push(0, std::nan(""));
  nan.push(kSecond, std::nan(""));
  EXPECT_TRUE(nan.still());
  EXPECT_TRUE(std::isnan(nan.baseFor(kSecond)->total));
  nan.push(2 * kSecond, 3.0);
  EXPECT_TRUE(std::isnan(nan.baseFor(kSecond)->total));
  EXPECT_EQ(nan.baseFor(2 * kSecond)->total, 3.0);

  // A reshape keeps a still ring still.
  ring = CoarseRing(kSecond, 62);
  for (int t = 0; t < 10; ++t) ring.push(t * kSecond, 2.0);
  ring.reshape(2 * kSecond, 4);
  EXPECT_TRUE(ring.still());
  EXPECT_EQ(ring.baseFor(9 * kSecond)->total, 2.0);
}

// Rings of one cohort share their column of times. Whatever their pushes do — the same instants, a
// ring that misses one, a ring pushed at other instants, rings that come and go, a reshape — every
// ring reads exactly the points a ring of its own would keep.
TEST(CoarseRing, RingsSharingTimesReadWhatARingOfTheirOwnWould) {
  struct Model {  // a ring of its own: the newest `capacity` points at least `width` apart
    watchdog::Nanos width;
    size_t capacity;
    watchdog::Nanos origin = watchdog::kNever;
    std::vector<CoarseRing::Point> points;
    void push(watchdog::Nanos t, double total) {
      if (!points.empty() && t - points.back().t < width) return;
      if (origin == watchdog::kNever) origin = t;
      points.push_back({origin + (t - origin) / 1'000'000 * 1'000'000, total});  // read at ms
      if (points.size() > capacity) points.erase(points.begin());
    }
    std::optional<CoarseRing::Point> baseFor(watchdog::Nanos t) const {
      if (points.empty()) return std::nullopt;
      for (size_t i = points.size(); i-- > 0;) {
        if (points[i].t <= t) return points[i];
      }
      return points.front();
    }
  };
  const watchdog::Nanos width = 2 * kSecond;
  const uint16_t capacity = 6;
  CoarseRing::Cohort cohort;
  std::vector<CoarseRing> rings;
  std::vector<Model> models;
  std::mt19937 random(7);
  auto chance = [&](int perMille) { return std::uniform_int_distribution<int>(0, 999)(random) < perMille; };
  auto check = [&](watchdog::Nanos now, int step) {
    for (size_t r = 0; r < rings.size(); ++r) {
      for (watchdog::Nanos q = now - 20 * kSecond; q <= now + kSecond; q += kSecond / 2) {
        const auto got = rings[r].baseFor(q);
        const auto want = models[r].baseFor(q);
        ASSERT_EQ(got.has_value(), want.has_value()) << "step " << step << " ring " << r;
        if (!want) continue;
        ASSERT_EQ(got->t, want->t) << "step " << step << " ring " << r << " query " << q;
        ASSERT_EQ(got->total, want->total) << "step " << step << " ring " << r << " query " << q;
      }
    }
  };
  for (int r = 0; r < 8; ++r) {
    rings.emplace_back(width, capacity);
    models.push_back(Model{width, capacity, watchdog::kNever, {}});
  }
  int sharedSteps = 0;
  watchdog::Nanos t = 1000 * kSecond + 123'456;
  for (int step = 0; step < 3000; ++step) {
    t += kSecond + (chance(100) ? 7'000'000 : 0);
    if (step % 250 == 0) {  // a new generation of series: they join one column at their first push
      for (size_t r = 0; r < rings.size(); ++r) {
        rings[r] = CoarseRing(width, capacity);
        models[r] = Model{width, capacity, watchdog::kNever, {}};
      }
    }
    for (size_t r = 0; r < rings.size(); ++r) {
      if (chance(4)) continue;  // this ring misses this instant
      const watchdog::Nanos at = chance(3) ? t + 300'000'000 : t;  // or is pushed at another
      // Rings 0-2 stand still for the first 100-200 steps of each generation (one total kept for
      // every point), then move; now and then a total is not a float.
      const bool still = r < 3 && step % 250 < 100 + 50 * static_cast<int>(r);
      const double total = still ? r * 1e9 + 0.5 : step * 3.0 + r + (chance(10) ? 0.1 : 0);
      rings[r].push(at, total, &cohort);
      models[r].push(at, total);
    }
    if (chance(10)) {  // a series goes, a new one comes (it joins at its first push if it can)
      const size_t r = std::uniform_int_distribution<size_t>(0, rings.size() - 1)(random);
      rings[r] = CoarseRing(width, capacity);
      models[r] = Model{width, capacity, watchdog::kNever, {}};
    }
    if (chance(3)) {  // a reshape keeps the newest points
      const size_t r = std::uniform_int_distribution<size_t>(0, rings.size() - 1)(random);
      rings[r].reshape(width, 3);
      Model m{width, 3, watchdog::kNever, {}};
      m.origin = models[r].points.empty() ? watchdog::kNever : models[r].points[models[r].points.size() - std::min<size_t>(3, models[r].points.size())].t;
      for (size_t i = models[r].points.size() - std::min<size_t>(3, models[r].points.size()); i < models[r].points.size(); ++i) {
        m.points.push_back(models[r].points[i]);
      }
      models[r] = m;
    }
    sharedSteps += std::count_if(rings.begin(), rings.end(), [](const CoarseRing& r) { return r.sharesTimes(); }) >= 4;
    check(t, step);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(sharedSteps, 1500) << "rings pushed at the same instants share their times";
  // Rings pushed at the same instants from their first push on stay on one column.
  CoarseRing a(width, capacity), b(width, capacity);
  CoarseRing::Cohort together;
  for (int i = 0; i < 50; ++i) {
    a.push(i * kSecond, i, &together);
    b.push(i * kSecond, 2 * i, &together);
  }
  EXPECT_TRUE(a.sharesTimes());
  EXPECT_EQ(b.baseFor(40 * kSecond)->total, 80);
}

// The median gap is found when a gap is recorded; it must be the median of the gaps the ring holds
// (rank count / 2 of the sorted gaps), however the ring has wrapped and whatever repeats.
TEST(RateJudgement, OwnRefreshIsTheMedianOfTheGapsItHolds) {
  std::mt19937 random(11);
  for (int run = 0; run < 200; ++run) {
    watchdog::RateJudgement j;
    EXPECT_EQ(j.ownRefresh(), 0) << "no gap yet";
    std::vector<float> all;
    const int gaps = std::uniform_int_distribution<int>(1, 30)(random);
    for (int g = 0; g < gaps; ++g) {
      // Few distinct values, so equal gaps are common; now and then a long one.
      float seconds = 0.25f * float(std::uniform_int_distribution<int>(1, 6)(random));
      if (std::uniform_int_distribution<int>(0, 9)(random) == 0) seconds = 30.5f;
      j.addGap(seconds);
      all.push_back(seconds);
      std::vector<float> held(all.end() - std::min<std::ptrdiff_t>(all.size(), watchdog::kGapSlots), all.end());
      std::sort(held.begin(), held.end());
      ASSERT_EQ(j.ownRefresh(), static_cast<watchdog::Nanos>(double(held[held.size() / 2]) * kSecond))
          << "run " << run << " gap " << g;
    }
  }
}

// A source's refresh period is learned from its fastest-moving counter and given to every counter
// of the source: one that appears after it was learned gets it at its first pass too.
TEST(History, ACounterThatAppearsLaterGetsItsSourcesRefresh) {
  watchdog::History history;
  Snapshot snapshot;
  auto pause = [](const std::string& prio) {
    return makeSeries(families::ethtool::kPfcPauseSeconds,
                      {{"interface", "eth0"}, {"priority", prio}, {"direction", "rx"}});
  };
  const SeriesPtr moving = pause("3"), late = pause("4");
  std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
  auto publish = [&](int poll, bool withLate) {
    auto batch = std::make_shared<Batch>();
    batch->collector = "ethtool_pfc";
    now += std::chrono::seconds(1);
    batch->monotonic = now;
    // The NIC refreshes every 2 s: the moving counter changes at every other poll.
    testing::addSample(*batch, moving, double(poll / 2) * 0.5);
    if (withLate) testing::addSample(*batch, late, 7);
    snapshot.batches["ethtool_pfc"] = std::move(batch);
    ++snapshot.generation;
    history.ingest(snapshot);
  };
  int poll = 0;
  for (; poll < 30; ++poll) publish(poll, false);
  const watchdog::Tracked* first = history.find(watchdog::Fam::kPauseSeconds, "eth0", "3", "rx");
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(first->judged().refresh, 2 * kSecond) << "learned from the gaps between changes";
  publish(poll++, true);
  const watchdog::Tracked* second = history.find(watchdog::Fam::kPauseSeconds, "eth0", "4", "rx");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->judged().refresh, 2 * kSecond) << "the source's refresh, though it never moved";
}

TEST(PeakBuckets, ForgetsAfterTheWindow) {
  PeakBuckets p(60 * kSecond);
  p.add(100 * kSecond, 0.9);
  p.add(101 * kSecond, 0.2);
  EXPECT_FLOAT_EQ(p.peak(101 * kSecond), 0.9f);
  EXPECT_FLOAT_EQ(p.peak(155 * kSecond), 0.9f);
  EXPECT_FLOAT_EQ(p.peak(170 * kSecond), 0.0f);
}

// Memory: the history of a big node. Every series a rule reads at 1 s polls for 11 minutes.
TEST(Watchdog, MemoryPerTrackedSeriesIsBounded) {
  struct mallinfo2 before = mallinfo2();
  {
    TestNode n;
    const int kInterfaces = 16;
    for (int i = 0; i < kInterfaces; ++i) {
      std::string dev = "mlx5_" + std::to_string(i), iface = "eth" + std::to_string(i);
      healthyRoce(n, dev, iface);
      for (int p = 0; p < 8; ++p) {
        for (const char* kind : {"discards", "buffer", "congestion"}) {
          n.set("ethtool_pfc", "fabricmon_priority_discards_total",
                {{"interface", iface}, {"priority", std::to_string(p)}, {"kind", kind}}, 0);
        }
        n.set("ethtool_pfc", "fabricmon_priority_transmit_packets_total", {{"interface", iface}, {"priority", std::to_string(p)}}, 0);
        n.set("ethtool_pfc", "fabricmon_priority_receive_packets_total", {{"interface", iface}, {"priority", std::to_string(p)}}, 0);
        n.set("ethtool_pfc", "fabricmon_priority_ecn_marked_packets_total", {{"interface", iface}, {"priority", std::to_string(p)}}, 0);
        for (const char* dir : {"rx", "tx"}) {
          n.set("ethtool_pfc", "fabricmon_pfc_pause_seconds_total",
                {{"interface", iface}, {"priority", std::to_string(p)}, {"direction", dir}}, 0);
        }
      }
      // Families the watchdog does not read must cost nothing.
      for (int k = 0; k < 100; ++k) {
        n.set("ethtool_pfc", "fabricmon_ethtool_stat_total", {{"interface", iface}, {"stat", "s" + std::to_string(k)}}, k);
      }
    }
    struct mallinfo2 mid = mallinfo2();
    for (int t = 0; t < 660; ++t) {
      for (int i = 0; i < kInterfaces; ++i) flowing(n, "mlx5_" + std::to_string(i), "eth" + std::to_string(i));
      n.tick();
    }
    struct mallinfo2 after = mallinfo2();
    size_t watchdogBytes = after.uordblks - mid.uordblks;
    // Samples per interface the rules read: ~100 (8 prio x (3 discards + 2 packets + ECN + 2 pause) + config).
    size_t perInterface = watchdogBytes / kInterfaces;
    RecordProperty("watchdog_bytes", std::to_string(watchdogBytes));
    std::printf("watchdog heap after 11 min at 1 s: %zu bytes for %d interfaces (%zu per interface)\n", watchdogBytes,
                kInterfaces, perInterface);
    EXPECT_LT(watchdogBytes, 4u * 1024 * 1024);
  }
  (void)before;
}

}  // namespace
}  // namespace fabricmon::testing
