#pragma once
// Bounded per-series history for the watchdog. Every tracked series keeps its latest two samples and
// a reset-adjusted running total; series whose rules need long windows also keep a fixed ring of
// coarse points (one per window/60), and rate-peak series a fixed ring of per-bucket maxima.
// Nothing grows with time: memory is proportional to the number of series the rules read.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/sample.hpp"
#include "model/store.hpp"
#include "watchdog/management_ports.hpp"
#include "watchdog/input_families.hpp"
#include "watchdog/slot_pool.hpp"
#include "watchdog/subjects.hpp"

namespace fabricmon::watchdog {

using Nanos = int64_t;  ///< steady_clock time since its epoch, in ns
inline constexpr Nanos kNever = INT64_MIN;
inline constexpr Nanos kSecond = 1'000'000'000;
/// How long a series its collector reports unread (Batch::unread) is held after its latest sample:
/// longer than the transceiver collector's longest backoff (15 skipped runs of 60 s, then a try),
/// short enough that a read that never works again does not freeze its findings for good.
inline constexpr Nanos kUnreadHold = 20 * 60 * kSecond;

/// A fixed ring of (time, running total) points spaced at least `width` apart (the rings are most of
/// the history's memory). Times are kept as milliseconds since the ring's origin (a point's time
/// reads at most 1 ms early) in a column of times that rings pushed at the same instants share (a
/// Cohort: one collector's series, one window); a ring whose pushes fall out of step with the
/// others takes its own copy of the column first, so every ring reads exactly the points it would
/// keep alone. Totals are kept as one value while every point holds the same total (a series that
/// stands still: an idle priority, an error counter that never counted), as floats from the first
/// different one while every total the ring holds is exactly a float, and as doubles from the first
/// one that is not: a total reads back exactly as it was pushed either way. A default-constructed
/// ring is no ring.
class CoarseRing {
 public:
  struct Point {
    Nanos t;
    double total;
  };
  struct Column;
  /// Where new rings find the column of times another new ring of theirs opened at the same
  /// instant. Used on one thread (History's).
  class Cohort {
   public:
    Cohort() = default;
    Cohort(Cohort&& o) noexcept : open_(std::exchange(o.open_, nullptr)) {}
    Cohort& operator=(Cohort&& o) noexcept;
    ~Cohort();

   private:
    friend class CoarseRing;
    Column* open_ = nullptr;
  };

  CoarseRing() = default;
  CoarseRing(Nanos width, uint16_t capacity);
  CoarseRing(CoarseRing&& o) noexcept : block_(std::exchange(o.block_, nullptr)) {}
  CoarseRing& operator=(CoarseRing&& o) noexcept;
  ~CoarseRing();
  explicit operator bool() const { return block_ != nullptr; }
  /// Pushes a point when `t` is at least `width` after the newest. A ring's first push joins the
  /// column `cohort` opened at the same instant, if any.
  void push(Nanos t, double total, Cohort* cohort = nullptr);
  /// Keeps the newest points that fit the new geometry (SIGHUP with a different window).
  void reshape(Nanos width, uint16_t capacity);
  Nanos width() const;
  /// The newest point at or before `t`; when there is none, the oldest point (partial coverage).
  std::optional<Point> baseFor(Nanos t) const;
  /// Whether a total it holds is not exactly a float (its totals read back as doubles).
  bool wide() const;
  /// Whether every point holds the same total (kept once, not per point).
  bool still() const { return block_->form == Form::kStill; }
  /// Bytes of the ring's own allocation (its share of a column of times not counted).
  size_t bytes() const;
  /// Whether another ring reads the same column of times.
  bool sharesTimes() const;

