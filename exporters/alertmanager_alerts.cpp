#include "exporters/alertmanager_alerts.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>

#include "exporters/findings_json.hpp"

namespace fabricmon {
namespace {

// The anchors of docs/runbook.md's "Alerts" section, as the rules file links them.
constexpr std::string_view kRunbookBase = "https://github.com/fabricmon/fabricmon/blob/main/docs/runbook.md#";

void appendTime(std::string& out, std::chrono::system_clock::time_point tp) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(tp.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[48];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  out += '"';
  out.append(buf, n);
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03dZ", static_cast<int>(((ms % 1000) + 1000) % 1000));
  out += frac;
  out += '"';
}

void appendLabels(std::string& out, const Labels& labels) {
  out += '{';
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ',';
    appendJsonString(out, labels[i].first);
    out += ':';
    appendJsonString(out, labels[i].second);
  }
  out += '}';
}

}  // namespace

std::string alertNameFor(std::string_view rule) {
  std::string name = "Fabricmon";
  bool upper = true;
  for (const char c : rule) {
    if (c == '_') {
      upper = true;
      continue;
    }
    name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return name;
}

PushedAlert alertFor(const Finding& finding, std::string_view job, std::string_view instance) {
  PushedAlert a;
  a.labels.emplace_back("alertname", alertNameFor(finding.rule));
  a.labels.emplace_back("rule", finding.rule);
  a.labels.emplace_back("severity", std::string(severityName(finding.severity)));
  a.labels.emplace_back("job", std::string(job));
  a.labels.emplace_back("instance", std::string(instance));
  // Prometheus drops empty labels from an alert; so do we, or the label sets would differ.
  for (const auto& [name, value] : finding.labels) {
    if (!value.empty()) a.labels.emplace_back(name, value);
  }
  std::sort(a.labels.begin(), a.labels.end());
  a.labels.erase(std::unique(a.labels.begin(), a.labels.end(),
                             [](const auto& x, const auto& y) { return x.first == y.first; }),
                 a.labels.end());
  std::string anchor(finding.rule);
  std::replace(anchor.begin(), anchor.end(), '_', '-');
  a.annotations.emplace_back("summary", finding.summary);
  a.annotations.emplace_back("runbook_url", std::string(kRunbookBase) + anchor);
  std::string evidence;
  for (const auto& [name, value] : finding.evidence) {
    if (!evidence.empty()) evidence += ", ";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    evidence += name + "=" + buf;
  }
  a.annotations.emplace_back("description", "Pushed by fabricmon on " + std::string(instance) +
                                                ". Evidence: " + (evidence.empty() ? "none" : evidence));
  if (!finding.jobs.empty()) {
    // Which jobs the fault hit, for the page: running on its port's GPUs (else on the node) when it started.
    std::string jobs;
    for (const auto& j : finding.jobs) jobs += (jobs.empty() ? "" : ", ") + j;
    a.annotations.emplace_back("jobs", jobs);
  }
  a.startsAt = finding.since;
  return a;
}

std::string alertKey(const Labels& labels) {
  std::string key;
  for (const auto& [name, value] : labels) {
    key += name;
    key += '\x1f';
    key += value;
    key += '\x1e';
  }
  return key;
}

std::string renderAlertsJson(std::span<const AlertToSend> alerts, std::string_view generatorUrl) {
  std::string out = "[";
  for (size_t i = 0; i < alerts.size(); ++i) {
    const PushedAlert& a = *alerts[i].alert;
    if (i > 0) out += ',';
    out += "{\"labels\":";
    appendLabels(out, a.labels);
    out += ",\"annotations\":";
    appendLabels(out, a.annotations);
    out += ",\"startsAt\":";
    appendTime(out, a.startsAt);
    out += ",\"endsAt\":";
    appendTime(out, alerts[i].endsAt);
    out += ",\"generatorURL\":";
    appendJsonString(out, generatorUrl);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace fabricmon
