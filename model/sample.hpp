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

/// A metric family: defined once, with static storage duration, by the component that emits it.
struct FamilyDef {
  std::string_view name;
  std::string_view help;  ///< a real sentence: what the number is and where it comes from
  MetricType type;
};

using Labels = std::vector<std::pair<std::string, std::string>>;

/// One time series: a family plus its label values. Built once per series (never per poll) and
/// shared between batches, so the hot path only copies a pointer.
struct Series {
  const FamilyDef* family;
  Labels labels;
  std::string key;  ///< canonical `name{a="x",b="y"}`, unique per series; used for history lookups
  /// The label values are printable ASCII without `\` or `"`: `key` is then, byte for byte, the
  /// series' line head in the text format (no escaping, valid UTF-8), and the renderer copies it.
  bool plainKey = false;
  /// Unique per makeSeries call and never reused: the identity other components key per-series
  /// state by (the watchdog's history), instead of rebuilding a string from the labels per sample.
  uint64_t id = 0;

  std::string_view label(std::string_view name) const;  ///< "" when absent
};
using SeriesPtr = std::shared_ptr<const Series>;

SeriesPtr makeSeries(const FamilyDef& family, Labels labels);

struct Sample {
  SeriesPtr series;
  double value;
};

/// The immutable result of one collector run.
struct Batch {
  std::string collector;
  std::chrono::steady_clock::time_point monotonic;  ///< when the run started; rates use this
  std::chrono::system_clock::time_point wall;
  uint64_t topologyGeneration = 0;  ///< the discovery result the run worked from
  std::vector<Sample> samples;
};
using BatchPtr = std::shared_ptr<const Batch>;

}  // namespace fabricmon
