#pragma once
// The exposition as a file for node_exporter's textfile collector (`textfile.path`): for sites
// that collect through node_exporter rather than scrape fabricmon directly.

#include <string>
#include <string_view>

#include "model/result.hpp"

namespace fabricmon {

/// Writes `text` to `path` atomically for readers: the bytes go to `<path>.tmp.<pid>` in the same
/// directory, are fsynced, and the temporary file is renamed over `path` (rename(2) replaces the
/// name in one step, so node_exporter sees the old file or the new one, never a part). The
/// temporary name does not end in ".prom", so the textfile collector never reads it. On failure
/// the temporary file is removed and the Error names the path and the failing call. Blocks on
/// disk I/O: call it off the I/O threads.
Status writeTextfile(const std::string& path, std::string_view text);

}  // namespace fabricmon
