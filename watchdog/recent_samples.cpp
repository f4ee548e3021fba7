#include "watchdog/recent_samples.hpp"

#include <algorithm>
#include <array>

namespace fabricmon {
namespace {

// What triage walks (docs/runbook.md, "Triage") and the status page charts. Counters unless named
// in kGauges.
constexpr std::array<std::string_view, 37> kKept{
    // step 1: PFC pause and storm events
    "fabricmon_pfc_pause_seconds_total", "fabricmon_pfc_pause_frames_received_total",
    "fabricmon_pfc_pause_frames_transmitted_total", "fabricmon_global_pause_seconds_total",
    "fabricmon_pause_storm_warning_events_total", "fabricmon_pause_storm_error_events_total",
    // step 2: ECN and CNP
    "fabricmon_roce_ecn_marked_packets_total", "fabricmon_roce_cnp_sent_total",
    "fabricmon_roce_cnp_handled_total", "fabricmon_roce_cnp_ignored_total",
    "fabricmon_priority_ecn_marked_packets_total",
    // step 3: configuration
    "fabricmon_dcqcn_np_enabled", "fabricmon_dcqcn_rp_enabled", "fabricmon_pfc_enabled",
    "fabricmon_dcb_trust_dscp",
    // step 4: link errors, flaps, degraded ports
    "fabricmon_port_symbol_errors_total", "fabricmon_port_link_error_recovery_total",
    "fabricmon_port_link_downed_total", "fabricmon_port_receive_errors_total",
    "fabricmon_phy_symbol_errors_total", "fabricmon_phy_crc_errors_total",
    "fabricmon_phy_pcs_symbol_errors_total", "fabricmon_phy_link_down_events_total",
    "fabricmon_netdev_carrier_changes_total", "fabricmon_netdev_up", "fabricmon_port_state",
    "fabricmon_port_rate_bytes_per_second",
    // step 5: RoCE loss
    "fabricmon_roce_out_of_sequence_total", "fabricmon_roce_packet_sequence_errors_total",
    "fabricmon_roce_local_ack_timeouts_total", "fabricmon_priority_discards_total",
    "fabricmon_port_transmit_discards_total",
    // step 6: InfiniBand congestion
    "fabricmon_port_transmit_wait_total",
    // throughput, for context
    "fabricmon_port_transmit_bytes_total", "fabricmon_port_receive_bytes_total",
    "fabricmon_priority_transmit_bytes_total", "fabricmon_priority_receive_bytes_total",
};

// A counter standing still this long has a zero rate, whatever its NIC's refresh period (the
// slowest seen, bnxt_en's firmware, latches once a second).
constexpr double kStill = 3.0;

}  // namespace

std::span<const std::string_view> RecentSamples::keptFamilies() { return kKept; }

bool RecentSamples::kept(std::string_view family) const {
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
      if (!kept(s.series->family->name)) continue;
      auto it = rings_.find(s.series->key);
      if (it == rings_.end()) {
        it = rings_.emplace(s.series->key, Ring{}).first;
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
