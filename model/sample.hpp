#pragma once
// The sample model every component speaks: collectors produce Batches of Samples, the store keeps
// them, the watchdog judges them and the exporters render them.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabricmon {

/// kHistogram families are not sampled into batches: their owner renders them whole
/// (exporters/request_durations.hpp); the type is here so every family is listed the same way.
enum class MetricType { kCounter, kGauge, kHistogram };

/// A metric family: defined once, with static storage duration, and referenced by address from the
/// collector that emits it, the watchdog that reads it and the renderer. The collectors' families
/// live in model/families/, one file per group; fabricmon's own in the component that emits them.
struct FamilyDef {
  std::string_view name;
  std::string_view help;  ///< a real sentence: what the number is and where it comes from
  MetricType type;
  std::string_view unit =
      {};  ///< as docs/metrics.md's "unit" column: "bytes", "seconds", "0/1", ...
  std::string_view labels =
      {};  ///< label names, comma-separated, as every series of it carries them
};

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Series;

/// A series' labels, read in place: (name, value) pairs in the order they were made with. A series
/// keeps no copy of them when its key is plain (every name `[A-Za-z0-9_]`, every value printable
/// ASCII without `\` or `"`): they are read out of the key itself, which holds each name and value
/// verbatim. That is ~200 bytes less per series, a third of a series' memory (docs/benchmarks.md,
/// "Fifth pass").
class LabelView {
 public:
  using value_type = std::pair<std::string_view, std::string_view>;
  class iterator {
   public:
    using value_type = LabelView::value_type;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    const value_type& operator*() const { return cur_; }
    const value_type* operator->() const { return &cur_; }
    iterator& operator++() {
      advance();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      advance();
      return old;
    }
    bool operator==(const iterator& o) const { return pos_ == o.pos_; }

   private:
    friend class LabelView;
    iterator(const Series* s, size_t pos) : series_(s), pos_(pos) { load(); }
    void advance();
    void load();
    const Series* series_ = nullptr;
    size_t pos_ = 0;  ///< plain: offset in the key of this label's name; else index into the copy
    size_t next_ = 0;
    value_type cur_;
  };

  explicit LabelView(const Series& s) : series_(&s) {}
  iterator begin() const;
  iterator end() const;
  bool empty() const { return begin() == end(); }
  size_t size() const;
  /// An owned copy (a map key, a new series' labels).
  Labels copy() const;

 private:
  const Series* series_;
};

/// One time series: a family plus its label values. Built once per series (never per poll) and
/// shared between batches, so the hot path only copies a pointer.
struct Series {
  const FamilyDef* family;
  std::string key;  ///< canonical `name{a="x",b="y"}` (values escaped), unique per series
  /// The series' identity, computed once when it is made: every makeSeries call with the same
  /// family and labels returns the same object, with this id, while any of them is alive; an id is
  /// never reused. The watchdog's history, its recent samples and the renderer's duplicate check
  /// key by it instead of rebuilding or hashing a string per sample.
  uint64_t id = 0;
  /// The labels as given, kept only when the key is not plain (values that the key escapes).
  std::unique_ptr<const Labels> escaped;

  /// Every label name is `[A-Za-z0-9_]` and every value printable ASCII without `\` or `"`: `key`
  /// is then, byte for byte, the series' line head in the text format (no escaping, valid UTF-8),
  /// the renderer copies it, and the labels are read out of it (LabelView).
  bool plainKey() const { return escaped == nullptr; }
  LabelView labels() const { return LabelView(*this); }
  std::string_view label(std::string_view name) const;  ///< "" when absent
};
using SeriesPtr = std::shared_ptr<const Series>;

SeriesPtr makeSeries(const FamilyDef& family, Labels labels);

/// One value of a series in a batch. The series is kept alive by the batch's roster
/// (Batch::roster), not by the sample: adding a sample and freeing a batch then touch no reference
/// count, which at 128 devices was one atomic operation on a cold cache line per sample, twice
/// (docs/benchmarks.md, "Thirteenth pass"). A batch's samples are written through a SampleWriter,
/// which keeps the roster; a sample built by hand owns nothing.
struct Sample {
  const Series* series;
  double value;
};

/// The series of a batch's samples, owned, in sample order (series[i] is samples[i]'s). A producer
/// whose series are the same objects in the same order as in its last batch shares that batch's
/// roster instead of building one, so a steady collector touches no reference count per sample.
struct SeriesRoster {
  std::vector<SeriesPtr> series;
};
using SeriesRosterPtr = std::shared_ptr<const SeriesRoster>;

/// Text that belongs to a series but is no label (a label would make every new text a new
/// series): the kernel log record behind a fabricmon_nic_driver_last_record_timestamp_seconds series. The renderer
/// never shows it; the watchdog keeps the latest per series for its findings' summaries.
struct Note {
  SeriesPtr series;
  std::string text;
};

/// The immutable result of one collector run.
struct Batch {
  std::string collector;
  std::chrono::steady_clock::time_point monotonic;  ///< when the run started; rates use this
  std::chrono::system_clock::time_point wall;
  uint64_t topologyGeneration = 0;  ///< the discovery result the run worked from
  std::vector<Sample> samples;
  /// Keeps every series of `samples` alive: roster->series[i] owns samples[i].series. It may hold
  /// more entries than there are samples (a writer not finished), never fewer; null only while
  /// there are no samples.
  SeriesRosterPtr roster;
  /// seriesFingerprint(samples), set by the runner that made the batch (model/series_clash.hpp);
  /// 0 when nobody computed it.
  uint64_t seriesFingerprint = 0;
  std::vector<Note> notes;  ///< at most one per series of `samples`
  /// Series this run could not read (a file read failed or its text was out of range, a module's
  /// EEPROM did not answer, a port backing off): they still exist and have no value this run. They
  /// are not rendered, and the watchdog holds their history and findings as they were instead of
  /// forgetting them as vanished (docs/architecture.md, "An unread series is not a vanished one").
  std::vector<SeriesPtr> unread;

  /// The owning pointer of samples[i]'s series (to keep it beyond the batch).
  const SeriesPtr& seriesAt(size_t i) const { return roster->series[i]; }
};
using BatchPtr = std::shared_ptr<const Batch>;

/// Appends samples to a batch and keeps their series alive in its roster. Given the producer's
/// previous roster, it shares it for as long as the series come in the same order as objects of
/// it (a pointer comparison per sample, no reference count); at the first difference it copies the
/// matched part and goes on in a roster of its own.
class SampleWriter {
 public:
  /// `batch` has no samples yet.
  explicit SampleWriter(Batch& batch, SeriesRosterPtr previous = nullptr);
  SampleWriter(const SampleWriter&) = delete;
  SampleWriter& operator=(const SampleWriter&) = delete;

  void add(const SeriesPtr& series, double value);
  /// Ends the batch: its roster then holds exactly its samples' series. Returns the roster, which
  /// is the same object as `previous` when nothing differed (the producer's next `previous`).
  const SeriesRosterPtr& finish();
  /// True when finish() found the previous roster unchanged (same series, same order, same count).
  bool reused() const { return reused_; }

 private:
  void diverge();
  Batch& batch_;
  SeriesRosterPtr previous_;
  std::shared_ptr<SeriesRoster> own_;  ///< null while the batch shares previous_
  size_t matched_ = 0;                 ///< samples added that matched previous_ (while shared)
  bool reused_ = false;
};

}  // namespace fabricmon
