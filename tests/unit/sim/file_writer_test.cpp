#include "sim/file_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_test_util.hpp"

namespace fabricmon::sim {
namespace {

using test::readFile;
using test::TempDir;

ino_t inodeOf(const std::filesystem::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return st.st_ino;
}

std::string preadAll(int fd) {
  char buf[256];
  const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
  return n < 0 ? std::string("<error>") : std::string(buf, static_cast<size_t>(n));
}

TEST(FileWriter, RewritesInPlaceAndAnOpenDescriptorSeesTheNewText) {
  TempDir dir;
  const auto path = dir.path() / "port_xmit_data";
  FileWriter w;
  ASSERT_TRUE(w.write(path, "12345\n").ok());
  const ino_t inode = inodeOf(path);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);

  ASSERT_TRUE(w.write(path, "1234567\n").ok());
  EXPECT_EQ(inodeOf(path), inode);
  EXPECT_EQ(preadAll(fd), "1234567\n");
  ::close(fd);
}

TEST(FileWriter, ShrinkingTextIsTruncatedToItsExactLength) {
  TempDir dir;
  const auto path = dir.path() / "state";
  FileWriter w;
  ASSERT_TRUE(w.write(path, "4: ACTIVE\n").ok());
  const ino_t inode = inodeOf(path);
  ASSERT_TRUE(w.write(path, "1: DOWN\n").ok());
  EXPECT_EQ(readFile(path), "1: DOWN\n");
  EXPECT_EQ(inodeOf(path), inode);
  ASSERT_TRUE(w.write(path, "0\n").ok());
  EXPECT_EQ(readFile(path), "0\n");
}

TEST(FileWriter, UnchangedTextIsNotWrittenAgain) {
  TempDir dir;
  const auto path = dir.path() / "mtu";
  FileWriter w;
  ASSERT_TRUE(w.write(path, "9000\n").ok());
  ASSERT_TRUE(w.write(path, "9000\n").ok());
  EXPECT_EQ(w.writes(), 1u);
  ASSERT_TRUE(w.write(path, "4200\n").ok());
  EXPECT_EQ(w.writes(), 2u);
}

TEST(FileWriter, ReportsAnUnwritablePathAsAnError) {
  TempDir dir;
  FileWriter w;
  const Status st = w.write(dir.path() / "missing-dir" / "file", "1\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("missing-dir"), std::string::npos);
  EXPECT_EQ(st.error().errnum, ENOENT);
}

TEST(FileWriter, SymlinkIsIdempotentAndRepointable) {
  TempDir dir;
  const auto link = dir.path() / "device";
  ASSERT_TRUE(FileWriter::symlink("../a", link).ok());
  ASSERT_TRUE(FileWriter::symlink("../a", link).ok());
  EXPECT_EQ(std::filesystem::read_symlink(link), "../a");
  ASSERT_TRUE(FileWriter::symlink("../b", link).ok());
  EXPECT_EQ(std::filesystem::read_symlink(link), "../b");
}

}  // namespace
}  // namespace fabricmon::sim
