#pragma once
// A watchdog finding: produced by watchdog/, rendered by exporters/ (metrics, JSON) and logged.

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/sample.hpp"

namespace fabricmon {

enum class Severity { kInfo, kWarning, kCritical };

inline std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kCritical: return "critical";
  }
  return "unknown";
}

struct Finding {
  std::string rule;  ///< docs/contract.md §5 name: pause_storm, dcqcn_misconfig, ...
  Severity severity = Severity::kWarning;
  Labels labels;         ///< device, port, interface, priority, reason (only those that apply)
  std::chrono::system_clock::time_point since;
  std::string summary;   ///< one line for a human
  std::vector<std::pair<std::string, double>> evidence;  ///< the numbers that made it fire
  /// The jobs running when it started ("4711 (alice)"): those on its port's GPUs where the GPU job
  /// map names them, else every job on the node; empty when none (or no slurm_jobs data).
  std::vector<std::string> jobs;
};

}  // namespace fabricmon
