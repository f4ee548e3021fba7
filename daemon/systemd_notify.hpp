#pragma once
// systemd notifications (sd_notify(3) protocol, spoken without libsystemd). Harmless no-ops when
// not started by systemd.

#include <chrono>
#include <optional>

namespace fabricmon {

void notifyReady();
void notifyReloading();
void notifyStopping();
/// Half of WATCHDOG_USEC when the systemd watchdog is enabled for us (sd_watchdog_enabled).
std::optional<std::chrono::microseconds> watchdogKeepAliveInterval();
void notifyWatchdog();

}  // namespace fabricmon