 private:
  /// How the totals are kept: one double for every point, or a float or a double per slot.
  enum class Form : uint8_t { kStill, kFloat, kDouble };
  /// The ring's allocation: this header, then the totals: one double (kStill), or `capacity` floats
  /// or doubles by the column's slots.
  struct Block {
    Column* col;
    uint32_t pushes;  ///< the column's pushes this ring has written: equal = in step, one less = behind
    Form form;
    bool held;        ///< kStill: a total was written (before the first, any total is the ring's)
  };
  static size_t totalsOffset() { return (sizeof(Block) + 7) / 8 * 8; }
  static size_t totalsBytes(Form form, uint16_t capacity);
  static Block* allocate(Column* col, Form form);
  std::byte* totals() const { return reinterpret_cast<std::byte*>(block_) + totalsOffset(); }
  double totalAt(uint16_t slot) const {
    switch (block_->form) {
      case Form::kStill: return *reinterpret_cast<const double*>(totals());
      case Form::kFloat: return double(reinterpret_cast<const float*>(totals())[slot]);
      case Form::kDouble: break;
    }
    return reinterpret_cast<const double*>(totals())[slot];
  }
  void setTotal(uint16_t slot, double total);
  /// Rewrites the totals in `form`, every slot reading what it read before.
  void convert(Form form);
  bool behind() const;
  /// This ring's points (a ring one push behind its column does not see the column's newest).
  uint16_t viewSize() const;
  Nanos viewTime(uint16_t i) const;  ///< 0 = oldest
  uint16_t viewSlot(uint16_t i) const;
  /// Gives this ring a column of its own, equal to what it reads now.
  void detach();
  /// Appends a point to the ring's column (in step, all others in step: the caller checked).
  void append(Nanos t, double total);
  void release();
  Block* block_ = nullptr;
};

/// The largest value seen per bucket over a sliding window (bucket = window / kBuckets).
class PeakBuckets {
 public:
  static constexpr size_t kBuckets = 12;
  explicit PeakBuckets(Nanos window) : window_(window) {}
  void add(Nanos t, double value);
  /// Adds the rate of a counter over at least `minSpan` of its recent judgements (or over the
  /// latest one, when that is longer), capped at `maxPerSecond` (0 = no cap). A NIC that refreshes
  /// about as fast as we poll puts one or two refreshes into a poll: over one poll its rate would
  /// alias to twice the truth, over a second it is within one refresh of it.
  /// With `record` false the judgement is only remembered (the source's cadence is not known yet).
  void addRate(Nanos t, double total, Nanos minSpan, double maxPerSecond, bool record);
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
  struct Point {
    Nanos t = kNever;
    double total = 0;
  };
  std::array<Point, 8> recent_{};  ///< the latest judgements, a ring
  uint8_t next_ = 0;
};

/// How many gaps between value changes a series remembers to learn how often it moves.
inline constexpr size_t kGapSlots = 8;

/// A counter's rate judgement (docs/rules.md, "Counter refresh cadence"): how often it moves, which
/// NIC source it is read from and how often that source refreshes, the latest judged rate and the
/// one before it, the increase carried into the next interval, and its rate-peak output. Counters
/// only: a gauge keeps none of it. NICs latch their counters on their own clock (bnxt_en's firmware
/// DMAs port stats once a second, hw_counters are cached for `lifespan` ms), so a counter may stand
/// still for several polls and then jump by several polls' worth. Rates are judged over the
/// interval between value changes, never one poll.
struct RateJudgement {
  // Cadence: how often this series moves.
  Nanos lastChangeT = kNever;    ///< latest sample whose value differed from the one before
  std::array<float, kGapSlots> gaps{};  ///< seconds between recent value changes (a ring)
  Nanos poll = 0;                ///< typical interval between our samples (moving average)
  // Grouping: the NIC source the series is read from.
  uint32_t group = 0;            ///< index into History::groups
  uint8_t gapCount = 0;
  uint8_t gapNext = 0;
  /// The slot of `gaps` that holds their median, found when a gap is recorded (a few times a
  /// minute for a moving counter) rather than at every pass that asks (learnRefresh, every pass).
  uint8_t medianSlot = 0;
  Nanos refresh = 0;             ///< the source's refresh period (fastest-moving series of its group)
  // The judgement (see History::judgeRate).
  double rateIncrease = 0;       ///< the increase behind rate()
  double rateSeconds = 0;        ///< the span behind rate()
  Nanos rateT = kNever;          ///< sample time of the latest judgement; unchanged = nothing new to judge
  Nanos rateFromT = kNever;      ///< where the increase behind rate() began (earlier than the span when it
                                 ///< includes a carried excess)
  double prevRateIncrease = 0;   ///< the judgement before the latest one
  double prevRateSeconds = 0;
  Nanos prevRateFromT = kNever;  ///< kNever: none
  double carry = 0;              ///< increase above the physical maximum, spread into the next interval
  Nanos carryFromT = kNever;     ///< where the carried increase began
  /// The rate-peak output (HistoryPlan::peak): its buckets and its gauge, built once.
  struct Peak {
    explicit Peak(Nanos window) : buckets(window) {}
    PeakBuckets buckets;
    SeriesPtr series;
  };
  std::unique_ptr<Peak> peak;

