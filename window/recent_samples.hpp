#pragma once
// The node's own fine-grained recent history, for people rather than rules: every sample of the
// families triage and the status page read, at the node's sampling rate, for the last few minutes.
// /api/v1/window summarises it (increase, rate, peak, refresh period per series); the status page
// charts it. Prometheus keeps one point per scrape; this keeps the sub-second view it averages away.
//
// Stored the way a time-series database stores its head (docs/architecture.md, "The recent-sample
// window"): each collector's batch times once, delta-of-delta encoded, in chunks; each series' values
// XOR-encoded in chunks aligned with its collector's; memory taken as series receive samples and
// given back a chunk at a time as it leaves the window. Series only of the families in keptFamilies().

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/sample.hpp"
#include "model/store.hpp"
#include "window/sample_codec.hpp"

namespace fabricmon {

class RecentSamples {
 public:
  /// Samples per chunk, as Prometheus's head chunks: enough for the encoding to pay off, few enough
  /// that a chunk leaving the window gives memory back in small steps.
  static constexpr uint32_t kChunkSamples = 120;
  static constexpr std::chrono::seconds kDefaultLength{600};
  /// The families kept (a table: a new rule's inputs are one line here).
  static std::span<const FamilyDef* const> keptFamilies();
  /// Whether a series of `family` is kept.
  static bool kept(const FamilyDef* family);

  /// `length`: how far back the window reaches (the newest sample at or before `now - length` is
  /// kept too, as the base of a counter's increase).
  explicit RecentSamples(std::chrono::nanoseconds length = kDefaultLength);

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
    /// Only series with these label values (e.g. {"device","mlx5_3"}); empty = all.
    std::vector<std::pair<std::string, std::string>> labels;
    bool points = false;
    /// The window ends here (tests; default: now).
    std::optional<std::chrono::steady_clock::time_point> at;
  };
  /// What the window holds now (fabricmon_window_bytes, fabricmon_window_samples).
  struct Usage {
    size_t bytes = 0;    ///< every allocation of the store: encoded chunks, their headers, the index
    size_t encodedBytes = 0;  ///< the chunks' encoded bits alone (what Prometheus's 1.3 B/sample counts)
    size_t samples = 0;  ///< values stored, over all series
    size_t series = 0;
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
  Usage usage() const;
  /// fabricmon_window_bytes and fabricmon_window_samples (docs/metrics.md); zeros for no store (the
  /// window is off).
  static BatchPtr usageBatch(const RecentSamples* store, std::chrono::steady_clock::time_point now);
  static std::span<const FamilyDef* const> families();
  std::chrono::nanoseconds length() const { return length_; }

 private:
  /// One collector's batch times: chunk k holds the times of its batches k*… (the cut is by count
  /// or by a quarter of the length, whichever comes first).
  struct TimeChunk {
    BitBuffer bits;
    int64_t first = 0;  ///< steady ns of the chunk's first batch
    uint32_t count = 0;
  };
  struct Stored;
  struct Timeline {
    std::vector<TimeChunk> chunks;  // a handful: erasing the front moves a few headers
    uint64_t firstChunk = 0;  ///< index of chunks.front()
    DodState state;
    BatchPtr lastBatch;
    /// What sample i of lastBatch was: its Stored, notKept() (a family the window does not keep),
    /// or nullptr (look it up). A collector emits its series in the same order poll after poll, so
    /// a sample whose series is the same object as the previous batch's sample i (the previous
    /// batch is held while the next is ingested, so an equal address is the same series) costs no
    /// family scan and no hash lookup.
    std::vector<Stored*> byPosition;
    uint32_t epoch = 0;       ///< bumped per new batch
    int64_t last = 0;         ///< steady ns of the latest batch
    bool alive = true;        ///< still in the snapshot
    size_t series = 0;        ///< stored series of this collector
    size_t seen = 0;          ///< of them, seen in the latest batch
    uint64_t current() const { return firstChunk + chunks.size() - 1; }
  };
  /// One series' values over one of its collector's time chunks.
  struct ValueChunk {
    BitBuffer bits;
  };
  struct Stored {
    SeriesPtr series;
    Timeline* timeline = nullptr;
    bool counter = true;
    uint32_t seenEpoch = 0;
    /// Index in its time chunk of the first value of chunks.front() (a series that began
    /// mid-chunk). Every later chunk starts at its time chunk's first batch: a series is in every
    /// batch of its collector from its first to its last, so only the first can start late.
    uint32_t firstOffset = 0;
    uint64_t firstChunk = 0;  ///< timeline chunk index of chunks.front()
    /// labelBits() of every label: a query's label filter passes over a series whose bits lack one
    /// of its own without reading the series (in the 128-byte block the node takes anyway).
    uint64_t labelBits = 0;
    std::vector<ValueChunk> chunks;  // contiguous chunk indices up to the timeline's current one
    XorState state;
    size_t samples = 0;
    int64_t lastValueT = 0;  ///< steady ns of its newest value (not kUnread)
  };
  /// The value stored for a run that could not read the series (Batch::unread): a NaN, which no
  /// collector exports, so it cannot be mistaken for a reading.
  static constexpr double kUnread = std::numeric_limits<double>::quiet_NaN();
  /// Appends `value` to `s` for its timeline's latest batch (`epoch`), and lets its chunks before
  /// `keepFrom` go.
  void append(Stored& s, Timeline& tl, uint32_t epoch, uint64_t keepFrom, double value);
  /// One decoded point (steady ns, value).
  struct Raw {
    int64_t t;
    double v;
  };
  /// Two of 64 bits for a (label, value) pair: a filter of the labels a series has.
  static uint64_t labelBits(std::string_view name, std::string_view value);
  /// The byPosition mark of a sample the window does not keep.
  static Stored* notKept();
  /// Decodes `s` from the chunk that holds the newest sample at or before `from` on.
  void decode(const Stored& s, const std::vector<std::vector<int64_t>>& times, int64_t from,
              std::vector<Raw>& out) const;
  std::vector<std::vector<int64_t>> decodeTimes(const Timeline& t) const;

  const std::chrono::nanoseconds length_;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, Stored> series_;  ///< by Series::id
  std::map<std::string, std::unique_ptr<Timeline>, std::less<>> timelines_;  ///< per collector
  int64_t wallOffsetNs_ = 0;  ///< wall - steady of the latest batch
  /// coveredSeconds() walks every series; it depends only on what is stored, so its answer holds
  /// until the next ingest empties this (the status page asks once per chart family, all in the
  /// same second).
  mutable std::optional<double> covered_;
  double pollSeconds_ = 0;
  size_t samples_ = 0;
  // usageBatch() runs every pipeline pass; the walk over every series is done at most every 5 s.
  mutable std::mutex usageMutex_;
  mutable Usage usage_;
  mutable std::chrono::steady_clock::time_point usageAt_;
};

}  // namespace fabricmon
