#include "collectors/sources/dir_state.hpp"

#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/sources/dir_handles.hpp"

namespace fabricmon {

namespace {

DirStamp stampOf(const struct stat& st) {
  return DirStamp{static_cast<uint64_t>(st.st_ino),
                  static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                  static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec};
}

}  // namespace

std::optional<DirStamp> stampDir(const std::string& absPath, DirHold* hold) {
  struct stat st {};
  if (statBelowKeptDir(absPath, st, hold) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;
  return stampOf(st);
}

std::optional<PathStamp> stampPath(const std::string& absPath, DirHold* hold) {
  struct stat st {};
  if (statBelowKeptDir(absPath, st, hold) != 0) return std::nullopt;
  return PathStamp{stampOf(st), S_ISDIR(st.st_mode)};
}

DirWatcher::DirWatcher() : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}

DirWatcher::~DirWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

int DirWatcher::add(const std::string& absPath) {
  if (fd_ < 0) return -1;
  return ::inotify_add_watch(fd_, absPath.c_str(),
                             IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF |
                                 IN_ONLYDIR);
}

void DirWatcher::remove(int wd) {
  if (fd_ >= 0 && wd >= 0) ::inotify_rm_watch(fd_, wd);  // EINVAL once the directory is gone
}

void DirWatcher::drain(std::vector<int>& changed) {
  changed.clear();
  if (fd_ < 0) return;
  alignas(struct inotify_event) char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof(buf));
    if (n <= 0) return;  // EAGAIN: nothing (more) happened
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const struct inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(struct inotify_event) + ev->len);
      if ((ev->mask & IN_IGNORED) != 0) continue;  // a removed watch (ours, or its directory's)
      changed.push_back((ev->mask & IN_Q_OVERFLOW) != 0 ? -1 : ev->wd);
    }
  }
}

}  // namespace fabricmon
