#pragma once
// The collector contract (after node_exporter's Update(ch) error): one small interface, one file
// per collector with its registry entry, listed in one explicit list (collectors/registry.cpp).

#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/topology.hpp"
#include "model/result.hpp"
#include "model/sample.hpp"

namespace fabricmon {

class ErrorTracker;

/// What a collector run writes into. Samples are appended in order; per-file errors are counted
/// (fabricmon_collector_errors_total) and logged once when they start and once when they stop.
class CollectOutput {
 public:
  /// Writes into `batch` (no samples yet). `previous`: the roster of the collector's last batch,
  /// shared while this run adds the same series in the same order (SampleWriter).
  explicit CollectOutput(Batch& batch, ErrorTracker& errors, SeriesRosterPtr previous = nullptr)
      : writer_(batch, std::move(previous)),
        samples_(batch.samples),
        notes_(batch.notes),
        unread_(batch.unread),
        errors_(errors) {}

  void add(const SeriesPtr& series, double value) { writer_.add(series, value); }
  /// Attaches text to a series added this run (Batch::notes).
  void note(const SeriesPtr& series, std::string text) { notes_.push_back(Note{series, std::move(text)}); }
  /// The samples added so far this run (a collector whose read of one unit failed halfway tells
  /// from them which of the unit's series it still gave).
  std::span<const Sample> samples() const { return samples_; }
  /// Ends the run's samples (SampleWriter::finish): the roster the next run is given as `previous`.
  const SeriesRosterPtr& finish() { return writer_.finish(); }
  /// finish() kept the previous roster: the run added the same series in the same order.
  bool sameSeries() const { return writer_.reused(); }
  /// A series that exists but has no value this run: its source could not be read (Batch::unread).
  /// Call it beside fileError() for the series the failed read would have given; a series its
  /// collector no longer has (a device gone) is simply not added.
  void unread(const SeriesPtr& series) {
    if (series) unread_.push_back(series);
  }
  /// One value could not be read this run. `key` identifies the file ("mlx5_0/1/counters/x").
  void fileError(std::string_view key, const Error& error);
  /// The value behind `key` was read fine (ends a logged failure, if any).
  void fileOk(std::string_view key);
  uint64_t errorCount() const { return errorCount_; }

 private:
  SampleWriter writer_;
  const std::vector<Sample>& samples_;
  std::vector<Note>& notes_;
  std::vector<SeriesPtr>& unread_;
  ErrorTracker& errors_;
  uint64_t errorCount_ = 0;
};

enum class CollectStatus {
  kOk,      ///< ran; individual files may still have failed (counted separately)
  kNoData,  ///< the hardware this collector reads is absent: not an error (logged at debug)
  kFailed,  ///< the run as a whole failed
};

class Collector {
 public:
  virtual ~Collector() = default;
  /// Stable name, used in config (`collectors.<name>`) and in fabricmon_collector_* labels. It is
  /// written once, in the collector's registry entry (collectors/registry.hpp, defined in the
  /// collector's .cpp), which names the collector it makes; a collector made outside the registry
  /// (peer_port over a given source, a test double) has no name.
  std::string_view name() const { return name_; }
  /// Every family this collector may emit; docs/metrics.md must list the same names.
  virtual std::span<const FamilyDef* const> families() const = 0;
  /// One run. Must not throw. `topology` is the latest discovery result.
  virtual CollectStatus collect(const Topology& topology, CollectOutput& out) = 0;

 protected:
  Collector() = default;
  /// For test doubles, which have no registry entry.
  explicit Collector(std::string name) : name_(std::move(name)) {}

 private:
  friend struct CollectorEntry;
  std::string name_;
};

}  // namespace fabricmon
