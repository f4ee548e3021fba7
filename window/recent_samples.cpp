#include "window/recent_samples.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "model/families/dcb.hpp"
#include "model/families/dcqcn.hpp"
#include "model/families/ethtool.hpp"
#include "model/families/fec.hpp"
#include "model/families/mad.hpp"
#include "model/families/netdev.hpp"
#include "model/families/pma.hpp"
#include "model/families/port.hpp"
#include "model/families/roce.hpp"
#include "model/families/transceiver.hpp"

namespace fabricmon {
namespace {

// What triage walks (docs/runbook.md, "Triage") and the status page charts, by the families'
// definitions (model/families/).
constexpr std::array<const FamilyDef*, 50> kKept{
    // step 1: PFC pause and storm events
    &families::ethtool::kPfcPauseSeconds,
    &families::ethtool::kPfcPauseRx,
    &families::ethtool::kPfcPauseTx,
    &families::ethtool::kGlobalPauseSeconds,
    &families::ethtool::kStormWarning,
    &families::ethtool::kStormError,
    // step 2: ECN and CNP
    &families::roce::kEcnMarked,
    &families::roce::kCnpSent,
    &families::roce::kCnpHandled,
    &families::roce::kCnpIgnored,
    &families::ethtool::kPrioEcnMarked,
    // step 3: configuration
    &families::dcqcn::kNpEnabled,
    &families::dcqcn::kRpEnabled,
    &families::dcb::kPfcEnabled,
    &families::dcb::kTrustDscp,
    // step 4: link errors, flaps, degraded ports
    &families::pma::kSymbolErrors,
    &families::pma::kLinkErrorRecovery,
    &families::pma::kLinkDowned,
    &families::pma::kReceiveErrors,
    // the physical layer: pre-FEC bit errors over bits received, post-FEC (uncorrectable) codewords,
    // and the optics' received power (the status page's charts)
    &families::ethtool::kPhyCorrectedBits,
    &families::ethtool::kPhyReceivedBytes,
    &families::fec::kCorrectedBlocks,
    &families::fec::kUncorrectableBlocks,
    // both ends of an InfiniBand link (peer_port over MADs; their bits are the port's rate)
    &families::mad::kFecCorrectedSymbols,
    &families::mad::kPeerFecCorrectedSymbols,
    &families::mad::kFecCorrectedBlocks,
    &families::mad::kPeerFecCorrectedBlocks,
    &families::mad::kFecUncorrectableBlocks,
    &families::mad::kPeerFecUncorrectableBlocks,
    &families::transceiver::kRxPower,
    &families::transceiver::kRxPowerThreshold,
    &families::transceiver::kTemperature,
    &families::ethtool::kPhySymbol,
    &families::ethtool::kPhyCrc,
    &families::ethtool::kPhyPcsSymbol,
    &families::ethtool::kPhyLinkDown,
    &families::netdev::kCarrierChanges,
    &families::netdev::kUp,
    &families::port::kPortState,
    &families::port::kPortRate,
    // step 5: RoCE loss
    &families::roce::kOutOfSequence,
    &families::roce::kPacketSeqErr,
    &families::roce::kLocalAckTimeout,
    &families::ethtool::kPrioDiscards,
    &families::pma::kTransmitDiscards,
    // step 6: InfiniBand congestion
    &families::pma::kTransmitWait,
    // throughput, for context
    &families::pma::kTransmitBytes,
    &families::pma::kReceiveBytes,
    &families::ethtool::kPrioTxBytes,
    &families::ethtool::kPrioRxBytes,
};

const FamilyDef kWindowBytes{
    "fabricmon_window_bytes",
    "Memory held by the recent-sample window behind /api/v1/window and the status page: encoded "
    "chunks, their headers and the series index (0 when window.enabled is false).",
    MetricType::kGauge, "bytes", ""};
const FamilyDef kWindowSamples{"fabricmon_window_samples",
                               "Samples held by the recent-sample window, over all its series.",
                               MetricType::kGauge, "samples", ""};
const FamilyDef* const kWindowFamilies[] = {&kWindowBytes, &kWindowSamples};

// A counter standing still this long has a zero rate, whatever its NIC's refresh period (the
// slowest seen, bnxt_en's firmware, latches once a second).
constexpr double kStill = 3.0;

}  // namespace

std::span<const FamilyDef* const> RecentSamples::keptFamilies() { return kKept; }

RecentSamples::Stored* RecentSamples::notKept() {
  static Stored sentinel;
  return &sentinel;
}

bool RecentSamples::kept(const FamilyDef* family) {
  return std::find(kKept.begin(), kKept.end(), family) != kKept.end();
}

RecentSamples::RecentSamples(std::chrono::nanoseconds length) : length_(length) {}

std::span<const FamilyDef* const> RecentSamples::families() { return kWindowFamilies; }

BatchPtr RecentSamples::usageBatch(const RecentSamples* store, std::chrono::steady_clock::time_point now) {
  static const SeriesPtr bytes = makeSeries(kWindowBytes, {});
  static const SeriesPtr samples = makeSeries(kWindowSamples, {});
  Usage u;
  if (store) {
    std::lock_guard lock(store->usageMutex_);
    if (store->usageAt_ == std::chrono::steady_clock::time_point() || now - store->usageAt_ >= std::chrono::seconds(5)) {
      store->usage_ = store->usage();
      store->usageAt_ = now;
    }
    u = store->usage_;
  }
  auto b = std::make_shared<Batch>();
  b->collector = "window";
  b->monotonic = now;
  b->wall = std::chrono::system_clock::now();
  SampleWriter out(*b);
  out.add(bytes, double(u.bytes));
  out.add(samples, double(u.samples));
  out.finish();
  return b;
}

void RecentSamples::ingest(const Snapshot& snapshot) {
  std::lock_guard lock(mutex_);
  covered_.reset();
  for (const auto& [collector, batch] : snapshot.batches) {
    auto& slot = timelines_[collector];
    if (!slot) slot = std::make_unique<Timeline>();
    Timeline& tl = *slot;
    if (tl.lastBatch == batch) continue;
    const BatchPtr previous = std::exchange(tl.lastBatch, batch);
    const uint32_t epoch = ++tl.epoch;
    tl.seen = 0;
    const int64_t t = batch->monotonic.time_since_epoch().count();
    wallOffsetNs_ = std::chrono::duration_cast<std::chrono::nanoseconds>(batch->wall.time_since_epoch()).count() -
                    std::chrono::duration_cast<std::chrono::nanoseconds>(batch->monotonic.time_since_epoch()).count();
    const bool hadBatch = !tl.chunks.empty();
    const int64_t prevT = tl.last;

    // The batch's time, once for all its series. A chunk is cut at kChunkSamples batches or a
    // quarter of the length, so a slow collector's chunks still leave the window in steps.
    if (tl.chunks.empty() || tl.chunks.back().count >= kChunkSamples ||
        t - tl.chunks.back().first >= length_.count() / 4) {
      if (!tl.chunks.empty()) tl.chunks.back().bits.shrink();
      if (tl.chunks.empty()) tl.firstChunk = 0;
      tl.chunks.emplace_back().first = t;
    }
    TimeChunk& tc = tl.chunks.back();
    dodAppend(tc.bits, tl.state, t, tc.count);
    ++tc.count;
    tl.last = t;
    const uint64_t current = tl.current();
    // Chunks whose successor starts at or before the window's start have left it: the successor
    // then holds the base (the newest sample at or before the start).
    const int64_t cutoff = t - length_.count();
    uint64_t keepFrom = tl.firstChunk;
    while (keepFrom < current && tl.chunks[keepFrom + 1 - tl.firstChunk].first <= cutoff) ++keepFrom;

    const size_t previousCount = previous != nullptr ? previous->samples.size() : 0;
    tl.byPosition.resize(batch->samples.size(), nullptr);
    for (size_t i = 0; i < batch->samples.size(); ++i) {
      const Sample& sample = batch->samples[i];
      Stored*& cached = tl.byPosition[i];
      if (i >= previousCount || previous->samples[i].series != sample.series) cached = nullptr;
      if (cached == notKept()) continue;
      bool inserted = false;
      if (cached == nullptr) {
        if (!kept(sample.series->family)) {
          cached = notKept();
          continue;
        }
        auto it = series_.try_emplace(sample.series->id);
        inserted = it.second;
        cached = &it.first->second;
      }
      Stored& s = *cached;
      if (inserted) {
        s.series = batch->seriesAt(i);
        s.timeline = &tl;
        s.counter = sample.series->family->type == MetricType::kCounter;
        s.firstChunk = current;
        for (const auto& [name, value] : sample.series->labels()) s.labelBits |= labelBits(name, value);
        ++tl.series;
      } else if (s.timeline != &tl) {
        cached = nullptr;  // another collector's series: looked up again while that one holds it
        continue;
      } else if (s.seenEpoch == epoch) {
        continue;  // the same series twice in one batch
      }
      if (!inserted && hadBatch) {
        // Per series sample, as before the store was compact (the typical gap between samples).
        const double gap = double(t - prevT) / 1e9;
        if (gap > 0) pollSeconds_ = pollSeconds_ == 0 ? gap : std::min(pollSeconds_ * 0.9 + gap * 0.1, gap * 10);
      }
      append(s, tl, epoch, keepFrom, sample.value);
    }
    // A series its collector could not read this run is not gone (docs/architecture.md, "An
    // unread series is not a vanished one"): it keeps its place with kUnread, which no answer
    // counts, so its window still reaches back past the failed read. One without a value for
    // longer than the length has nothing left to answer with, and leaves as a vanished one does.
    for (const SeriesPtr& series : batch->unread) {
      if (!series) continue;
      const auto it = series_.find(series->id);
      if (it == series_.end()) continue;
      Stored& s = it->second;
      if (s.timeline != &tl || s.seenEpoch == epoch || t - s.lastValueT > length_.count()) continue;
      append(s, tl, epoch, keepFrom, kUnread);
    }
    if (keepFrom > tl.firstChunk) {
      tl.chunks.erase(tl.chunks.begin(), tl.chunks.begin() + ptrdiff_t(keepFrom - tl.firstChunk));
      tl.firstChunk = keepFrom;
    }
  }
  // A series its collector published a batch without (a vanished device), or whose collector left
  // the snapshot, is dropped, as /metrics drops it.
  // The sweep walks every series: only when some collector left or a batch lacked a series.
  bool sweep = false;
  for (auto& [name, tl] : timelines_) {
    tl->alive = snapshot.batches.contains(name);
    sweep = sweep || !tl->alive || tl->seen != tl->series;
  }
  if (sweep) {
    std::erase_if(series_, [&](const auto& kv) {
      const Stored& s = kv.second;
      const bool gone = !s.timeline->alive || s.seenEpoch != s.timeline->epoch;
      if (gone) {
        samples_ -= s.samples;
        --s.timeline->series;
      }
      return gone;
    });
  }
  std::erase_if(timelines_, [](const auto& kv) { return !kv.second->alive; });
}

void RecentSamples::append(Stored& s, Timeline& tl, uint32_t epoch, uint64_t keepFrom, double value) {
  const uint64_t current = tl.current();
  // A series is in every batch of its collector since it appeared, with a value or as kUnread (it
  // is dropped the first time it is neither), so its chunks are contiguous and its last one is
  // current or the one before.
  bool first = false;
  if (s.chunks.empty() || s.firstChunk + s.chunks.size() - 1 < current) {
    if (!s.chunks.empty()) s.chunks.back().bits.shrink();
    if (s.chunks.empty()) {
      s.firstChunk = current;
      s.firstOffset = tl.chunks.back().count - 1;
    }
    s.chunks.emplace_back();
    first = true;
  }
  xorAppend(s.chunks.back().bits, s.state, value, first);
  if (!std::isnan(value)) s.lastValueT = tl.last;
  ++s.samples;
  ++samples_;
  s.seenEpoch = epoch;
  ++tl.seen;
  size_t drop = 0;
  while (s.firstChunk + drop < keepFrom && drop + 1 < s.chunks.size()) {
    const size_t n = tl.chunks[s.firstChunk + drop - tl.firstChunk].count - (drop == 0 ? s.firstOffset : 0);
    s.samples -= n;
    samples_ -= n;
    ++drop;
  }
  if (drop > 0) {
    s.chunks.erase(s.chunks.begin(), s.chunks.begin() + ptrdiff_t(drop));
    s.firstChunk += drop;
    s.firstOffset = 0;
  }
}

std::vector<std::vector<int64_t>> RecentSamples::decodeTimes(const Timeline& tl) const {
  std::vector<std::vector<int64_t>> out(tl.chunks.size());
  for (size_t k = 0; k < tl.chunks.size(); ++k) {
    const TimeChunk& c = tl.chunks[k];
    BitReader in(c.bits);
    DodState st;
    out[k].reserve(c.count);
    for (uint32_t i = 0; i < c.count; ++i) out[k].push_back(dodNext(in, st, i));
  }
  return out;
}

void RecentSamples::decode(const Stored& s, const std::vector<std::vector<int64_t>>& times, int64_t from,
                           std::vector<Raw>& out) const {
  const uint64_t base = s.firstChunk - s.timeline->firstChunk;  // index into times
  // Skip the chunks before the one holding the newest sample at or before `from`.
  out.clear();
  size_t j = 0;
  while (j + 1 < s.chunks.size() && times[base + j + 1][0] <= from) ++j;
  for (; j < s.chunks.size(); ++j) {
    const ValueChunk& c = s.chunks[j];
    const std::vector<int64_t>& ts = times[base + j];
    const size_t offset = j == 0 ? s.firstOffset : 0;
    BitReader in(c.bits);
    XorState st;
    for (size_t i = offset; i < ts.size(); ++i) out.push_back({ts[i], xorNext(in, st, i == offset)});
  }
}

namespace {

bool labelsMatch(const Series& series, const std::vector<std::pair<std::string, std::string>>& want) {
  for (const auto& [name, value] : want) {
    if (series.label(name) != value) return false;
  }
  return true;
}

}  // namespace

uint64_t RecentSamples::labelBits(std::string_view name, std::string_view value) {
  const std::hash<std::string_view> hash;
  const uint64_t h = hash(name) * 0x9E3779B97F4A7C15ull ^ hash(value);
  return (uint64_t{1} << (h & 63)) | (uint64_t{1} << ((h >> 6) & 63));
}

std::vector<RecentSamples::SeriesWindow> RecentSamples::window(const Query& q) const {
  std::vector<SeriesWindow> out;
  std::lock_guard lock(mutex_);
  const int64_t now = q.at.value_or(std::chrono::steady_clock::now()).time_since_epoch().count();
  const int64_t from = now - int64_t(q.window.count()) * 1'000'000'000;
  const double offset = double(wallOffsetNs_);
  std::unordered_map<const Timeline*, std::vector<std::vector<int64_t>>> times;  // decoded once per query
  std::vector<Raw> ring;
  // A wanted label with a value is among a matching series' label bits. An empty value also
  // matches a series without the label (an absent label reads as ""), so it adds no bits.
  uint64_t wantBits = 0;
  for (const auto& [name, value] : q.labels) {
    if (!value.empty()) wantBits |= labelBits(name, value);
  }
  for (const auto& [key, stored] : series_) {
    // A one-port query at 128 devices passes over ~99 % of the series here, without reading them
    // (docs/benchmarks.md, "Ninth pass").
    if ((stored.labelBits & wantBits) != wantBits) continue;
    if (!q.family.empty() && stored.series->family->name != q.family) continue;
    if (!labelsMatch(*stored.series, q.labels)) continue;
    if (stored.samples == 0 || stored.timeline->last < from) continue;
    auto tit = times.find(stored.timeline);
    if (tit == times.end()) tit = times.emplace(stored.timeline, decodeTimes(*stored.timeline)).first;
    decode(stored, tit->second, from, ring);
    // The base is the newest point at or before the window start, so the increase covers the
    // whole window when the history reaches that far. The runs that could not read the series
    // (kUnread) have no value and no point: the next value's increase spans them, and a window
    // whose base is one starts at the first value after it.
    size_t first = 0;
    while (first + 1 < ring.size() && ring[first + 1].t <= from) ++first;
    const auto unread = [](const Raw& r) { return std::isnan(r.v); };
    if (std::any_of(ring.begin() + ptrdiff_t(first), ring.end(), unread)) {  // rare: a failed read
      ring.erase(ring.begin(), ring.begin() + ptrdiff_t(first));
      std::erase_if(ring, unread);
      first = 0;
    }
    if (ring.empty()) continue;
    const bool counter = stored.counter;
    SeriesWindow w;
    w.series = stored.series;
    w.counter = counter;
    const Raw& base = ring[first];
    w.last = ring.back().v;
    w.min = w.max = base.v;
    w.seconds = double(ring.back().t - base.t) / 1e9;
    std::vector<double> gaps;
    double shownRate = 0;
    int64_t lastChange = base.t;
    double sinceChange = 0;  // increase since the last value change
    for (size_t i = first; i < ring.size(); ++i) {
      const Raw& p = ring[i];
      if (p.t >= from) ++w.samples;
      w.min = std::min(w.min, p.v);
      w.max = std::max(w.max, p.v);
      if (i == first) {
        if (q.points && !counter) w.points.push_back({(double(p.t) + offset) / 1e9, p.v});
        continue;
      }
      const Raw& prev = ring[i - 1];
      if (!counter) {
        if (q.points) w.points.push_back({(double(p.t) + offset) / 1e9, p.v});
        continue;
      }
      // A counter that went down was reset: the new value is the increase (docs/architecture.md,
      // "Errors").
      const double delta = p.v >= prev.v ? p.v - prev.v : p.v;
      w.increase += delta;
      sinceChange += delta;
      if (p.v != prev.v) {
        const double span = double(p.t - lastChange) / 1e9;
        if (span > 0) {
          // Judged between value changes: a NIC that latches its counters every few polls shows
          // its true rate, not zero followed by a multiple (docs/rules.md, "Counter refresh cadence").
          w.peakRate = std::max(w.peakRate, sinceChange / span);
          if (lastChange != base.t || i > first + 1) gaps.push_back(span);
          shownRate = sinceChange / span;
        }
        lastChange = p.t;
        sinceChange = 0;
      } else if (double(p.t - lastChange) / 1e9 > kStill) {
        shownRate = 0;
      }
      if (q.points) w.points.push_back({(double(p.t) + offset) / 1e9, shownRate});
    }
    if (counter) {
      w.rate = w.seconds > 0 ? w.increase / w.seconds : 0;
      if (!gaps.empty()) {
        std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
        w.refreshSeconds = gaps[gaps.size() / 2];
      }
    }
    out.push_back(std::move(w));
  }
  // Series in a stable order for the reader (the table is keyed by id, in no order).
  std::sort(out.begin(), out.end(), [](const SeriesWindow& a, const SeriesWindow& b) {
    return a.series->key < b.series->key;
  });
  return out;
}

double RecentSamples::pollSeconds() const {
  std::lock_guard lock(mutex_);
  return pollSeconds_;
}

double RecentSamples::coveredSeconds() const {
  std::lock_guard lock(mutex_);
  if (covered_) return *covered_;
  // The oldest point of any series with two or more, per collector: one chunk decoded per collector.
  // A flat list of the ~20 collectors, not a hash table: a lookup per series, and the collector of
  // the previous series is tried first.
  struct Oldest {
    const Timeline* timeline;
    std::pair<uint64_t, uint32_t> at;  // chunk, offset
  };
  std::vector<Oldest> oldest;
  oldest.reserve(timelines_.size());
  size_t last = 0;
  for (const auto& [key, s] : series_) {
    if (s.samples < 2) continue;
    const std::pair<uint64_t, uint32_t> at{s.firstChunk, s.firstOffset};
    if (const Timeline* tl = s.timeline; last >= oldest.size() || oldest[last].timeline != tl) {
      last = std::find_if(oldest.begin(), oldest.end(), [tl](const Oldest& o) { return o.timeline == tl; }) -
             oldest.begin();
      if (last == oldest.size()) oldest.push_back({tl, at});
    }
    if (at < oldest[last].at) oldest[last].at = at;
  }
  double covered = 0;
  for (const auto& [tl, at] : oldest) {
    const TimeChunk& c = tl->chunks[at.first - tl->firstChunk];
    BitReader in(c.bits);
    DodState st;
    int64_t t = 0;
    for (uint32_t i = 0; i <= at.second; ++i) t = dodNext(in, st, i);
    covered = std::max(covered, double(tl->last - t) / 1e9);
  }
  covered_ = covered;
  return covered;
}

size_t RecentSamples::seriesCount() const {
  std::lock_guard lock(mutex_);
  return series_.size();
}

RecentSamples::Usage RecentSamples::usage() const {
  std::lock_guard lock(mutex_);
  Usage u;
  u.samples = samples_;
  u.series = series_.size();
  // The allocator's own header per block (glibc: 8 bytes, blocks rounded to 16) is counted as 16.
  constexpr size_t kMallocOverhead = 16;
  // An unordered_map node holds the value, the next pointer and (libstdc++, for integer keys) no
  // cached hash; plus one bucket pointer per element at load factor 1.
  u.bytes += series_.bucket_count() * sizeof(void*);
  for (const auto& [key, s] : series_) {
    u.bytes += sizeof(void*) + sizeof(std::pair<const uint64_t, Stored>) + kMallocOverhead;
    u.bytes += s.chunks.capacity() * sizeof(ValueChunk) + (s.chunks.capacity() > 0 ? kMallocOverhead : 0);
    for (const ValueChunk& c : s.chunks) {
      u.bytes += c.bits.heapBytes() + (c.bits.heapBytes() > 0 ? kMallocOverhead : 0);
      u.encodedBytes += (c.bits.bits() + 7) / 8;
    }
  }
  for (const auto& [name, tl] : timelines_) {
    u.bytes += sizeof(Timeline) + name.capacity() + tl->chunks.capacity() * sizeof(TimeChunk) + 3 * kMallocOverhead;
    for (const TimeChunk& c : tl->chunks) {
      u.bytes += c.bits.heapBytes() + (c.bits.heapBytes() > 0 ? kMallocOverhead : 0);
      u.encodedBytes += (c.bits.bits() + 7) / 8;
    }
  }
  return u;
}

}  // namespace fabricmon
