#pragma once
// Samples as a test writes them, each holding its series, put into a batch through the one way a
// batch gets samples (SampleWriter), so the batch keeps the series alive as a real one does.

#include <vector>

#include "model/sample.hpp"

namespace fabricmon::testing {

struct OwnedSample {
  SeriesPtr series;
  double value;
};

/// Writes `samples` into `batch` (no samples yet) and finishes its roster.
inline void writeSamples(Batch& batch, const std::vector<OwnedSample>& samples) {
  SampleWriter out(batch);
  for (const OwnedSample& s : samples) out.add(s.series, s.value);
  out.finish();
}

/// Appends one sample to `batch`, its roster growing with it: for a test that builds a batch one
/// sample at a time (it copies the roster at each call, which a test can afford).
inline void addSample(Batch& batch, const SeriesPtr& series, double value) {
  auto roster = std::make_shared<SeriesRoster>();
  if (batch.roster) roster->series = batch.roster->series;
  roster->series.resize(batch.samples.size());
  roster->series.push_back(series);
  batch.roster = std::move(roster);
  batch.samples.push_back(Sample{series.get(), value});
}

}  // namespace fabricmon::testing
