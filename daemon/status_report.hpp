#pragma once
// /api/v1/status gathered at each request: what sampling knows (collector health, the recent-sample
// window, the latest kernel-log batch, the findings) and what the daemon is (build, start time, the
// configuration in force, TLS and auth of the listener that asks), rendered by renderStatusJson.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "config/config.hpp"

namespace fabricmon {

class Sampler;

class StatusReport {
 public:
  /// `sampler` must outlive the report; `started` is when the daemon started.
  StatusReport(const Sampler& sampler, std::chrono::steady_clock::time_point started);

  /// The configuration shown from now on: after the start and after every reload that commits.
  void show(const Config& config);

  /// The body of /api/v1/status, for a listener with or without TLS and basic auth.
  std::string render(bool tls, bool auth) const;

 private:
  const Sampler& sampler_;
  const std::chrono::steady_clock::time_point started_;
  mutable std::mutex mutex_;  // HTTP threads read shown_
  std::shared_ptr<const Config> shown_;
};

}  // namespace fabricmon
