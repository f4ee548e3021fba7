#pragma once
// /api/v1/window (docs/contract.md): the node's recent history summarised per series.
// GET /api/v1/window?seconds=N[&family=NAME][&points=1]
// {"seconds":N,"covered_seconds":..,"poll_seconds":..,"series":[{"name":..,"labels":{..},
//   "type":"counter"|"gauge","samples":..,"span_seconds":..,"increase":..,"rate":..,"peak_rate":..,
//   "refresh_seconds":..,"last":..,"min":..,"max":..[,"points":[[unix_seconds,value],..]]}]}

#include <string>
#include <string_view>

#include "model/result.hpp"
#include "watchdog/recent_samples.hpp"

namespace fabricmon {

inline constexpr int kMaxWindowSeconds = 3600;

/// Parses the query string (without '?'). Unknown parameters, a seconds value outside
/// [1, kMaxWindowSeconds] or a family that is not kept are errors (400).
Result<RecentSamples::Query> parseWindowQuery(std::string_view query);

std::string renderWindowJson(const RecentSamples& recent, const RecentSamples::Query& query);

/// Appends a JSON number; non-finite values become null (RFC 8259 §6).
void appendJsonNumber(std::string& out, double value);

}  // namespace fabricmon
