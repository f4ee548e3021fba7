#include "daemon/systemd_notify.hpp"

#include <systemd/sd-daemon.h>

namespace fabricmon {

void notifyReady() { sd_notify(0, "READY=1"); }
void notifyReloading() { sd_notify(0, "RELOADING=1"); }
void notifyStopping() { sd_notify(0, "STOPPING=1"); }
void notifyWatchdog() { sd_notify(0, "WATCHDOG=1"); }

std::optional<std::chrono::microseconds> watchdogKeepAliveInterval() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) return std::chrono::microseconds(usec / 2);
  return std::nullopt;
}

}  // namespace fabricmon
