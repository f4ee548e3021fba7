#pragma once
// Bounded per-series history for the watchdog. Every tracked series keeps its latest two samples and
// a reset-adjusted running total; series whose rules need long windows also keep a fixed ring of
// coarse points (one per window/60), and rate-peak series a fixed ring of per-bucket maxima.
// Nothing grows with time: memory is proportional to the number of series the rules read.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/sample.hpp"
#include "model/store.hpp"
#include "watchdog/input_families.hpp"

namespace fabricmon::watchdog {

using Nanos = int64_t;  ///< steady_clock time since its epoch, in ns
inline constexpr Nanos kNever = INT64_MIN;
inline constexpr Nanos kSecond = 1'000'000'000;

/// A fixed ring of (time, running total) points spaced at least `width` apart.
class CoarseRing {
 public:
  struct Point {
    Nanos t;
    double total;
  };
  CoarseRing(Nanos width, uint16_t capacity);
  void push(Nanos t, double total);
  /// Keeps the newest points that fit the new geometry (SIGHUP with a different window).
  void reshape(Nanos width, uint16_t capacity);
  Nanos width() const { return width_; }
  /// The newest point at or before `t`; when there is none, the oldest point (partial coverage).
  const Point* baseFor(Nanos t) const;

 private:
  const Point& at(uint16_t i) const { return points_[(head_ + i) % capacity_]; }  // 0 = oldest
  std::unique_ptr<Point[]> points_;
  Nanos width_;
  uint16_t capacity_;
  uint16_t head_ = 0;
  uint16_t size_ = 0;
};

/// The largest value seen per bucket over a sliding window (bucket = window / kBuckets).
class PeakBuckets {
 public:
  static constexpr size_t kBuckets = 12;
  explicit PeakBuckets(Nanos window) : window_(window) {}
  void add(Nanos t, double value);
  /// The largest value recorded in the buckets that overlap (now - window, now].
  double peak(Nanos now) const;
  void setWindow(Nanos window);

 private:
  Nanos bucketWidth() const { return window_ / static_cast<Nanos>(kBuckets); }
  struct Bucket {
    Nanos start = kNever;
    float max = 0;
  };
  std::array<Bucket, kBuckets> buckets_{};
  Nanos window_;
};

/// One series the rules read.
struct Tracked {
  SeriesPtr series;
  Fam fam;
  bool saturated = false;      ///< a narrow PMA counter sitting at its maximum (its rate is unknown)
  uint16_t collector = 0;      ///< index into History's collector names
  uint32_t seenEpoch = 0;
  uint32_t samples = 0;
  double saturatesAt = 0;      ///< 0 = not a narrow counter
  double raw = 0;              ///< latest value as read
  double total = 0;            ///< counters: sum of reset-adjusted deltas since first seen
  double prevTotal = 0;
  Nanos t = kNever;            ///< latest sample time
  Nanos prevT = kNever;
  Nanos firstT = kNever;
  Nanos lastIncreaseT = kNever;  ///< counters: time of the latest sample that carried an increase
  Nanos changedT = kNever;       ///< gauges: time the value last changed (first sample counts)
  std::unique_ptr<CoarseRing> ring;
  std::unique_ptr<PeakBuckets> peak;
  SeriesPtr peakSeries;        ///< the output gauge, built once

  std::string_view label(std::string_view name) const { return series->label(name); }
  /// Increase over the latest poll interval (0 before two samples).
  double lastDelta() const { return samples >= 2 ? total - prevTotal : 0; }
  /// Seconds of the latest poll interval (0 before two samples).
  double lastInterval() const { return samples >= 2 ? double(t - prevT) / kSecond : 0; }
  /// True when a counter increased within `window` of its latest sample (not counting the first sample).
  bool increasedWithin(Nanos window) const { return lastIncreaseT != kNever && t - lastIncreaseT < window; }

  struct Window {
    double increase = 0;
    double seconds = 0;  ///< span actually covered
    bool full = false;   ///< the history covers the whole window
  };
  /// Increase over the `window` ending at the latest sample (needs a ring).
  Window over(Nanos window) const;
};

/// Per-family geometry: how long a window any enabled rule reads (0 = latest values only) and
/// whether a rate peak is kept.
struct HistoryPlan {
  std::array<Nanos, kFamCount> longWindow{};
  std::array<bool, kFamCount> peak{};
  Nanos peakWindow = 60 * kSecond;
};

class History {
 public:
  static constexpr uint16_t kCoarseSlots = 60;

  void setPlan(const HistoryPlan& plan);
  /// Ingests the batches of `snapshot` not seen yet; frees series whose collector published a batch
  /// without them, or whose collector left the snapshot. Returns true when anything changed.
  bool ingest(const Snapshot& snapshot);

  /// Series of one family, in no particular order.
  std::span<Tracked* const> family(Fam fam) const;
  /// A series by its key-label values (in InputFamily::keyLabels order).
  const Tracked* find(Fam fam, std::string_view a, std::string_view b = {}, std::string_view c = {}) const;
  size_t size() const { return series_.size(); }

 private:
  void ingestBatch(const Batch& batch, uint16_t collector, uint32_t epoch);
  void update(Tracked& s, Nanos t, double v);
  void shape(Tracked& s) const;
  static void buildKey(std::string& out, Fam fam, std::string_view a, std::string_view b, std::string_view c);

  HistoryPlan plan_;
  std::unordered_map<std::string, Tracked> series_;
  std::array<std::vector<Tracked*>, kFamCount> byFamily_;
  bool indexDirty_ = false;
  struct CollectorSeen {
    std::string name;
    BatchPtr last;
    uint32_t epoch = 0;
    bool present = false;
  };
  std::vector<CollectorSeen> collectors_;
  mutable std::string scratch_;
};

}  // namespace fabricmon::watchdog
