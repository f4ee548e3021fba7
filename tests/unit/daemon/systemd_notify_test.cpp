// The sd_notify(3) protocol as the daemon speaks it without libsystemd: what a service manager
// listening on $NOTIFY_SOCKET receives, and when the watchdog keep-alive is asked for.
#include "daemon/systemd_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace fabricmon {
namespace {

/// A datagram socket standing in for the service manager; sets and restores NOTIFY_SOCKET.
class Manager {
 public:
  explicit Manager(bool abstract) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    socklen_t length = 0;
    if (abstract) {
      name_ = "@fabricmon-notify-test-" + std::to_string(getpid());
      std::memcpy(addr.sun_path + 1, name_.data() + 1, name_.size() - 1);
      length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name_.size());
    } else {
      name_ = (std::filesystem::temp_directory_path() / ("fabricmon-notify-" + std::to_string(getpid()))).string();
      std::filesystem::remove(name_);
      std::memcpy(addr.sun_path, name_.c_str(), name_.size() + 1);
      length = static_cast<socklen_t>(sizeof(addr));
    }
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), length), 0) << std::strerror(errno);
    timeval timeout{2, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    setenv("NOTIFY_SOCKET", name_.c_str(), 1);
  }
  ~Manager() {
    unsetenv("NOTIFY_SOCKET");
    close(fd_);
    if (name_[0] == '/') std::filesystem::remove(name_);
  }
  std::string receive() {
    char buf[256];
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    return n < 0 ? std::string("<nothing: ") + std::strerror(errno) + ">" : std::string(buf, static_cast<size_t>(n));
  }

 private:
  int fd_ = -1;
  std::string name_;
};

TEST(SystemdNotifyTest, EachStateIsOneDatagramToAPathSocket) {
  Manager manager(false);
  notifyReady();
  EXPECT_EQ(manager.receive(), "READY=1");
  notifyReloading();
  EXPECT_EQ(manager.receive(), "RELOADING=1");
  notifyWatchdog();
  EXPECT_EQ(manager.receive(), "WATCHDOG=1");
  notifyStopping();
  EXPECT_EQ(manager.receive(), "STOPPING=1");
}

TEST(SystemdNotifyTest, AnAtSignNamesTheAbstractNamespace) {
  Manager manager(true);
  notifyReady();
  EXPECT_EQ(manager.receive(), "READY=1");
}

TEST(SystemdNotifyTest, WithoutNotifySocketOrWithANameItCannotUseNothingHappens) {
  unsetenv("NOTIFY_SOCKET");
  notifyReady();  // must neither fail nor block
  setenv("NOTIFY_SOCKET", "relative/path", 1);
  notifyReady();
  setenv("NOTIFY_SOCKET", std::string(200, '/').c_str(), 1);  // longer than sun_path
  notifyReady();
  unsetenv("NOTIFY_SOCKET");
}

TEST(SystemdNotifyTest, KeepAliveIsHalfOfWatchdogUsecForThisProcessOnly) {
  unsetenv("WATCHDOG_PID");
  unsetenv("WATCHDOG_USEC");
  EXPECT_FALSE(watchdogKeepAliveInterval());
  setenv("WATCHDOG_USEC", "30000000", 1);
  ASSERT_TRUE(watchdogKeepAliveInterval());
  EXPECT_EQ(watchdogKeepAliveInterval()->count(), 15000000);
  setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
  EXPECT_TRUE(watchdogKeepAliveInterval());
  setenv("WATCHDOG_PID", std::to_string(getpid() + 1).c_str(), 1);  // meant for another process
  EXPECT_FALSE(watchdogKeepAliveInterval());
  unsetenv("WATCHDOG_PID");
  for (const char* bad : {"0", "", "abc", "12x", "-5"}) {
    setenv("WATCHDOG_USEC", bad, 1);
    EXPECT_FALSE(watchdogKeepAliveInterval()) << bad;
  }
  unsetenv("WATCHDOG_USEC");
}

}  // namespace
}  // namespace fabricmon
