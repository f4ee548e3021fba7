#pragma once
// The /api/v1/findings body (docs/contract.md §3):
// {"findings":[{"rule":..,"severity":..,"labels":{..},"since":"<RFC 3339 UTC>","since_unix":..,
//               "summary":..,"evidence":{name:number}[,"jobs":["4711 (alice)",..]]}]}

#include <span>
#include <string>
#include <string_view>

#include "model/finding.hpp"

namespace fabricmon {

/// Findings in the given order; non-finite evidence values become null.
std::string renderFindingsJson(std::span<const Finding> findings);

/// Appends `s` as a JSON string literal (RFC 8259 §7): quotes, backslash and control characters
/// escaped, ill-formed UTF-8 replaced by U+FFFD.
void appendJsonString(std::string& out, std::string_view s);

}  // namespace fabricmon
