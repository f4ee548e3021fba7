// The demo's temporary tree (daemon/demo_tree.hpp): a demo killed with SIGKILL leaves its tree,
// and the next demo removes it; a living demo's tree and trees that are not a demo's stay.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/demo_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

/// A child process that makes a tree in `parent`, reports its path through a pipe and waits to
/// be killed.
struct DemoChild {
  pid_t pid = -1;
  fs::path tree;

  explicit DemoChild(const fs::path& parent) {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      auto t = DemoTree::create(parent);
      std::string path = t ? (*t)->path().string() : std::string();
      path.push_back('\n');
      (void)!::write(fds[1], path.data(), path.size());
      ::close(fds[1]);
      ::pause();
      ::_exit(0);
    }
    ::close(fds[1]);
    std::string got;
    char c;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') got.push_back(c);
    ::close(fds[0]);
    tree = got;
  }
  void kill() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
  ~DemoChild() { kill(); }
};

TEST(DemoTree, AKilledDemosTreeIsRemovedByTheNextDemo) {
  testing::TempDir parent("fabricmon-demo-tree-test");
  DemoChild child(parent.path());
  ASSERT_FALSE(child.tree.empty());
  ASSERT_TRUE(fs::exists(child.tree));

  // While its demo lives, the tree stays.
  EXPECT_EQ(DemoTree::removeStale(parent.path()), 0u);
  EXPECT_TRUE(fs::exists(child.tree));

  child.kill();
  EXPECT_TRUE(fs::exists(child.tree)) << "SIGKILL leaves the tree behind";

  auto next = DemoTree::create(parent.path());
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_FALSE(fs::exists(child.tree)) << "the next demo removes the stale tree";
  EXPECT_TRUE(fs::exists((*next)->path()));
}

TEST(DemoTree, TreesWithoutALockAndOtherDirectoriesStay) {
  testing::TempDir parent("fabricmon-demo-tree-test");
  fs::create_directories(parent.path() / "fabricmon-demo-unlocked");  // being made, or not ours
  fs::create_directories(parent.path() / "something-else");
  EXPECT_EQ(DemoTree::removeStale(parent.path()), 0u);
  EXPECT_TRUE(fs::exists(parent.path() / "fabricmon-demo-unlocked"));
  EXPECT_TRUE(fs::exists(parent.path() / "something-else"));
}

TEST(DemoTree, StoppingRemovesTheTree) {
  testing::TempDir parent("fabricmon-demo-tree-test");
  auto tree = DemoTree::create(parent.path());
  ASSERT_TRUE(tree.ok());
  const fs::path path = (*tree)->path();
  EXPECT_TRUE(fs::exists(path / ".lock"));
  (*tree)->remove();
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace fabricmon
