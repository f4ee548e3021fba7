#include "daemon/demo_tree.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

namespace fabricmon {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "fabricmon-demo-";
constexpr const char* kLockName = ".lock";

}  // namespace

size_t DemoTree::removeStale(const fs::path& parent) {
  size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kPrefix, 0) != 0 || !it->is_directory(ec) || it->is_symlink(ec)) continue;
    // A tree without a lock is being made (the lock appears only once it is held) or was made by
    // something else: left alone.
    const fs::path lock = it->path() / kLockName;
    const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code rec;
      fs::remove_all(it->path(), rec);
      if (rec) {
        spdlog::warn("demo: could not remove the stale tree {}: {}", it->path().string(), rec.message());
      } else {
        spdlog::info("demo: removed {}, left behind by a demo that was killed", it->path().string());
        ++removed;
      }
    }
    ::close(fd);
  }
  return removed;
}

Result<std::unique_ptr<DemoTree>> DemoTree::create(const fs::path& parent) {
  removeStale(parent);
  std::string tmpl = (parent / (std::string(kPrefix) + "XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) return sysError("mkdtemp " + tmpl, errno);
  const fs::path dir = tmpl;
  // Locked under another name, then renamed: a sweeping demo never sees an unlocked `.lock`.
  const fs::path pending = dir / ".lock.pending";
  const int fd = ::open(pending.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::rename(pending.c_str(), (dir / kLockName).c_str()) != 0) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return sysError("lock " + pending.string(), err);
  }
  return std::unique_ptr<DemoTree>(new DemoTree(dir, fd));
}

void DemoTree::remove() {
  if (!path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
    if (ec) spdlog::warn("demo: could not remove {}: {}", path_.string(), ec.message());
    path_.clear();
  }
  if (lockFd_ >= 0) {
    ::close(lockFd_);
    lockFd_ = -1;
  }
}

DemoTree::~DemoTree() { remove(); }

}  // namespace fabricmon
