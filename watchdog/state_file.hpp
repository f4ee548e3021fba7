#pragma once
// The watchdog's state file (docs/deployment.md, "State directory"): what must outlive a restart or
// an upgrade — rules' persistent memory (RuleDef::saveState, e.g. link_ber's day-long BER baseline)
// and the recurrence history of findings. One small JSON document, versioned, written atomically
// (a temporary file in the same directory, fsync, rename, fsync of the directory), so a crash
// leaves either the old file or the new one. A file that cannot be read or parsed, or is of another
// version, is ignored with one logged warning: the watchdog starts fresh, as without a file.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/result.hpp"

namespace fabricmon::watchdog {

inline constexpr int kStateVersion = 1;
/// Larger than any state fabricmon writes (a few KiB per port for link_ber, up to ~20 KiB per port with
/// optics_degraded's 16 lane baselines): a bigger file is not ours.
inline constexpr size_t kMaxStateFile = 16 * 1024 * 1024;

/// The document in `path`; std::nullopt when there is no file (first start). An Error when it exists
/// but cannot be used (unreadable, not JSON, another version, too large).
Result<std::optional<nlohmann::json>> readStateFile(const std::string& path);
/// Writes `doc` (with "version" set) to `path` atomically.
Status writeStateFile(const std::string& path, nlohmann::json doc);

}  // namespace fabricmon::watchdog
