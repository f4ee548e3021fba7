#pragma once
// A watchdog finding as an Alertmanager v2 alert (api/v2/openapi.yaml, `postableAlert`), labelled
// exactly as the shipped Prometheus alert for its rule (deploy/prometheus/fabricmon.rules.yml):
// alertname Fabricmon<RuleInCamelCase>, the finding's labels, rule, severity, job and instance.
// Alertmanager identifies an alert by its label set, so the pushed alert and the one Prometheus
// sends are the same alert: routing, grouping and inhibition apply unchanged, and it is deduplicated.

#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include "model/finding.hpp"

namespace fabricmon {

/// "pause_storm" -> "FabricmonPauseStorm", the naming every watchdog alert of the rules file follows.
std::string alertNameFor(std::string_view rule);

/// What an alert says; labels sorted by name (the identity of the alert).
struct PushedAlert {
  Labels labels;
  Labels annotations;
  std::chrono::system_clock::time_point startsAt;
};

/// The alert of `finding` as the node `instance` of `job` would raise it.
PushedAlert alertFor(const Finding& finding, std::string_view job, std::string_view instance);

/// `labels` as one string, the key of an alert (labels are sorted).
std::string alertKey(const Labels& labels);

/// The JSON body of POST /api/v2/alerts. `endsAt` is each alert's end: the time it cleared, or for
/// an active alert a time after which Alertmanager resolves it unless it is re-sent.
struct AlertToSend {
  const PushedAlert* alert;
  std::chrono::system_clock::time_point endsAt;
};
std::string renderAlertsJson(std::span<const AlertToSend> alerts, std::string_view generatorUrl);

}  // namespace fabricmon
