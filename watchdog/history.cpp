#include "watchdog/history.hpp"

#include <algorithm>

namespace fabricmon::watchdog {
namespace {

// A pause fraction above 1 is physically impossible; a little slack absorbs the gap between the
// batch timestamp and the moment the NIC latched its counters.
constexpr double kMaxPlausibleFraction = 1.05;

Nanos nanos(std::chrono::steady_clock::time_point tp) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
}

}  // namespace

// ---- CoarseRing ----

CoarseRing::CoarseRing(Nanos width, uint16_t capacity)
    : points_(new Point[capacity]), width_(width), capacity_(capacity) {}

void CoarseRing::push(Nanos t, double total) {
  if (size_ > 0 && t - at(size_ - 1).t < width_) return;
  if (size_ < capacity_) {
    points_[(head_ + size_) % capacity_] = Point{t, total};
    ++size_;
  } else {
    points_[head_] = Point{t, total};
    head_ = static_cast<uint16_t>((head_ + 1) % capacity_);
  }
}

void CoarseRing::reshape(Nanos width, uint16_t capacity) {
  std::unique_ptr<Point[]> next(new Point[capacity]);
  uint16_t keep = std::min(size_, capacity);
  for (uint16_t i = 0; i < keep; ++i) next[i] = at(static_cast<uint16_t>(size_ - keep + i));
  points_ = std::move(next);
  width_ = width;
  capacity_ = capacity;
  head_ = 0;
  size_ = keep;
}

const CoarseRing::Point* CoarseRing::baseFor(Nanos t) const {
  if (size_ == 0) return nullptr;
  for (uint16_t i = size_; i-- > 0;) {
    if (at(i).t <= t) return &at(i);
  }
  return &at(0);
}

// ---- PeakBuckets ----

void PeakBuckets::add(Nanos t, double value) {
  Nanos w = std::max<Nanos>(bucketWidth(), 1);
  Nanos start = t - (((t % w) + w) % w);
  Bucket& b = buckets_[static_cast<size_t>((start / w) % static_cast<Nanos>(kBuckets) + kBuckets) % kBuckets];
  if (b.start != start) b = Bucket{start, 0};
  b.max = std::max(b.max, static_cast<float>(value));
}

double PeakBuckets::peak(Nanos now) const {
  double best = 0;
  Nanos w = std::max<Nanos>(bucketWidth(), 1);
  for (const auto& b : buckets_) {
    if (b.start != kNever && b.start + w > now - window_ && b.start <= now) best = std::max(best, double(b.max));
  }
  return best;
}

void PeakBuckets::setWindow(Nanos window) {
  if (window == window_) return;
  window_ = window;
  buckets_ = {};
}

// ---- Tracked ----

Tracked::Window Tracked::over(Nanos window) const {
  Window w;
  if (!ring || samples < 2) return w;
  const auto* base = ring->baseFor(t - window);
  if (base == nullptr || base->t >= t) return w;
  w.increase = total - base->total;
  w.seconds = double(t - base->t) / kSecond;
  w.full = base->t <= t - window;
  return w;
}

// ---- History ----

void History::setPlan(const HistoryPlan& plan) {
  plan_ = plan;
  for (auto& [key, s] : series_) shape(s);
}

void History::shape(Tracked& s) const {
  size_t f = static_cast<size_t>(s.fam);
  Nanos window = plan_.longWindow[f];
  if (window <= 0) {
    s.ring.reset();
  } else {
    Nanos width = std::max<Nanos>(window / kCoarseSlots, 1);
    // +2: the base point of a full window sits one width before it, and the newest point is "now".
    uint16_t capacity = kCoarseSlots + 2;
    if (!s.ring) {
      s.ring = std::make_unique<CoarseRing>(width, capacity);
      if (s.samples > 0) s.ring->push(s.t, s.total);
    } else if (s.ring->width() != width) {
      s.ring->reshape(width, capacity);
    }
  }
  if (plan_.peak[f]) {
    if (!s.peak) s.peak = std::make_unique<PeakBuckets>(plan_.peakWindow);
    s.peak->setWindow(plan_.peakWindow);
  } else {
    s.peak.reset();
    s.peakSeries.reset();
  }
}

void History::buildKey(std::string& out, Fam fam, std::string_view a, std::string_view b, std::string_view c) {
  out.clear();
  out.push_back(static_cast<char>('A' + static_cast<int>(fam)));
  out.append(a);
  out.push_back('\x1f');
  out.append(b);
  out.push_back('\x1f');
  out.append(c);
}

