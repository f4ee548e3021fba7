#pragma once
// The YAML form of one interface's DCB configuration (docs/contract.md §2), parsed strictly so a
// typo is an error for that poll rather than a silently different configuration.

#include <string_view>

#include "collectors/sources/dcb_source.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// Parses `<dcb_dir>/<ifname>`:
///   pfc_enabled: [3]                  # required; priorities 0-7 with PFC on, [] = none
///   trust: dscp                       # optional; dscp | pcp
///   dscp_to_priority: {26: 3, 48: 6}  # optional; DSCP 0-63 -> priority 0-7
/// and, so that files can stand in for everything netlink reports, the optional
///   pfc_requests: [8 counters]  pfc_indications: [8 counters]  dcbx_mode: <u8>
///   storm_prevention_timeout_ms: <ms>
/// Any other key, a wrong type or an out-of-range number is an Error. Never throws.
Result<DcbInfo> parseDcbYaml(std::string_view text);

}  // namespace fabricmon
