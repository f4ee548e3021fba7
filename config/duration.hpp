#pragma once
// Durations as written in the config file and on the command line: `250ms`, `1s`, `2m`, `1h`,
// `1m30s` (the Prometheus duration syntax without d/w/y, which a sampling daemon never needs).

#include <string>
#include <string_view>

#include "config/config.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// Parses one or more `<integer><unit>` groups, units `h`, `m`, `s`, `ms`, each at most once and
/// from largest to smallest (`1h30m`, `1s500ms`). A bare `0` is zero. Rejects an empty string,
/// signs, fractions, whitespace, unknown or missing units and values beyond the range of Duration.
Result<Duration> parseDuration(std::string_view text);

/// The shortest canonical text of a duration (`1m30s`, `250ms`, `0s`); parseDuration reads it back
/// to the same value. Negative values get a leading `-` (parseDuration rejects those).
std::string formatDuration(Duration d);

}  // namespace fabricmon
