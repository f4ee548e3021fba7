#include "daemon/systemd_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

// The notification protocol of sd_notify(3), spoken directly instead of linking libsystemd (whose
// dependencies -- libgcrypt, liblz4, libzstd, liblzma, libcap -- were ~1 MiB of the daemon's
// resident memory for four calls). systemd documents the protocol as a stable interface (sd_notify(3),
// NOTES): one datagram of newline-separated assignments to the AF_UNIX socket named by $NOTIFY_SOCKET; a
// name starting with '@' is in the abstract namespace. Without $NOTIFY_SOCKET every call is a no-op.

namespace fabricmon {
namespace {

void notify(std::string_view state) {
  const char* socketName = std::getenv("NOTIFY_SOCKET");
  if (socketName == nullptr || socketName[0] == '\0') return;
  const std::string_view name(socketName);
  if (name[0] != '/' && name[0] != '@') return;  // vsock: and other transports are not spoken here
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (name.size() >= sizeof(addr.sun_path)) return;
  std::memcpy(addr.sun_path, name.data(), name.size());
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';
  // An abstract name's length is exactly its bytes; a path's includes the terminating NUL.
  const socklen_t length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size() +
                                                  (name[0] == '@' ? 0 : 1));
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  // Best effort, as sd_notify: a manager that is not listening must not stop the daemon.
  (void)sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&addr), length);
  close(fd);
}

bool parseUnsigned(const char* text, uint64_t& out) {
  if (text == nullptr || text[0] == '\0') return false;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

void notifyReady() { notify("READY=1"); }
void notifyReloading() { notify("RELOADING=1"); }
void notifyStopping() { notify("STOPPING=1"); }
void notifyWatchdog() { notify("WATCHDOG=1"); }

std::optional<std::chrono::microseconds> watchdogKeepAliveInterval() {
  // As sd_watchdog_enabled(3): WATCHDOG_USEC set and, when WATCHDOG_PID is set, naming this process.
  uint64_t usec = 0;
  if (!parseUnsigned(std::getenv("WATCHDOG_USEC"), usec) || usec == 0) return std::nullopt;
  if (const char* pid = std::getenv("WATCHDOG_PID"); pid != nullptr) {
    uint64_t value = 0;
    if (!parseUnsigned(pid, value) || value != static_cast<uint64_t>(getpid())) return std::nullopt;
  }
  return std::chrono::microseconds(usec / 2);
}

}  // namespace fabricmon
