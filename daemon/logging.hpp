#pragma once

#include <spdlog/common.h>
#include <spdlog/formatter.h>

#include <memory>
#include <string>

namespace fabricmon {

/// Logs to stderr. Under systemd (stderr is the journal stream) every line starts with `<N>`, the
/// syslog priority, and has no timestamp: journald adds its own and files the line at priority N,
/// so `journalctl -p warning` finds warnings.
void setupLogging(const std::string& level);
void setLogLevel(const std::string& level);

/// The formatter setupLogging installs; `journal` picks the `<N>` form. Exposed for tests.
std::unique_ptr<spdlog::formatter> makeLogFormatter(bool journal);
/// syslog(3) priority of a level: critical 2, error 3, warning 4, info 6, debug and trace 7.
int syslogPriority(spdlog::level::level_enum level);
/// True when stderr is the stream named by $JOURNAL_STREAM (systemd.exec(5)).
bool stderrIsJournal();

}  // namespace fabricmon
