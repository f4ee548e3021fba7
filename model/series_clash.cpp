#include "model/series_clash.hpp"

#include <unordered_map>

namespace fabricmon {

uint64_t seriesFingerprint(std::span<const Sample> samples) {
  // FNV-1a over the ids: ids are never reused, so a changed series set changes the digest.
  uint64_t h = 1469598103934665603ull;
  for (const Sample& s : samples) {
    h ^= s.series ? s.series->id : 0;
    h *= 1099511628211ull;
  }
  return h ^ samples.size();
}

std::vector<SeriesClash> findSeriesClashes(std::span<const BatchPtr> batches) {
  std::vector<SeriesClash> clashes;
  size_t total = 0;
  for (const BatchPtr& b : batches) total += b ? b->samples.size() : 0;
  std::unordered_map<uint64_t, const Batch*> owner;
  owner.reserve(total);
  for (const BatchPtr& b : batches) {
    if (!b) continue;
    for (size_t i = 0; i < b->samples.size(); ++i) {
      const Sample& s = b->samples[i];
      if (!s.series) continue;
      auto [it, inserted] = owner.try_emplace(s.series->id, b.get());
      if (!inserted) clashes.push_back(SeriesClash{b->seriesAt(i), it->second->collector, b->collector});
    }
  }
  return clashes;
}

}  // namespace fabricmon