  /// The latest judged rate per second (0 before the first judgement; a judged span is never 0).
  double rate() const { return rateSeconds > 0 ? rateIncrease / rateSeconds : 0; }
  /// The median of `gaps`: how often this series moves (0 = not known yet).
  Nanos ownRefresh() const;
  /// Records the time between two value changes and finds the new median.
  void addGap(float seconds);
};

/// One series the rules read: its latest two samples and reset-adjusted total (every series), a
/// coarse ring when a rule reads a long window, and a counter's rate judgement. Kept in History's
/// pool: it never moves while tracked (handles and the subject index point at it).
struct Tracked {
  SeriesPtr series;            ///< null: a free slot of the pool
  Fam fam{};
  bool saturated = false;      ///< a narrow PMA counter sitting at its maximum (its rate is unknown)
  uint16_t collector = 0;      ///< index into History's collector names
  uint32_t seenEpoch = 0;
  uint32_t samples = 0;
  uint32_t saturatesAt = 0;    ///< 0 = not a narrow counter; else its maximum (2^bits - 1)
  double raw = 0;              ///< latest value as read
  double total = 0;            ///< counters: sum of reset-adjusted deltas since first seen
  double prevTotal = 0;
  Nanos t = kNever;            ///< latest sample time
  Nanos prevT = kNever;
  Nanos lastIncreaseT = kNever;  ///< counters: time of the latest sample that carried an increase
  Nanos changedT = kNever;       ///< gauges: time the value last changed (first sample counts)

  std::unique_ptr<RateJudgement> counter;  ///< counters only
  CoarseRing ring;                           ///< false: no rule reads a long window of it
  std::unique_ptr<std::string> noteText;    ///< the text its collector attached (Batch::notes), if any

  /// Its key in History's index ("<tag><p0>\x1f<p1>...": KeyParts joined).
  std::string_view key() const { return key_; }
  std::string_view label(std::string_view name) const { return series->label(name); }
  /// The counter's rate judgement (a gauge's reads as never judged).
  const RateJudgement& judged() const {
    static const RateJudgement kNone;
    return counter ? *counter : kNone;
  }
  /// The text its collector attached to the latest sample (Batch::notes).
  std::string_view note() const { return noteText ? std::string_view(*noteText) : std::string_view{}; }
  /// Increase over the latest poll interval (0 before two samples).
  double lastDelta() const { return samples >= 2 ? total - prevTotal : 0; }
  /// Seconds of the latest poll interval (0 before two samples).
  double lastInterval() const { return samples >= 2 ? double(t - prevT) / kSecond : 0; }
  /// True when a counter increased within `window` of its latest sample (not counting the first sample).
  bool increasedWithin(Nanos window) const { return lastIncreaseT != kNever && t - lastIncreaseT < window; }
  /// True when a rate judgement exists (a counter with two samples).
  bool rated() const { return counter && counter->rateT != kNever; }
  /// True when the counter increased at a sample inside (from, to]: the same NIC read as another
  /// series' judged interval, whatever the refresh cadence.
  bool increasedIn(Nanos from, Nanos to) const { return lastIncreaseT != kNever && lastIncreaseT > from && lastIncreaseT <= to; }

