#include "watchdog/recent_samples.hpp"

#include <algorithm>
#include <array>

#include "model/families/dcb.hpp"
#include "model/families/dcqcn.hpp"
#include "model/families/ethtool.hpp"
#include "model/families/fec.hpp"
#include "model/families/netdev.hpp"
#include "model/families/pma.hpp"
#include "model/families/port.hpp"
#include "model/families/roce.hpp"

namespace fabricmon {
namespace {

// What triage walks (docs/runbook.md, "Triage") and the status page charts, by the families'
// definitions (model/families/).
constexpr std::array<const FamilyDef*, 41> kKept{
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
    // the physical layer: pre-FEC bit errors over bits received, post-FEC (uncorrectable) codewords
    &families::ethtool::kPhyCorrectedBits,
    &families::ethtool::kPhyReceivedBytes,
    &families::fec::kCorrectedBlocks,
    &families::fec::kUncorrectableBlocks,
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

// A counter standing still this long has a zero rate, whatever its NIC's refresh period (the
// slowest seen, bnxt_en's firmware, latches once a second).
constexpr double kStill = 3.0;

}  // namespace

std::span<const FamilyDef* const> RecentSamples::keptFamilies() { return kKept; }

bool RecentSamples::kept(const FamilyDef* family) {
  return std::find(kKept.begin(), kKept.end(), family) != kKept.end();
}

void RecentSamples::Ring::push(Raw r) {
  if (size < kCapacity) {
    points[(head + size) % kCapacity] = r;
    ++size;
  } else {
    points[head] = r;
    head = (head + 1) % kCapacity;
  }
}

void RecentSamples::ingest(const Snapshot& snapshot) {
  std::lock_guard lock(mutex_);
  for (const auto& [collector, batch] : snapshot.batches) {
    auto& last = lastBatch_[collector];
    if (last == batch) continue;
    last = batch;
    const uint32_t epoch = ++epochs_[collector];
    const int64_t t = batch->monotonic.time_since_epoch().count();
    wallOffsetNs_ = std::chrono::duration_cast<std::chrono::nanoseconds>(batch->wall.time_since_epoch()).count() -
                    std::chrono::duration_cast<std::chrono::nanoseconds>(batch->monotonic.time_since_epoch()).count();
    for (const Sample& s : batch->samples) {
      if (!kept(s.series->family)) continue;
      auto it = rings_.find(s.series->id);
      if (it == rings_.end()) {
        it = rings_.emplace(s.series->id, Ring{}).first;
        it->second.series = s.series;
        it->second.collector = collector;
        it->second.counter = s.series->family->type == MetricType::kCounter;
      }
      Ring& ring = it->second;
      if (ring.size > 0) {
        const double gap = double(t - ring.at(ring.size - 1).t) / 1e9;
        if (gap > 0) pollSeconds_ = pollSeconds_ == 0 ? gap : std::min(pollSeconds_ * 0.9 + gap * 0.1, gap * 10);
      }
      ring.push({t, s.value});
      ring.seenEpoch = epoch;
    }
  }
  // A series its collector published a batch without (a vanished device), or whose collector left
  // the snapshot, is dropped, as /metrics drops it.
  std::erase_if(rings_, [&](const auto& kv) {
    const Ring& r = kv.second;
    const auto batch = snapshot.batches.find(r.collector);
    return batch == snapshot.batches.end() || r.seenEpoch != epochs_[r.collector];
  });
  std::erase_if(lastBatch_, [&](const auto& kv) { return !snapshot.batches.contains(kv.first); });
}

std::vector<RecentSamples::SeriesWindow> RecentSamples::window(const Query& q) const {
  std::vector<SeriesWindow> out;
  std::lock_guard lock(mutex_);
  const int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  const int64_t from = now - int64_t(q.window.count()) * 1'000'000'000;
  const double offset = double(wallOffsetNs_);
  for (const auto& [key, ring] : rings_) {
    if (!q.family.empty() && ring.series->family->name != q.family) continue;
    if (ring.size == 0 || ring.at(ring.size - 1).t < from) continue;
    // The base is the newest point at or before the window start, so the increase covers the
    // whole window when the history reaches that far.
    size_t first = 0;
    while (first + 1 < ring.size && ring.at(first + 1).t <= from) ++first;
    SeriesWindow w;
    w.series = ring.series;
    w.counter = ring.counter;
    const Raw& base = ring.at(first);
    w.last = ring.at(ring.size - 1).v;
    w.min = w.max = base.v;
    w.seconds = double(ring.at(ring.size - 1).t - base.t) / 1e9;
    std::vector<double> gaps;
    double shownRate = 0;
    int64_t lastChange = base.t;
    double sinceChange = 0;  // increase since the last value change
    for (size_t i = first; i < ring.size; ++i) {
      const Raw& p = ring.at(i);
      if (p.t >= from) ++w.samples;
      w.min = std::min(w.min, p.v);
      w.max = std::max(w.max, p.v);
      if (i == first) {
        if (q.points && !ring.counter) w.points.push_back({(double(p.t) + offset) / 1e9, p.v});
        continue;
      }
      const Raw& prev = ring.at(i - 1);
      if (!ring.counter) {
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
    if (ring.counter) {
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
  double covered = 0;
  for (const auto& [key, ring] : rings_) {
    if (ring.size >= 2) covered = std::max(covered, double(ring.at(ring.size - 1).t - ring.at(0).t) / 1e9);
  }
  return covered;
}

size_t RecentSamples::seriesCount() const {
  std::lock_guard lock(mutex_);
  return rings_.size();
}

}  // namespace fabricmon
