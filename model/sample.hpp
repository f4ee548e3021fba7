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

/// One time series: a family plus its label values. Built once per series (never per poll) and
/// shared between batches, so the hot path only copies a pointer.
struct Series {
  const FamilyDef* family;
  Labels labels;
  std::string key;  ///< canonical `name{a="x",b="y"}` (values escaped), unique per series
  /// The label values are printable ASCII without `\` or `"`: `key` is then, byte for byte, the
  /// series' line head in the text format (no escaping, valid UTF-8), and the renderer copies it.
  bool plainKey = false;
  /// The series' identity, computed once when it is made: every makeSeries call with the same
  /// family and labels returns the same object, with this id, while any of them is alive; an id is
  /// never reused. The watchdog's history, its recent samples and the renderer's duplicate check
  /// key by it instead of rebuilding or hashing a string per sample.
  uint64_t id = 0;

  std::string_view label(std::string_view name) const;  ///< "" when absent
};
using SeriesPtr = std::shared_ptr<const Series>;

SeriesPtr makeSeries(const FamilyDef& family, Labels labels);

struct Sample {
  SeriesPtr series;
  double value;
};

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
  /// seriesFingerprint(samples), set by the runner that made the batch (model/series_clash.hpp);
  /// 0 when nobody computed it.
  uint64_t seriesFingerprint = 0;
  std::vector<Note> notes;  ///< at most one per series of `samples`
};
using BatchPtr = std::shared_ptr<const Batch>;

}  // namespace fabricmon
