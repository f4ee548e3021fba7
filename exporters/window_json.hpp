#pragma once
// /api/v1/window (docs/contract.md): the node's recent history summarised per series.
// GET /api/v1/window?seconds=N[&family=NAME][&device=D][&port=P][&interface=I][&points=1]
// {"seconds":N,"covered_seconds":..,"poll_seconds":..,"series":[{"name":..,"labels":{..},
//   "type":"counter"|"gauge","samples":..,"span_seconds":..,"increase":..,"rate":..,"peak_rate":..,
//   "refresh_seconds":..,"last":..,"min":..,"max":..[,"points":[[unix_seconds,value],..]]}]}

#include <string>
#include <string_view>

#include "model/result.hpp"
#include "window/recent_samples.hpp"

namespace fabricmon {

inline constexpr int kMaxWindowSeconds = 3600;
/// What /api/v1/window (404), the status page and triage say when window.enabled is false.
inline constexpr std::string_view kWindowOffReason =
    "the recent-sample window is off on this node (window.enabled: false or window.length: 0 in its "
    "configuration); judge it from Prometheus instead (fabricmon triage --prometheus)";

/// Parses the query string (without '?'). Unknown parameters, a seconds value outside
/// [1, kMaxWindowSeconds] or a family that is not kept are errors (400).
Result<RecentSamples::Query> parseWindowQuery(std::string_view query);

std::string renderWindowJson(const RecentSamples& recent, const RecentSamples::Query& query);

/// Appends a JSON number; non-finite values become null (RFC 8259 §6).
void appendJsonNumber(std::string& out, double value);

}  // namespace fabricmon