  struct Window {
    double increase = 0;
    double seconds = 0;  ///< span actually covered
    bool full = false;   ///< the history covers the whole window
  };
  /// Increase over the `window` ending at the latest sample (needs a ring).
  Window over(Nanos window) const;

 private:
  friend class History;
  std::string key_;
};

/// Per-family geometry: how long a window any enabled rule reads (0 = latest values only) and
/// whether a rate peak is kept.
struct HistoryPlan {
  std::array<Nanos, kFamCount> longWindow{};
  std::array<bool, kFamCount> peak{};
  Nanos peakWindow = 60 * kSecond;
  bool judgeManagement = false;  ///< watchdog.judge_management: management ports are rules' inputs too
};

/// A key of History's tables as the pieces it is made of: "<tag><p0>\x1f<p1>...". Looked up
/// without building the string (the tables hash and compare the pieces as if joined).
struct KeyParts {
  char tag = 0;  ///< 0 = none
  std::array<std::string_view, 4> parts{};
  uint8_t count = 0;
  void appendTo(std::string& out) const;
};
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view key) const;
  size_t operator()(const KeyParts& key) const;
};
struct KeyEqual {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  bool operator()(const KeyParts& a, std::string_view b) const;
  bool operator()(std::string_view a, const KeyParts& b) const { return (*this)(b, a); }
};

class History {
 public:
  static constexpr uint16_t kCoarseSlots = 60;
  static const FamilyDef kRefreshFamily;

  /// One NIC source whose counters latch together: an interface's ethtool stats, a port's
  /// hw_counters, ... Its refresh period is learned from its fastest-moving series.
  struct Group {
    SeriesPtr gauge;   ///< fabricmon_counter_refresh_seconds of this source
    Nanos refresh = 0;
    Nanos assigned = 0;  ///< the refresh its members were last given (learnRefresh)
    bool live = false;  ///< has a tracked series now
  };

  void setPlan(const HistoryPlan& plan);
  /// Ingests the batches of `snapshot` not seen yet; frees series whose collector published a batch
  /// without them, or whose collector left the snapshot. Returns true when anything changed.
  bool ingest(const Snapshot& snapshot);

  /// Series of one family, in no particular order.
  std::span<Tracked* const> family(Fam fam) const;
  /// The ports the rules leave alone (empty under watchdog.judge_management). They are on the node:
  /// device_missing counts them present.
  const ManagementPorts* leftAlone() const { return plan_.judgeManagement ? nullptr : &management_; }
  /// The rules' subjects with handles to their series, rebuilt whenever a series appears or goes
  /// (in the ingest that frees it: no handle outlives its series).
  const Subjects& subjects() const { return subjects_; }
  /// A series by its key-label values (in InputFamily::keyLabels order). Hashes the pieces: for
  /// tests and one-off lookups; rules read through subjects().
  const Tracked* find(Fam fam, std::string_view a, std::string_view b = {}, std::string_view c = {},
                      std::string_view d = {}) const;
  size_t size() const { return tracked_.size(); }
  /// Series objects remembered by id (tracked or known to be no rule's input); bounded by the
  /// series the collectors report now plus those of the last 64 passes.
  size_t seriesObjects() const { return byId_.size(); }
  /// The NIC sources seen, indexed by Tracked::group.
  const std::vector<Group>& groups() const { return groups_; }

