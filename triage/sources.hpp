#pragma once
// Where triage gets its evidence: one node's own endpoints, or a Prometheus that scrapes many.

#include <chrono>
#include <map>
#include <string>

#include "outbound/http_client.hpp"
#include "model/result.hpp"
#include "triage/evidence.hpp"

namespace fabricmon::triage {

/// GET /api/v1/window?seconds=N and /api/v1/findings of the node at `baseUrl`.
Result<Evidence> fetchNode(const std::string& baseUrl, std::chrono::seconds window, const HttpClientOptions& client);

/// Per instance, over `window` ending now: findings seen (fabricmon_watchdog_active), increases and
/// peak 1 m rates of the counters the checks read, latest values of their gauges. `selector` is a
/// PromQL selector in braces ("{job=\"fabricmon\"}"), applied to every query.
Result<std::map<std::string, Evidence>> fetchPrometheus(const std::string& baseUrl, const std::string& selector,
                                                        std::chrono::seconds window, const HttpClientOptions& client);

/// The matchers inside a selector's braces ("{a=\"b\"}" -> "a=\"b\""); an error when it is not one.
Result<std::string> selectorMatchers(const std::string& selector);

}  // namespace fabricmon::triage
