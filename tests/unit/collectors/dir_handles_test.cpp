// Files read without a descriptor of their own are opened below a handle of their directory
// (collectors/sources/dir_handles.hpp): one handle per directory, alive while a file below holds
// it, and a path that names another directory, or none, is followed.

#include "collectors/sources/dir_handles.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "collectors/sources/dir_state.hpp"
#include "collectors/sources/sysfs.hpp"
#include "rdma_test_support.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

class DirHandles : public ::testing::Test {
 protected:
  // No file keeps a descriptor of its own: every read opens, below the directory's handle.
  void SetUp() override {
    CounterFile::setMaxKeptFiles(0);
    setMaxKeptDirs(16);
    dirsBefore_ = keptDirs();
  }
  void TearDown() override {
    CounterFile::setMaxKeptFiles(kDefaultMaxKeptFiles);
    setMaxKeptDirs(kDefaultMaxKeptFiles / 2);
  }

  static void put(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::trunc) << text;
  }
  static std::string text(CounterFile& f) {
    auto t = f.readText();
    return t ? std::string(*t) : "errno " + std::to_string(t.error().errnum);
  }
  // Reads until the file shows something else than `old`; how many reads that took.
  static unsigned readsUntilNot(CounterFile& f, const std::string& old, std::string& seen) {
    unsigned reads = 0;
    seen = old;
    while (seen == old && reads < 2 * kDirCheckUses) {
      seen = text(f);
      ++reads;
    }
    return reads;
  }

  testing::TempDir tmp_{"fabricmon-dirhandles"};
  size_t dirsBefore_ = 0;
};

TEST_F(DirHandles, FilesOfOneDirectoryShareOneHandleThatGoesWithThem) {
  const fs::path dir = tmp_.path() / "ports/1/hw_counters";
  std::vector<std::unique_ptr<CounterFile>> files;
  for (int i = 0; i < 5; ++i) {
    put(dir / ("c" + std::to_string(i)), std::to_string(i) + "\n");
    files.push_back(std::make_unique<CounterFile>((dir / ("c" + std::to_string(i))).string()));
  }
  const size_t fds = testing::openFdCount();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 5; ++i) EXPECT_EQ(text(*files[i]), std::to_string(i));
  }
  EXPECT_EQ(keptDirs(), dirsBefore_ + 1);
  EXPECT_EQ(testing::openFdCount(), fds + 1);  // the handle; no file stays open
  files.resize(1);
  EXPECT_EQ(keptDirs(), dirsBefore_ + 1);
  files.clear();
  EXPECT_EQ(keptDirs(), dirsBefore_);
  EXPECT_EQ(testing::openFdCount(), fds);
}

TEST_F(DirHandles, ARemovedAndRecreatedDirectoryIsReadAtOnce) {
  const fs::path file = tmp_.path() / "mlx5_0/ports/1/counters/port_rcv_data";
  put(file, "1\n");
  CounterFile f(file.string());
  EXPECT_EQ(text(f), "1");
  fs::remove_all(tmp_.path() / "mlx5_0");
  EXPECT_EQ(text(f), "errno " + std::to_string(ENOENT));
  put(file, "2\n");  // the device came back
  EXPECT_EQ(text(f), "2");
  EXPECT_EQ(keptDirs(), dirsBefore_ + 1);  // a new handle in place of the dead one
}

TEST_F(DirHandles, ADirectoryReplacedByRenameIsFollowedWithinTheCheck) {
  const fs::path dir = tmp_.path() / "hw_counters";
  put(dir / "c", "old\n");
  CounterFile f((dir / "c").string());
  EXPECT_EQ(text(f), "old");
  fs::rename(dir, tmp_.path() / "hw_counters.old");  // the old directory still answers openat
  put(dir / "c", "new\n");
  std::string seen;
  EXPECT_LE(readsUntilNot(f, "old", seen), kDirCheckUses);
  EXPECT_EQ(seen, "new");
}

