#include "daemon/status_report.hpp"

#include "daemon/sampler.hpp"
#include "daemon/status_json.hpp"
#include "daemon/version.hpp"
#include "window/recent_samples.hpp"

namespace fabricmon {

StatusReport::StatusReport(const Sampler& sampler, std::chrono::steady_clock::time_point started)
    : sampler_(sampler), started_(started) {}

void StatusReport::show(const Config& config) {
  auto shown = std::make_shared<const Config>(config);
  std::lock_guard lock(mutex_);
  shown_ = std::move(shown);
}

std::string StatusReport::render(bool tls, bool auth) const {
  StatusInputs in;
  in.version = std::string(kVersion);
  in.revision = std::string(kRevision);
  in.started = started_;
  std::shared_ptr<const Config> shown;
  {
    std::lock_guard lock(mutex_);
    shown = shown_;
  }
  in.config = shown.get();
  in.tls = tls;
  in.auth = auth;
  in.collectors = sampler_.collectorHealth();
  const auto recent = sampler_.recent();  // kept alive for the render
  in.recent = recent.get();
  in.driverLog = sampler_.latestBatch("nic_driver_log");
  in.findingsJson = sampler_.pipeline().findingsJson();
  return renderStatusJson(in);
}

}  // namespace fabricmon
