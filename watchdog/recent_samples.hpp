#pragma once
// The node's own fine-grained recent history, for people rather than rules: every sample of the
// families triage and the status page read, at the node's sampling rate, for the last few minutes.
// /api/v1/window summarises it (increase, rate, peak, refresh period per series); the status page
// charts it. Prometheus keeps one point per scrape; this keeps the sub-second view it averages away.
//
// Memory is fixed: kCapacity points per series, series only of the families in keptFamilies().

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/sample.hpp"
#include "model/store.hpp"

namespace fabricmon {

class RecentSamples {
 public:
  static constexpr size_t kCapacity = 600;  ///< points per series: 10 min at 1 s, 2.5 min at 250 ms
  /// The families kept (a table: a new rule's inputs are one line here).
  static std::span<const FamilyDef* const> keptFamilies();

  struct Point {
    double t;  ///< unix seconds (wall clock of the sample's collector run)
    double v;  ///< counters: rate per second over the interval ending here; gauges: the value
  };
  /// One series over a window.
  struct SeriesWindow {
    SeriesPtr series;
    bool counter = true;
    size_t samples = 0;        ///< samples inside the window
    double seconds = 0;        ///< span covered (can be shorter than asked)
    double increase = 0;       ///< counters: reset-adjusted increase over the span
    double rate = 0;           ///< counters: increase / seconds
    double peakRate = 0;       ///< counters: highest rate between two consecutive value changes
    double refreshSeconds = 0; ///< counters: median time between value changes (0 = unknown)
    double last = 0, min = 0, max = 0;  ///< the latest value; gauges also their range
    std::vector<Point> points;  ///< only when asked for
  };
  struct Query {
    std::chrono::seconds window{300};
    std::string family;   ///< "" = every kept family
    bool points = false;
  };

  /// Ingests the batches of `snapshot` not seen yet (pipeline thread).
  void ingest(const Snapshot& snapshot);
  /// Summaries of every series with a sample in the window (any thread).
  std::vector<SeriesWindow> window(const Query& query) const;
  /// Typical seconds between samples (0 before two samples).
  double pollSeconds() const;
  /// How far back the oldest kept point reaches, in seconds.
  double coveredSeconds() const;
  size_t seriesCount() const;

 private:
  struct Raw {
    int64_t t;  ///< steady clock ns
    double v;
  };
  struct Ring {
    SeriesPtr series;
    std::string collector;
    bool counter = true;
    std::unique_ptr<Raw[]> points = std::make_unique<Raw[]>(kCapacity);
    size_t head = 0, size = 0;
    uint32_t seenEpoch = 0;
    const Raw& at(size_t i) const { return points[(head + i) % kCapacity]; }  // 0 = oldest
    void push(Raw r);
  };
  static bool kept(const FamilyDef* family);

  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, Ring> rings_;                ///< by Series::id
  std::map<std::string, BatchPtr, std::less<>> lastBatch_;  ///< per collector
  std::map<std::string, uint32_t, std::less<>> epochs_;     ///< per collector, bumped per new batch
  int64_t wallOffsetNs_ = 0;  ///< wall - steady of the latest batch
  double pollSeconds_ = 0;
};

}  // namespace fabricmon