bool History::ingest(const Snapshot& snapshot) {
  bool changed = false;
  for (auto& c : collectors_) c.present = false;
  std::vector<uint16_t> fresh;
  for (const auto& [name, batch] : snapshot.batches) {
    if (!batch || name == "watchdog") continue;
    auto it = std::find_if(collectors_.begin(), collectors_.end(), [&](const auto& c) { return c.name == name; });
    if (it == collectors_.end()) {
      collectors_.push_back(CollectorSeen{name, nullptr, 0, false});
      it = collectors_.end() - 1;
    }
    it->present = true;
    if (it->last == batch) continue;
    it->last = batch;
    ++it->epoch;
    auto index = static_cast<uint16_t>(it - collectors_.begin());
    ingestBatch(*batch, index, it->epoch);
    fresh.push_back(index);
    changed = true;
  }
  // A series its collector no longer reports (device vanished) or whose collector left the snapshot
  // (stale) is forgotten: no history is kept, and no rule can judge it.
  for (auto it = series_.begin(); it != series_.end();) {
    const auto& c = collectors_[it->second.collector];
    bool gone = !c.present ||
                (std::find(fresh.begin(), fresh.end(), it->second.collector) != fresh.end() &&
                 it->second.seenEpoch != c.epoch);
    if (gone) {
      it = series_.erase(it);
      indexDirty_ = true;
      changed = true;
    } else {
      ++it;
    }
  }
  for (auto& c : collectors_) {
    if (!c.present) c.last.reset();
  }
  if (indexDirty_) {
    for (auto& v : byFamily_) v.clear();
    for (auto& [key, s] : series_) byFamily_[static_cast<size_t>(s.fam)].push_back(&s);
    indexDirty_ = false;
  }
  return changed;
}

void History::ingestBatch(const Batch& batch, uint16_t collector, uint32_t epoch) {
  const Nanos t = nanos(batch.monotonic);
  for (const auto& sample : batch.samples) {
    if (!sample.series) continue;
    auto fam = inputFamilyByName(sample.series->family->name);
    if (!fam) continue;
    const auto& def = inputFamily(*fam);
    std::string_view l[3];
    for (size_t i = 0; i < 3; ++i) {
      if (!def.keyLabels[i].empty()) l[i] = sample.series->label(def.keyLabels[i]);
    }
    double saturatesAt = 0;
    if (!wanted(*fam, l[2], &saturatesAt)) continue;
    buildKey(scratch_, *fam, l[0], l[1], l[2]);
    auto [it, inserted] = series_.try_emplace(scratch_);
    Tracked& s = it->second;
    if (inserted) {
      s.fam = *fam;
      s.saturatesAt = saturatesAt;
      shape(s);
      indexDirty_ = true;
    }
    if (s.series != sample.series) s.series = sample.series;  // labels beyond the key may change
    s.collector = collector;
    s.seenEpoch = epoch;
    update(s, t, sample.value);
  }
}

void History::update(Tracked& s, Nanos t, double v) {
  if (s.samples > 0 && t <= s.t) return;  // not newer: a rate needs time to pass
  const auto& def = inputFamily(s.fam);
  if (s.samples == 0) {
    s.raw = v;
    s.total = s.prevTotal = 0;
    s.t = s.firstT = s.changedT = t;
    s.samples = 1;
    s.saturated = s.saturatesAt > 0 && v >= s.saturatesAt;
    if (s.ring) s.ring->push(t, 0);
    return;
  }
  s.prevT = s.t;
  s.prevTotal = s.total;
  if (def.counter) {
    double delta;
    if (v < s.raw) {
      delta = v;  // a counter that goes down was reset: it counted up from 0 since
    } else if (s.saturatesAt > 0 && v >= s.saturatesAt && s.raw >= s.saturatesAt) {
      delta = 0;  // stuck at its maximum: it saturates, it does not wrap; the true rate is unknown
    } else {
      delta = v - s.raw;
    }
    s.saturated = s.saturatesAt > 0 && v >= s.saturatesAt;
    s.total += delta;
    if (delta > 0) s.lastIncreaseT = t;
  } else if (v != s.raw) {
    s.changedT = t;
  }
  s.raw = v;
  s.t = t;
  ++s.samples;
  if (s.ring) s.ring->push(t, s.total);
  if (s.peak) {
    double rate = (s.total - s.prevTotal) / (double(t - s.prevT) / kSecond);
    if (s.fam == Fam::kPauseSeconds) {
      if (rate > kMaxPlausibleFraction) return;
      rate = std::min(rate, 1.0);
    }
    s.peak->add(t, rate);
  }
}

std::span<Tracked* const> History::family(Fam fam) const { return byFamily_[static_cast<size_t>(fam)]; }

const Tracked* History::find(Fam fam, std::string_view a, std::string_view b, std::string_view c) const {
  buildKey(scratch_, fam, a, b, c);
  auto it = series_.find(scratch_);
  return it == series_.end() ? nullptr : &it->second;
}

}  // namespace fabricmon::watchdog
