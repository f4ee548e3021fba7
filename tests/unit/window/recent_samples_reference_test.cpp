// The compact recent-sample window (window/recent_samples.cpp) against a plain reference store
// over a recorded run: the answers of /api/v1/window, the status page and triage must be the same
// numbers, bit for bit, for every window up to the store's length. The reference is the store as it
// was before it was compact (a vector of {steady ns, value} per series, nothing encoded, nothing
// dropped for age), with the same summary arithmetic.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "model/families/ethtool.hpp"
#include "model/families/netdev.hpp"
#include "model/families/pma.hpp"
#include "window/recent_samples.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon {
namespace {

using namespace std::chrono_literals;

class PlainWindow {
 public:
  explicit PlainWindow(std::chrono::nanoseconds length) : length_(length.count()) {}
  void ingest(const Snapshot& snapshot) {
    for (const auto& [collector, batch] : snapshot.batches) {
      auto& last = lastBatch_[collector];
      if (last == batch) continue;
      last = batch;
      const uint32_t epoch = ++epochs_[collector];
      const int64_t t = batch->monotonic.time_since_epoch().count();
      wallOffsetNs_ = std::chrono::duration_cast<std::chrono::nanoseconds>(batch->wall.time_since_epoch()).count() - t;
      for (size_t i = 0; i < batch->samples.size(); ++i) {
        const Sample& s = batch->samples[i];
        if (!isKept(s.series->family)) continue;
        auto it = rings_.find(s.series->id);
        if (it == rings_.end()) {
          it = rings_.emplace(s.series->id, Ring{}).first;
          it->second.series = batch->seriesAt(i);
          it->second.collector = collector;
          it->second.counter = s.series->family->type == MetricType::kCounter;
        }
        Ring& ring = it->second;
        if (!ring.points.empty()) {
          const double gap = double(t - ring.points.back().t) / 1e9;
          if (gap > 0) pollSeconds_ = pollSeconds_ == 0 ? gap : std::min(pollSeconds_ * 0.9 + gap * 0.1, gap * 10);
        }
        ring.points.push_back({t, s.value});
        ring.seenEpoch = epoch;
      }
      // A series its collector could not read keeps its place, with no value, until it has had no
      // value for longer than the length.
      for (const SeriesPtr& series : batch->unread) {
        auto it = rings_.find(series->id);
        if (it == rings_.end() || it->second.collector != collector || it->second.seenEpoch == epoch) continue;
        int64_t lastValue = 0;
        for (const Raw& p : it->second.points) {
          if (!std::isnan(p.v)) lastValue = p.t;
        }
        if (t - lastValue > length_) continue;
        it->second.points.push_back({t, std::numeric_limits<double>::quiet_NaN()});
        it->second.seenEpoch = epoch;
      }
    }
    std::erase_if(rings_, [&](const auto& kv) {
      const Ring& r = kv.second;
      return !snapshot.batches.contains(r.collector) || r.seenEpoch != epochs_[r.collector];
    });
    std::erase_if(lastBatch_, [&](const auto& kv) { return !snapshot.batches.contains(kv.first); });
  }

