// The ttar unpacker that turns the fixture archives into sysfs trees.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rdma_test_support.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(RdmaTtar, UnpacksFilesDirectoriesSymlinksAndTheEofMarker) {
  testing::TempTree src;
  src.write("a.ttar",
            "# comment\n"
            "Directory: fixtures/sys/class\nMode: 755\n"
            "Path: fixtures/sys/class/x/two\nLines: 2\nline1\n# not a comment\nMode: 644\n"
            "Path: fixtures/sys/class/x/nonl\nLines: 1\nabcEOF\nMode: 444\n"
            "Path: fixtures/sys/class/x/empty\nLines: 0\nMode: 644\n"
            "Path: fixtures/sys/class/x/nul\nLines: 1\naNULLBYTEb\nMode: 644\n"
            "Path: fixtures/sys/class/x/link\nSymlinkTo: ../../devices/y\n");
  testing::TempTree out;
  testing::unpackTtar(src.root() / "a.ttar", out.root());
  EXPECT_EQ(slurp(out.root() / "class/x/two"), "line1\n# not a comment\n");
  EXPECT_EQ(slurp(out.root() / "class/x/nonl"), "abc");
  EXPECT_EQ(slurp(out.root() / "class/x/empty"), "");
  EXPECT_EQ(slurp(out.root() / "class/x/nul"), std::string("a\0b\n", 4));
  EXPECT_EQ(fs::read_symlink(out.root() / "class/x/link"), "../../devices/y");
  EXPECT_EQ(fs::status(out.root() / "class/x/nonl").permissions() & fs::perms::all, static_cast<fs::perms>(0444));
}

TEST(RdmaTtar, RejectsMalformedArchives) {
  testing::TempTree src;
  src.write("bad.ttar", "Path: sys/x\nLines: 3\nonly one\n");
  testing::TempTree out;
  EXPECT_THROW(testing::unpackTtar(src.root() / "bad.ttar", out.root()), std::runtime_error);
  src.write("bad2.ttar", "Path: nosys/x\nLines: 0\n");
  EXPECT_THROW(testing::unpackTtar(src.root() / "bad2.ttar", out.root()), std::runtime_error);
}

TEST(RdmaTtar, EveryFixtureArchiveUnpacks) {
  size_t archives = 0;
  for (const char* dir : {"realdata", "handmade"}) {
    for (const auto& e : fs::directory_iterator(testing::fixtureDir() / dir)) {
      if (e.path().extension() != ".ttar") continue;
      ++archives;
      testing::TempTree out;
      EXPECT_NO_THROW(testing::unpackTtar(e.path(), out.root())) << e.path();
      EXPECT_TRUE(fs::is_directory(out.root() / "class")) << e.path();
    }
  }
  EXPECT_EQ(archives, 6u);
}

}  // namespace
}  // namespace fabricmon
