#pragma once
// /api/v1/status (docs/contract.md): what the status page shows besides findings and charts —
// build, configuration summary, collector health and the triage verdict over the node's own
// recent history (the same checks as `fabricmon triage`).

#include <chrono>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "daemon/collector_runner.hpp"
#include "model/sample.hpp"
#include "window/recent_samples.hpp"

namespace fabricmon {

struct StatusInputs {
  std::string version, revision;
  std::chrono::steady_clock::time_point started;
  const Config* config = nullptr;
  bool tls = false, auth = false;
  std::vector<CollectorHealth> collectors;
  const RecentSamples* recent = nullptr;
  std::string findingsJson;
  /// The latest batch of the nic_driver_log collector (null when it has none): the last driver
  /// record of each pattern per port, with its text (the batch's notes).
  BatchPtr driverLog;
};

std::string renderStatusJson(const StatusInputs& in);

}  // namespace fabricmon
