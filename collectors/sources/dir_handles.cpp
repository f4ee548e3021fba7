#include "collectors/sources/dir_handles.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <functional>
#include <mutex>
#include <string_view>
#include <unordered_map>

namespace fabricmon {

namespace {

std::atomic<size_t> gLive{0};
std::atomic<size_t> gCap{2048};  // kDefaultMaxKeptFiles / 2 (collectors/sources/sysfs.hpp)

}  // namespace

class DirHandle {
 public:
  DirHandle(std::string dir, int fd, uint64_t dev, uint64_t ino)
      : dir_(std::move(dir)), fd_(fd), dev_(dev), ino_(ino) {
    gLive.fetch_add(1, std::memory_order_relaxed);
  }
  ~DirHandle() {
    ::close(fd_);
    gLive.fetch_sub(1, std::memory_order_relaxed);
  }
  DirHandle(const DirHandle&) = delete;
  DirHandle& operator=(const DirHandle&) = delete;

  int fd() const { return fd_; }
  const std::string& dir() const { return dir_; }
  bool stale() const { return stale_.load(std::memory_order_relaxed); }
  void markStale() const { stale_.store(true, std::memory_order_relaxed); }
  /// True when the directory's path still names this handle's directory.
  bool stillNamed() const {
    struct stat st {};
    return ::stat(dir_.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_dev) == dev_ &&
           static_cast<uint64_t>(st.st_ino) == ino_;
  }
  /// Counts a use; every kDirCheckUses uses the path is checked. False once the handle is stale.
  bool use() const {
    if (uses_.fetch_add(1, std::memory_order_relaxed) % kDirCheckUses == kDirCheckUses - 1 && !stillNamed()) {
      markStale();
    }
    return !stale();
  }

 private:
  std::string dir_;
  int fd_;
  uint64_t dev_;
  uint64_t ino_;
  mutable std::atomic<unsigned> uses_{0};
  mutable std::atomic<bool> stale_{false};
};

namespace {

struct PathHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Handles by directory path, weakly: a handle lives as long as a file below it holds it.
struct Cache {
  std::mutex mu;
  std::unordered_map<std::string, std::weak_ptr<const DirHandle>, PathHash, std::equal_to<>> byDir;
};

// Never destroyed: collectors on other threads may still open files while the process exits.
Cache& cache() {
  static Cache* c = new Cache;
  return *c;
}

DirHold openHandle(std::string dir) {
  // O_PATH: no file operation of the directory runs (kernfs allocates nothing for it), and
  // openat() takes it as the starting point (openat(2)).
  const int fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return nullptr;
  }
  return std::make_shared<const DirHandle>(std::move(dir), fd, static_cast<uint64_t>(st.st_dev),
                                           static_cast<uint64_t>(st.st_ino));
}

// A handle of `dir` for a new holder: the cached one when it still names the directory (one stat:
// a device renamed away keeps its old directory alive, and a new holder must not start on it),
// else one opened now, while the cap allows; nullptr when none can be kept.
DirHold acquire(std::string_view dir) {
  Cache& c = cache();
  std::lock_guard lock(c.mu);
  auto it = c.byDir.find(dir);
  if (it != c.byDir.end()) {
    if (DirHold h = it->second.lock(); h != nullptr && !h->stale()) {
      if (h->stillNamed()) return h;
      h->markStale();
    }
  }
  if (gLive.load(std::memory_order_relaxed) >= gCap.load(std::memory_order_relaxed)) return nullptr;
  DirHold h = openHandle(std::string(dir));
  if (h == nullptr) return nullptr;
  if (it != c.byDir.end()) {
    it->second = h;
  } else {
    // Entries of handles nobody holds any more are swept now and then, not on every release.
    if (c.byDir.size() >= 2 * gCap.load(std::memory_order_relaxed) + 64) {
      std::erase_if(c.byDir, [](const auto& e) { return e.second.expired(); });
    }
    c.byDir.emplace(h->dir(), h);
  }
  return h;
}

}  // namespace

namespace {

// `atOp(dirfd, name)` below a kept handle of absPath's directory, or `pathOp()` on the whole path;
// both return >= 0 or -1 with errno set. The handle's upkeep is openBelowKeptDir's (the header).
template <typename AtOp, typename PathOp>
int belowKeptDir(const std::string& absPath, DirHold* hold, AtOp atOp, PathOp pathOp) {
  const size_t slash = absPath.rfind('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == absPath.size()) return pathOp();
  if (hold == nullptr) return pathOp();  // used once: its path is as cheap
  const std::string_view dir(absPath.data(), slash);
  if (*hold == nullptr || !(*hold)->use()) *hold = acquire(dir);
  const DirHold h = *hold;
  if (h == nullptr) return pathOp();
  const int rc = atOp(h->fd(), absPath.c_str() + slash + 1);
  if (rc >= 0) return rc;
  const int err = errno;
  if (err != ENOENT && err != ENOTDIR && err != ESTALE) return -1;  // the file's own answer
  // An absent file is a common answer (an optional attribute): the handle stays when it still
  // names the directory.
  if (err == ENOENT && h->stillNamed()) {
    errno = err;
    return -1;
  }
  h->markStale();  // the device was removed or re-created: the path decides, a new handle next time
  hold->reset();
  return pathOp();
}

}  // namespace

int openBelowKeptDir(const std::string& absPath, int flags, DirHold* hold) {
  return belowKeptDir(
      absPath, hold, [flags](int dirfd, const char* name) { return ::openat(dirfd, name, flags); },
      [&absPath, flags] { return ::open(absPath.c_str(), flags); });
}

int statBelowKeptDir(const std::string& absPath, struct stat& st, DirHold* hold) {
  return belowKeptDir(
      absPath, hold, [&st](int dirfd, const char* name) { return ::fstatat(dirfd, name, &st, 0); },
      [&absPath, &st] { return ::stat(absPath.c_str(), &st); });
}

void recheckKeptDir(DirHold& hold) {
  if (hold == nullptr) return;
  if (!hold->stillNamed()) hold->markStale();
  if (hold->stale()) hold.reset();
}

void setMaxKeptDirs(size_t cap) { gCap.store(cap); }
size_t maxKeptDirs() { return gCap.load(); }
size_t keptDirs() { return gLive.load(); }

}  // namespace fabricmon
