#pragma once

#include <string>

namespace fabricmon {

/// Logs to stderr. Under systemd (JOURNAL_STREAM set) without timestamps: the journal adds its own.
void setupLogging(const std::string& level);
void setLogLevel(const std::string& level);

}  // namespace fabricmon