  std::vector<RecentSamples::SeriesWindow> window(const RecentSamples::Query& q) const {
    std::vector<RecentSamples::SeriesWindow> out;
    const int64_t now = q.at->time_since_epoch().count();
    const int64_t from = now - int64_t(q.window.count()) * 1'000'000'000;
    const double offset = double(wallOffsetNs_);
    for (const auto& [key, ring] : rings_) {
      const auto& all = ring.points;
      if (all.empty() || all.back().t < from) continue;
      // From the newest point at or before the start, the values: a run that could not read the
      // series has none, and a window whose base is such a run starts at the value after it.
      size_t start = 0;
      while (start + 1 < all.size() && all[start + 1].t <= from) ++start;
      std::vector<Raw> pts;
      for (size_t i = start; i < all.size(); ++i) {
        if (!std::isnan(all[i].v)) pts.push_back(all[i]);
      }
      if (pts.empty()) continue;
      size_t first = 0;
      while (first + 1 < pts.size() && pts[first + 1].t <= from) ++first;
      RecentSamples::SeriesWindow w;
      w.series = ring.series;
      w.counter = ring.counter;
      const Raw& base = pts[first];
      w.last = pts.back().v;
      w.min = w.max = base.v;
      w.seconds = double(pts.back().t - base.t) / 1e9;
      std::vector<double> gaps;
      double shownRate = 0;
      int64_t lastChange = base.t;
      double sinceChange = 0;
      for (size_t i = first; i < pts.size(); ++i) {
        const Raw& p = pts[i];
        if (p.t >= from) ++w.samples;
        w.min = std::min(w.min, p.v);
        w.max = std::max(w.max, p.v);
        if (i == first) {
          if (q.points && !ring.counter) w.points.push_back({(double(p.t) + offset) / 1e9, p.v});
          continue;
        }
        const Raw& prev = pts[i - 1];
        if (!ring.counter) {
          if (q.points) w.points.push_back({(double(p.t) + offset) / 1e9, p.v});
          continue;
        }
        const double delta = p.v >= prev.v ? p.v - prev.v : p.v;
        w.increase += delta;
        sinceChange += delta;
        if (p.v != prev.v) {
          const double span = double(p.t - lastChange) / 1e9;
          if (span > 0) {
            w.peakRate = std::max(w.peakRate, sinceChange / span);
            if (lastChange != base.t || i > first + 1) gaps.push_back(span);
            shownRate = sinceChange / span;
          }
          lastChange = p.t;
          sinceChange = 0;
        } else if (double(p.t - lastChange) / 1e9 > 3.0) {
          shownRate = 0;
        }
        if (q.points) w.points.push_back({(double(p.t) + offset) / 1e9, shownRate});
      }
      if (ring.counter) {
        w.rate = w.seconds > 0 ? w.increase / w.seconds : 0;
        if (!gaps.empty()) {
          std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
          w.refreshSeconds = gaps[gaps.size() / 2];
        }
      }
      out.push_back(std::move(w));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.series->key < b.series->key; });
    return out;
  }

  double pollSeconds() const { return pollSeconds_; }
  double coveredSeconds() const {
    double covered = 0;
    for (const auto& [key, ring] : rings_) {
      if (ring.points.size() >= 2) covered = std::max(covered, double(ring.points.back().t - ring.points.front().t) / 1e9);
    }
    return covered;
  }
  size_t seriesCount() const { return rings_.size(); }

 private:
  static bool isKept(const FamilyDef* f) {
    const auto kept = RecentSamples::keptFamilies();
    return std::find(kept.begin(), kept.end(), f) != kept.end();
  }
  struct Raw {
    int64_t t;
    double v;
  };
  struct Ring {
    SeriesPtr series;
    std::string collector;
    bool counter = true;
    std::vector<Raw> points;
    uint32_t seenEpoch = 0;
  };
  int64_t length_;
  std::map<uint64_t, Ring> rings_;
  std::map<std::string, BatchPtr> lastBatch_;
  std::map<std::string, uint32_t> epochs_;
  int64_t wallOffsetNs_ = 0;
  double pollSeconds_ = 0;
};

void expectSame(const std::vector<RecentSamples::SeriesWindow>& got,
                const std::vector<RecentSamples::SeriesWindow>& want, const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    const auto& g = got[i];
    const auto& w = want[i];
    const std::string at = where + " " + w.series->key;
    ASSERT_EQ(g.series, w.series) << at;
    EXPECT_EQ(g.counter, w.counter) << at;
    EXPECT_EQ(g.samples, w.samples) << at;
    // Exact: both sides do the same arithmetic on the same doubles in the same order.
    EXPECT_EQ(g.seconds, w.seconds) << at;
    EXPECT_EQ(g.increase, w.increase) << at;
    EXPECT_EQ(g.rate, w.rate) << at;
    EXPECT_EQ(g.peakRate, w.peakRate) << at;
    EXPECT_EQ(g.refreshSeconds, w.refreshSeconds) << at;
    EXPECT_EQ(g.last, w.last) << at;
    EXPECT_EQ(g.min, w.min) << at;
    EXPECT_EQ(g.max, w.max) << at;
    ASSERT_EQ(g.points.size(), w.points.size()) << at;
    for (size_t p = 0; p < g.points.size(); ++p) {
      EXPECT_EQ(g.points[p].t, w.points[p].t) << at << " point " << p;
      EXPECT_EQ(g.points[p].v, w.points[p].v) << at << " point " << p;
    }
  }
}

