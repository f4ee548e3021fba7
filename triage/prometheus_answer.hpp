#pragma once
// The Prometheus half of `fabricmon triage --prometheus` without the network: the queries it asks
// and how it reads the answers (Prometheus's HTTP API, /api/v1/query), so the reading of untrusted
// JSON can be tested and fuzzed on bodies alone (tests/fuzz/triage_json_fuzz.cpp).

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "model/result.hpp"
#include "triage/evidence.hpp"

namespace fabricmon::triage {

/// Answers one instant query (PromQL) with the body Prometheus sent, or the error of getting it.
using PrometheusGet = std::function<Result<std::string>(const std::string& promql)>;

/// What fetchPrometheus returns, with `matchers` the inside of the selector's braces and every query
/// answered by `get`.
Result<std::map<std::string, Evidence>> prometheusEvidence(const std::string& matchers, std::chrono::seconds window,
                                                           const PrometheusGet& get);

}  // namespace fabricmon::triage
