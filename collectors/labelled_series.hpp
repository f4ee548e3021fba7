#pragma once
// Info-style series whose labels are the data (fabricmon_port_topology_info,
// fabricmon_port_neighbor_info): the same labels give the same interned series object from run to
// run, and a label set not emitted in a run is forgotten at its end (a device gone, a neighbour
// re-cabled), so its series leaves /metrics with the next batch.

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "model/sample.hpp"

namespace fabricmon {

class LabelledSeries {
 public:
  /// The series of `family` with exactly these labels, created at its first use.
  SeriesPtr get(const FamilyDef& family, Labels labels) {
    std::string key(family.name);
    for (const auto& [k, v] : labels) key += fmt::format("\x1f{}\x1e{}", k, v);
    auto [it, inserted] = series_.try_emplace(std::move(key));
    if (inserted) it->second.first = makeSeries(family, std::move(labels));
    it->second.second = run_;
    return it->second.first;
  }
  /// Ends a run: forgets the series not asked for since the previous endRun().
  void endRun() {
    std::erase_if(series_, [&](const auto& kv) { return kv.second.second != run_; });
    ++run_;
  }
  size_t size() const { return series_.size(); }

 private:
  std::map<std::string, std::pair<SeriesPtr, uint64_t>> series_;
  uint64_t run_ = 0;
};

}  // namespace fabricmon