// A recorded run, made by a seeded generator: a fast collector every 250 ms (with scheduler jitter)
// and a slow one every second, counters that move by irregular steps, one that latches every fourth
// poll, byte counters in the 10^12 range, a counter reset, a stall of the fast collector (a gap in
// sampling), a series that misses one batch (dropped, then new), series their collector could not
// read for 40 s (kept, with no values there) and for longer than the length (let go), the slow collector leaving the
// snapshot for a while, and gauges that flip.
class RecordedRun {
 public:
  explicit RecordedRun(uint32_t seed) : rng_(seed) {
    for (int p = 0; p < 8; ++p) {
      const std::string prio = std::to_string(p);
      pauseRx_.push_back(makeSeries(families::ethtool::kPfcPauseRx, {{"interface", "eth0"}, {"priority", prio}}));
      prioTx_.push_back(makeSeries(families::ethtool::kPrioTxBytes, {{"interface", "eth0"}, {"priority", prio}}));
    }
    up0_ = makeSeries(families::netdev::kUp, {{"interface", "eth0"}});
    up1_ = makeSeries(families::netdev::kUp, {{"interface", "eth1"}});
    pause1_ = makeSeries(families::ethtool::kPfcPauseRx, {{"interface", "eth1"}, {"priority", "3"}});
    notKept_ = makeSeries(families::ethtool::kPrioRxPackets, {{"interface", "eth0"}, {"priority", "3"}});
    txBytes_ = makeSeries(families::pma::kTransmitBytes, {{"device", "mlx5_0"}, {"port", "1"}});
    symbolErrors_ = makeSeries(families::pma::kSymbolErrors, {{"device", "mlx5_0"}, {"port", "1"}});
    pauseValues_.assign(8, 0);
    txValues_.assign(8, 1.0e12);
  }

  /// Advances to the next collector run; false after `seconds` of run.
  bool step(Snapshot& snapshot, double seconds) {
    const bool fast = nextFast_ <= nextSlow_;
    const double t = fast ? nextFast_ : nextSlow_;
    if (t > seconds) return false;
    now_ = t;
    std::uniform_real_distribution<double> jitter(0, 0.004);
    if (fast) {
      nextFast_ = t + 0.25 + jitter(rng_);
      if (t > 400 && t < 412) return true;  // stalled: no batch, the snapshot keeps the last one
      snapshot.batches["fast"] = fastBatch(t);
    } else {
      nextSlow_ = t + 1.0 + jitter(rng_);
      if (t > 600 && t < 606) {
        snapshot.batches.erase("slow");  // stale: left the snapshot
      } else {
        snapshot.batches["slow"] = slowBatch(t);
      }
    }
    return true;
  }
  double now() const { return now_; }
  static std::chrono::steady_clock::time_point steadyAt(double t) {
    return kSteady0 + std::chrono::nanoseconds(int64_t(std::llround(t * 1e9)));
  }

