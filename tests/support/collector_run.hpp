#pragma once
// One run of a collector as a test reads it: its status, every sample by series key, the errors it
// counted. For tests that drive a real collector over a tree made in the test.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "collectors/collector.hpp"
#include "collectors/error_tracker.hpp"

namespace fabricmon::testing {

struct CollectorRun {
  CollectStatus status = CollectStatus::kFailed;
  std::map<std::string, double> byKey;  ///< value by series key
  uint64_t errors = 0;                  ///< errors counted in this run
  size_t samples = 0;                   ///< samples emitted (byKey would hide a duplicate)
  std::set<std::string> unread;         ///< Batch::unread, by series key
};

inline CollectorRun runCollector(Collector& collector, const Topology& topology, ErrorTracker& errors) {
  Batch batch;
  CollectOutput out(batch, errors);
  CollectorRun r;
  r.status = collector.collect(topology, out);
  for (const Sample& s : batch.samples) r.byKey[s.series->key] = s.value;
  r.samples = batch.samples.size();
  for (const SeriesPtr& s : batch.unread) r.unread.insert(s->key);
  r.errors = out.errorCount();
  return r;
}

}  // namespace fabricmon::testing
