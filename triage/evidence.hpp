#pragma once
// What triage judges, whatever the source: per-series numbers over a window and the findings seen
// in it. A node fills it from /api/v1/window and /api/v1/findings; Prometheus from PromQL over the
// raw series and fabricmon_watchdog_active (`fetchPrometheus` in triage/sources.hpp).

#include <map>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fabricmon::triage {

struct SeriesStat {
  std::string name;
  std::map<std::string, std::string> labels;
  bool counter = true;
  double increase = 0;  ///< counters: over the window
  double rate = 0;      ///< counters: average per second over the window
  double peakRate = 0;  ///< counters: the highest short-term rate seen (1 s on a node, 1 m in Prometheus)
  double last = 0;      ///< gauges
  std::string label(const std::string& name) const;
};

struct FindingSeen {
  std::string rule, severity, summary;
  std::map<std::string, std::string> labels;  ///< device, port, interface, priority, reason
  std::vector<std::pair<std::string, double>> evidence;
  std::vector<std::string> jobs;  ///< the jobs running on its port/node when it started ("4711 (alice)")
  std::string label(const std::string& name) const;
};

struct Evidence {
  std::string source;       ///< "http://host:19110", or the instance label
  double windowSeconds = 0;
  std::vector<SeriesStat> series;
  std::vector<FindingSeen> findings;

  /// Series of one family.
  std::vector<const SeriesStat*> family(const std::string& name) const;
  bool has(const std::string& name) const;
};

/// From the bodies of /api/v1/window and /api/v1/findings. A body that is not what the contract
/// says is an error naming the endpoint.
Result<Evidence> parseNodeEvidence(const std::string& windowJson, const std::string& findingsJson);

}  // namespace fabricmon::triage