 private:
  static constexpr std::chrono::steady_clock::time_point kSteady0{std::chrono::hours(1000)};
  std::shared_ptr<Batch> batchAt(const std::string& collector, double t) {
    auto b = std::make_shared<Batch>();
    b->collector = collector;
    b->monotonic = steadyAt(t);
    b->wall = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000)) +
              std::chrono::nanoseconds(int64_t(std::llround(t * 1e9)));
    return b;
  }
  BatchPtr fastBatch(double t) {
    auto b = batchAt("fast", t);
    ++fastRuns_;
    std::uniform_int_distribution<int> frames(0, 3000);
    std::normal_distribution<double> bytes(3.1e9, 4e8);
    for (int p = 0; p < 8; ++p) {
      if (p == 3) {
        if (fastRuns_ % 4 == 0) pauseValues_[p] += frames(rng_);  // latched once a second
      } else if (p == 5 && t > 300) {
        pauseValues_[p] += frames(rng_);
      }
      if (p == 3 || p == 0) txValues_[p] += std::floor(std::max(0.0, bytes(rng_)) / 4);
      if (p == 3 && t > 200 && t < 200.3) txValues_[p] = 12345;  // driver reload: a counter reset
      testing::addSample(*b, pauseRx_[size_t(p)], pauseValues_[size_t(p)]);
      testing::addSample(*b, prioTx_[size_t(p)], txValues_[size_t(p)]);
    }
    testing::addSample(*b, up0_, (t > 250 && t < 253) ? 0.0 : 1.0);
    testing::addSample(*b, notKept_, t);
    // eth1 misses one run at 500 s (gone from the batch): its series are dropped, then start anew.
    // From 440 to 480 s its reads fail: its series are unread (Batch::unread) and kept, across
    // chunk boundaries and under windows that start inside the stretch. From 150 to 290 s eth1's
    // pause counter alone fails, longer than the length: it is let go, then starts anew.
    const bool pauseUnread = t > 150 && t < 290;
    if (t > 440 && t < 480) {
      b->unread.push_back(up1_);
      b->unread.push_back(pause1_);
    } else if (pauseUnread) {
      testing::addSample(*b, up1_, 1.0);
      b->unread.push_back(pause1_);
    } else if (!(t > 500 && t < 500.25)) {
      testing::addSample(*b, up1_, 1.0);
      testing::addSample(*b, pause1_, std::floor(t * 10));
    }
    return b;
  }
  BatchPtr slowBatch(double t) {
    auto b = batchAt("slow", t);
    std::normal_distribution<double> bytes(1.2e10, 1e9);
    txBytesValue_ += 4 * std::floor(std::max(0.0, bytes(rng_)) / 4);
    if (t > 100 && std::fmod(t, 37) < 1) symbolErrorsValue_ += 1;
    testing::addSample(*b, txBytes_, txBytesValue_);
    testing::addSample(*b, symbolErrors_, symbolErrorsValue_);
    return b;
  }

  std::mt19937 rng_;
  double now_ = 0, nextFast_ = 0, nextSlow_ = 0.1;
  uint64_t fastRuns_ = 0;
  std::vector<SeriesPtr> pauseRx_, prioTx_;
  SeriesPtr up0_, up1_, pause1_, notKept_, txBytes_, symbolErrors_;
  std::vector<double> pauseValues_, txValues_;
  double txBytesValue_ = 5.0e13, symbolErrorsValue_ = 0;
};

TEST(RecentSamplesReference, TheCompactStoreAnswersAsThePlainOneOverARecordedRun) {
  constexpr auto kLength = 120s;
  RecentSamples compact(kLength);
  PlainWindow plain(kLength);
  RecordedRun run(20261125);
  Snapshot snapshot;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> after(0, 0.3);
  double nextQuery = 3;
  size_t queries = 0;
  while (run.step(snapshot, 720)) {
    compact.ingest(snapshot);
    plain.ingest(snapshot);
    ASSERT_EQ(compact.seriesCount(), plain.seriesCount()) << "at " << run.now();
    if (run.now() < nextQuery) continue;
    nextQuery += 6.7;
    const auto at = RecordedRun::steadyAt(run.now() + after(rng));
    EXPECT_EQ(compact.pollSeconds(), plain.pollSeconds());
    // Up to the length, including the window's edge (a window exactly as long as the store).
    for (const auto seconds : {1s, 5s, 30s, 60s, 119s, 120s}) {
      RecentSamples::Query q;
      q.window = seconds;
      q.points = true;
      q.at = at;
      const std::string where = "at " + std::to_string(run.now()) + " s, window " + std::to_string(seconds.count()) + " s";
      expectSame(compact.window(q), plain.window(q), where);
      EXPECT_EQ(std::min(compact.coveredSeconds(), double(seconds.count())),
                std::min(plain.coveredSeconds(), double(seconds.count())))
          << where;
      ++queries;
    }
    // One family, one port: the filters select the same series as the reference, filtered by hand.
    RecentSamples::Query q;
    q.at = at;
    q.window = 60s;
    q.family = std::string(families::ethtool::kPrioTxBytes.name);
    q.labels = {{"priority", "3"}};
    auto want = plain.window(q);
    std::erase_if(want, [](const auto& w) {
      return w.series->family != &families::ethtool::kPrioTxBytes || w.series->label("priority") != "3";
    });
    expectSame(compact.window(q), want, "filtered at " + std::to_string(run.now()));
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(queries, 500u);
  // Memory stays bounded by the length: the fast collector's ~4 samples/s per series for at most the
  // length plus one chunk, not the 720 s of the run.
  const auto usage = compact.usage();
  EXPECT_GT(usage.samples, 0u);
  EXPECT_LE(usage.samples, usage.series * (120 * 4 + RecentSamples::kChunkSamples + 10));
  EXPECT_GE(compact.coveredSeconds(), 120.0);
  RecordProperty("bytes_per_sample", std::to_string(double(usage.bytes) / double(usage.samples)));
}

}  // namespace
}  // namespace fabricmon
