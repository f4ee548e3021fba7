#pragma once
// One series, one source: no two samples of one snapshot may carry the same series id. Two
// collectors (or one collector twice) emitting the same family and labels would otherwise reach the
// renderer, which can show only one of them, silently (docs/architecture.md, "One series, one
// source").

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/sample.hpp"

namespace fabricmon {

/// A series carried by more than one sample of a set of batches.
struct SeriesClash {
  SeriesPtr series;
  std::string first;   ///< collector of the first sample
  std::string second;  ///< collector of the repeat (the same collector when it repeats itself)
};

/// Order-sensitive digest of a batch's series ids: equal digests mean the same series in the same
/// order, so a snapshot made of unchanged batches need not be checked again.
uint64_t seriesFingerprint(std::span<const Sample> samples);

/// Every series that more than one sample of `batches` carries (each repeat once).
std::vector<SeriesClash> findSeriesClashes(std::span<const BatchPtr> batches);

}  // namespace fabricmon
