#pragma once
// The demo's temporary tree. It is removed when the demo stops; a demo killed with SIGKILL cannot
// do that, so every tree holds an flock(2) on its `.lock` for as long as its demo lives (the kernel
// drops the lock when the process dies, however it dies), and the next demo removes the trees
// whose lock it can take: stale trees of its own kind, never a running demo's.

#include <filesystem>
#include <memory>

#include "model/result.hpp"

namespace fabricmon {

class DemoTree {
 public:
  /// Removes stale `fabricmon-demo-*` trees of dead demos in `parent`, then makes and locks a new one.
  static Result<std::unique_ptr<DemoTree>> create(const std::filesystem::path& parent);
  /// Stale trees removed from `parent` (their demo is gone). Exposed for tests.
  static size_t removeStale(const std::filesystem::path& parent);
  ~DemoTree();
  DemoTree(const DemoTree&) = delete;
  DemoTree& operator=(const DemoTree&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// Removes the tree and releases the lock (idempotent).
  void remove();

 private:
  DemoTree(std::filesystem::path path, int lockFd) : path_(std::move(path)), lockFd_(lockFd) {}
  std::filesystem::path path_;
  int lockFd_ = -1;
};

}  // namespace fabricmon