TEST_F(DirHandles, ARetargetedSymlinkIsFollowedWithinTheCheck) {
  // class/net/<if> is a symlink into devices/; renaming the interface moves it (net/core/net-sysfs.c).
  put(tmp_.path() / "devices/a/operstate", "up\n");
  put(tmp_.path() / "devices/b/operstate", "down\n");
  fs::create_directories(tmp_.path() / "class");
  fs::create_directory_symlink("../devices/a", tmp_.path() / "class/eth0");
  CounterFile f((tmp_.path() / "class/eth0/operstate").string());
  EXPECT_EQ(text(f), "up");
  fs::remove(tmp_.path() / "class/eth0");
  fs::create_directory_symlink("../devices/b", tmp_.path() / "class/eth0");
  std::string seen;
  EXPECT_LE(readsUntilNot(f, "up", seen), kDirCheckUses);
  EXPECT_EQ(seen, "down");
}

TEST_F(DirHandles, AnOwnerThatSawItsDirectoryChangeReadsThePathAtOnce) {
  const fs::path dir = tmp_.path() / "hw_counters";
  put(dir / "c", "old\n");
  CounterFile f((dir / "c").string());
  EXPECT_EQ(text(f), "old");
  fs::rename(dir, tmp_.path() / "hw_counters.old");
  put(dir / "c", "new\n");
  f.checkIdentity();  // what SlotGroupCache calls when the directory's stamp changed
  EXPECT_EQ(text(f), "new");
}

TEST_F(DirHandles, AnAbsentFileIsENOENTAndTheHandleStays) {
  const fs::path dir = tmp_.path() / "net/eth0";
  put(dir / "carrier_changes", "3\n");
  CounterFile present((dir / "carrier_changes").string());
  CounterFile absent((dir / "carrier_down_count").string());  // older kernels have none
  EXPECT_EQ(text(present), "3");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(text(absent), "errno " + std::to_string(ENOENT));
  EXPECT_EQ(keptDirs(), dirsBefore_ + 1);
  EXPECT_EQ(text(present), "3");
}

TEST_F(DirHandles, TheCapBoundsHandlesAndReadsBeyondItStillWork) {
  setMaxKeptDirs(dirsBefore_ + 1);
  put(tmp_.path() / "a/x", "1\n");
  put(tmp_.path() / "b/x", "2\n");
  CounterFile a((tmp_.path() / "a/x").string());
  CounterFile b((tmp_.path() / "b/x").string());
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(text(a), "1");
    EXPECT_EQ(text(b), "2");
  }
  EXPECT_EQ(keptDirs(), dirsBefore_ + 1);
}

TEST_F(DirHandles, AReaderWithoutAHoldOpensByPathAndNeverOpensAHandle) {
  put(tmp_.path() / "held/x", "1\n");
  put(tmp_.path() / "held/y", "2\n");
  put(tmp_.path() / "loose/z", "3\n");
  CounterFile holder((tmp_.path() / "held/x").string());
  EXPECT_EQ(text(holder), "1");
  const SysfsRoot root(tmp_.path());
  EXPECT_EQ(root.readText("held/y").value(), "2");
  EXPECT_EQ(root.readText("loose/z").value(), "3");
  EXPECT_EQ(keptDirs(), dirsBefore_ + 1);
  // A directory is still not a regular file.
  fs::create_directories(tmp_.path() / "held/sub");
  auto fd = openForRead((tmp_.path() / "held/sub").string());
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().errnum, EISDIR);
}

TEST_F(DirHandles, ANewHolderDoesNotStartOnADirectoryRenamedAway) {
  // An interface renamed and another given its old name: the old directory still answers openat.
  put(tmp_.path() / "net/eth0/operstate", "up\n");
  CounterFile first((tmp_.path() / "net/eth0/operstate").string());
  EXPECT_EQ(text(first), "up");  // holds the handle of net/eth0
  fs::rename(tmp_.path() / "net/eth0", tmp_.path() / "net/eth9");
  put(tmp_.path() / "net/eth0/operstate", "down\n");
  CounterFile second((tmp_.path() / "net/eth0/operstate").string());
  EXPECT_EQ(text(second), "down");  // at its first read, not 64 reads later
}

