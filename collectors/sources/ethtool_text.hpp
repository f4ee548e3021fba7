#pragma once
// Parser for the text `ethtool -S <if>` prints (ethtool.c do_gnicstats: "NIC statistics:\n" then
// "     %.*s: %llu\n" per stat), the format of the files behind --ethtool-dir (docs/contract.md
// §2).

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

/// The same parse into `out` in place, for a caller that keeps one EthtoolStats per interface:
/// while the names come in the order `out` already holds, only the values are written (no
/// allocation, no duplicate check — `out` must be empty or a previous result of this parser, so
/// its names are unique). From the first differing name on, names are rewritten and checked for
/// repeats. Sets `out.namesUnchanged`. On error `out` is left empty.
Status parseEthtoolTextInto(std::string_view text, EthtoolStats& out);

}  // namespace fabricmon
