#pragma once
// Parser for the text `ethtool -S <if>` prints (ethtool.c do_gnicstats: "NIC statistics:\n" then
// "     %.*s: %llu\n" per stat), the format of the files behind --ethtool-dir (CONTRACT §2).

#include <string_view>

#include "collectors/sources/ethtool_source.hpp"
#include "model/result.hpp"

namespace fabricmon {

/// Parses `ethtool -S` output. Names are trimmed (one mlx5 driver build printed a trailing space)
/// and may contain inner spaces or dots; the value is the text after the last ':'. Blank lines are
/// ignored. A line that is not `name: value` (or a repeated name) becomes an entry of `issues`
/// and the other lines still count. Whole-input errors (EINVAL/ENODATA): empty text, no
/// `NIC statistics:` line, or no stat at all.
Result<EthtoolStats> parseEthtoolText(std::string_view text);

}  // namespace fabricmon
