#include "daemon/status_json.hpp"

#include <unistd.h>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "config/duration.hpp"
#include "exporters/window_json.hpp"
#include "triage/checks.hpp"
#include "model/families/nic.hpp"
#include "triage/report.hpp"
#include "watchdog/rules/nic_driver_error.hpp"

namespace fabricmon {

std::string renderStatusJson(const StatusInputs& in) {
  using nlohmann::json;
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  const auto now = std::chrono::steady_clock::now();
  const double wallNow = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  json collectors = json::array();
  for (const auto& c : in.collectors) {
    collectors.push_back({{"name", c.name},
                          {"up", c.up},
                          {"errors", c.errorsTotal},
                          {"last_success_age_seconds",
                           c.lastSuccessUnixSeconds > 0 ? json(wallNow - c.lastSuccessUnixSeconds) : json(nullptr)}});
  }
  json config = json::object();
  if (in.config) {
    const Config& c = *in.config;
    config = {{"listen", c.web.listen},
              {"tls", in.tls},
              {"basic auth", in.auth},
              {"poll interval", formatDuration(c.poll.interval)},
              {"slow poll interval", formatDuration(c.poll.slowInterval)},
              {"watchdog peak window", formatDuration(c.watchdog.peakWindow)},
              {"recent-sample window", c.window.on() ? formatDuration(c.window.length) : std::string("off")},
              {"alertmanager push", c.alertmanager.enabled() ? std::to_string(c.alertmanager.urls.size()) + " URL(s)"
                                                             : std::string("off")}};
  }
  // The verdict is judged from the same JSON a remote `fabricmon triage` reads, so both agree.
  json verdict = nullptr;
  if (in.recent) {
    RecentSamples::Query q;
    q.window = std::chrono::seconds(300);
    auto ev = triage::parseNodeEvidence(renderWindowJson(*in.recent, q), in.findingsJson);
    if (ev) {
      ev->source = "this node";
      verdict = json::parse(triage::renderJson(triage::judge(*ev)));
    }
  }
  // The last kernel log record of each pattern per port (the status page's "NIC driver records").
  json driverRecords = json::array();
  if (in.driverLog) {
    std::map<Labels, double> counts;
    std::map<uint64_t, const std::string*> notes;  // the record's text, on the last-record series
    for (const Note& n : in.driverLog->notes) {
      if (n.series) notes[n.series->id] = &n.text;
    }
    for (const Sample& s : in.driverLog->samples) {
      if (s.series->family == &families::nic::kDriverRecords) counts[s.series->labels().copy()] = s.value;
    }
    for (const Sample& s : in.driverLog->samples) {
      if (s.series->family != &families::nic::kDriverLastRecord || !std::isfinite(s.value)) continue;
      json r = json::object();
      for (const auto& [k, v] : s.series->labels()) r[std::string(k)] = v;
      r["last_unix_seconds"] = s.value;
      r["age_seconds"] = wallNow - s.value;
      const auto c = counts.find(s.series->labels().copy());
      r["count"] = c == counts.end() ? 0.0 : c->second;
      // Escaped like a finding's text: ASCII only, so the JSON is valid whatever the log held.
      const auto note = notes.find(s.series->id);
      r["text"] = note == notes.end() ? std::string() : watchdog::findingText(*note->second, 300);
      driverRecords.push_back(std::move(r));
    }
  }
  json window = {{"enabled", in.recent != nullptr}};
  if (in.recent) {
    const auto u = in.recent->usage();
    window["length_seconds"] = std::chrono::duration<double>(in.recent->length()).count();
    window["bytes"] = u.bytes;
    window["samples"] = u.samples;
  } else {
    window["note"] = std::string(kWindowOffReason);
  }
  json out = {{"version", in.version},
              {"revision", in.revision},
              {"hostname", host},
              {"uptime_seconds", std::chrono::duration<double>(now - in.started).count()},
              {"config", config},
              {"collectors", collectors},
              {"driver_records", driverRecords},
              {"verdict", verdict},
              {"window", window}};
  return out.dump();
}

}  // namespace fabricmon