// A directory stamped at every poll (SlotGroupCache: a device's, its counter directories) is
// stat()ed below a handle of its parent: the same stamps as a stat of the whole path, one handle
// for all the directories of one parent, and a re-created or vanished directory seen at once.
TEST_F(DirHandles, AStampBelowAHandleIsTheStampOfThePath) {
  fs::create_directories(tmp_.path() / "class/infiniband/mlx5_0/ports/1/hw_counters");
  fs::create_directories(tmp_.path() / "class/infiniband/mlx5_1");
  const std::string dev0 = (tmp_.path() / "class/infiniband/mlx5_0").string();
  const std::string dev1 = (tmp_.path() / "class/infiniband/mlx5_1").string();
  DirHold hold0, hold1;
  ASSERT_EQ(stampDir(dev0, &hold0), stampDir(dev0));
  ASSERT_TRUE(stampDir(dev1, &hold1).has_value());
  ASSERT_NE(hold0, nullptr);
  EXPECT_EQ(hold0, hold1);  // class/infiniband's one handle
  EXPECT_EQ(keptDirs(), dirsBefore_ + 1);

  // A file added: the directory's mtime moves, below the handle as by its path.
  const auto before = stampDir(dev0, &hold0);
  put(tmp_.path() / "class/infiniband/mlx5_0/new_attr", "1\n");
  const auto added = stampDir(dev0, &hold0);
  EXPECT_EQ(added, stampDir(dev0));
  EXPECT_NE(added, before);

  // Re-created (a driver reload): a new inode at once; removed: absent at once.
  fs::rename(dev0, tmp_.path() / "class/infiniband/mlx5_0.old");
  fs::create_directories(dev0);
  const auto recreated = stampDir(dev0, &hold0);
  ASSERT_TRUE(recreated.has_value());
  EXPECT_NE(recreated->inode, added->inode);
  EXPECT_EQ(recreated, stampDir(dev0));
  fs::remove_all(dev0);
  EXPECT_FALSE(stampDir(dev0, &hold0).has_value());
  EXPECT_FALSE(stampPath(dev0, &hold0).has_value());
  EXPECT_NE(hold0, nullptr);  // an absent entry of a directory that is still there keeps its handle
  EXPECT_TRUE(stampPath(dev1, &hold1).has_value());
}

TEST_F(DirHandles, AStampBelowAHandleWhoseParentWentIsThePathsStamp) {
  // The parent itself removed and made again (a device's ports/1 when the device is re-created):
  // the dead handle is dropped and the path decides, in the same call.
  const fs::path ports = tmp_.path() / "mlx5_0/ports/1";
  fs::create_directories(ports / "hw_counters");
  const std::string hw = (ports / "hw_counters").string();
  DirHold hold;
  const auto first = stampDir(hw, &hold);
  ASSERT_TRUE(first.has_value());
  fs::remove_all(tmp_.path() / "mlx5_0");
  EXPECT_FALSE(stampDir(hw, &hold).has_value());
  fs::create_directories(ports / "hw_counters");
  const auto again = stampDir(hw, &hold);
  ASSERT_TRUE(again.has_value());  // a handle kept on the dead ports/1 would find nothing
  EXPECT_EQ(again, stampDir(hw));  // (the inode may be the old one's: a freed number is reused)
  EXPECT_NE(hold, nullptr);        // a new handle, on the new ports/1
}

// A slot's error key is the relative part of the path its file keeps (SysfsRoot::relative):
// exactly what path() was given, whether or not the root ends in a separator.
TEST(SysfsRootRelative, IsWhatPathWasGiven) {
  for (const char* root : {"/sys", "/tmp/node/sys/", "relative/root"}) {
    const SysfsRoot sysfs(root);
    const std::string rel = "class/infiniband/mlx5_0/ports/1/counters/symbol_error";
    EXPECT_EQ(sysfs.relative(sysfs.path(rel)), rel) << root;
    EXPECT_EQ(sysfs.relative(sysfs.path("")), "") << root;
  }
}

}  // namespace
}  // namespace fabricmon