 private:
  void ingestBatch(const Batch& batch, uint16_t collector, uint32_t epoch);
  void update(Tracked& s, Nanos t, double v);
  void judgeRate(Tracked& s, RateJudgement& j, Nanos t, double delta, bool changed, bool reset);
  void learnRefresh();
  void compactGroups();
  uint32_t groupOf(const Series& series, std::string_view collector);
  void shape(Tracked& s) const;
  static KeyParts keyOf(Fam fam, std::string_view a, std::string_view b, std::string_view c, std::string_view d = {});

  void forgetStaleIds(const std::vector<uint16_t>& fresh);

  HistoryPlan plan_;
  // The tracked series by key: a Tracked never moves while tracked (handles and the subject index
  // point at it); the index hashes the key each Tracked holds.
  struct TrackedSlot {
    static bool live(const Tracked& s) { return s.series != nullptr; }
    static std::string_view key(const Tracked& s) { return s.key(); }
    template <class Q>
    static size_t home(const Q& key, uint8_t bits) {
      return KeyHash{}(key) & ((size_t{1} << bits) - 1);
    }
    static bool equal(const KeyParts& key, const Tracked& s) { return KeyEqual{}(key, s.key()); }
  };
  Tracked* lookup(const KeyParts& key) const { return tracked_.find(key); }
  Tracked& insert(const KeyParts& key);
  template <class F>
  void forEachTracked(F&& f) {
    tracked_.forEach(f);
  }
  SlotPool<Tracked, TrackedSlot, 256> tracked_;
  /// Series objects seen, by Series::id: the Tracked each feeds (nullptr: not an input of any rule),
  /// so a known series costs one integer lookup per sample, not a key string and a family lookup.
  struct SeenSeries {
    uint64_t id = 0;
    Tracked* tracked = nullptr;
    const Series* object = nullptr;  ///< the series object of this id (see positions)
    uint32_t epoch = 0;
    uint16_t collector = 0;
    bool used = false;               ///< false: a free slot
  };
  struct SeenSlot {
    static bool live(const SeenSeries& e) { return e.used; }
    static uint64_t key(const SeenSeries& e) { return e.id; }
    static size_t home(uint64_t id, uint8_t bits) {
      // Fibonacci hashing: ids are handed out in sequence, and their low bits alone would cluster.
      return static_cast<size_t>((id * 0x9E3779B97F4A7C15ull) >> (64 - bits));
    }
    static bool equal(uint64_t id, const SeenSeries& e) { return e.id == id; }
  };
  /// An entry never moves: positions point at it.
  SlotPool<SeenSeries, SeenSlot, 512> byId_;
  unsigned passesSinceIdSweep_ = 0;
  std::array<std::vector<Tracked*>, kFamCount> byFamily_;
  bool indexDirty_ = false;
  bool newCounters_ = false;  ///< a counter was tracked since the last learnRefresh
  Subjects subjects_;
  /// What sample i of a collector's previous batch was (CollectorSeen::positions): a collector emits
  /// its samples in the same order poll after poll, so the next batch's sample i is found without a
  /// hash lookup, or even a read of the series object, when it is the same object. The previous
  /// batch is held while the next one is ingested, so an equal address is the same live object.
  /// Cleared whenever ids are forgotten or the batch is let go (no pointer outlives its target).
  using Position = SeenSeries*;
  struct CollectorSeen {
    std::string name;
    BatchPtr last;
    uint32_t epoch = 0;
    bool present = false;
    std::vector<Position> positions;
    /// The rings of its series by window: pushed at its batches' instants, they share times.
    std::vector<std::pair<Nanos, CoarseRing::Cohort>> cohorts;
  };
  CoarseRing::Cohort* cohortFor(uint16_t collector, Nanos width);
  void forgetPositions();
  std::vector<CollectorSeen> collectors_;
  std::vector<Group> groups_;
  std::unordered_map<std::string, uint32_t, KeyHash, KeyEqual> groupIds_;
  ManagementPorts management_;
  std::string scratch_;
};

}  // namespace fabricmon::watchdog
