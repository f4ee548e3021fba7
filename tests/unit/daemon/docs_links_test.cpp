// A user's clone holds only this repository: README.md and docs/ must not send a reader to files
// outside it (the contract lives in docs/contract.md), and their relative links must resolve.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::weakly_canonical(FABRICMON_SOURCE_DIR);

std::vector<fs::path> documents() {
  std::vector<fs::path> docs{kRoot / "README.md"};
  for (const auto& entry : fs::directory_iterator(kRoot / "docs")) {
    if (entry.path().extension() == ".md") docs.push_back(entry.path());
  }
  return docs;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DocsLinksTest, NothingCitesTheSharedFolderOutsideTheRepository) {
  for (const fs::path& doc : documents()) {
    std::istringstream lines(readFile(doc));
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      EXPECT_EQ(line.find("../shared"), std::string::npos)
          << doc.lexically_relative(kRoot).string() << ":" << n << " cites ../shared: " << line;
    }
  }
}

// Code comments, scripts, fixtures and deploy files cite only what a clone holds: the contract as
// docs/contract.md, never the design notes this project was started from.
TEST(DocsLinksTest, NoFileCitesDesignNotesOutsideTheRepository) {
  const std::regex outside(
      R"((\.\./shared|\bCOUNTERS\.md|\bARCHITECTURE\.md|\bSTYLE\.md|(^|[^/])\bCONTRACT\b|\bnotes/))");
  size_t scanned = 0;
  for (auto it = fs::recursive_directory_iterator(kRoot); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory()) {
      // build/, build-asan/, ... and the repository's own metadata.
      if (name == ".git" || name.rfind("build", 0) == 0) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->file_size() > 4 * 1024 * 1024) continue;
    const fs::path rel = it->path().lexically_relative(kRoot);
    // The contract explains its own "CONTRACT §N" shorthand; this test names what it looks for.
    if (rel == "docs/contract.md" || rel == "tests/unit/daemon/docs_links_test.cpp") continue;
    ++scanned;
    std::istringstream lines(readFile(it->path()));
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      EXPECT_FALSE(std::regex_search(line, outside))
          << rel.string() << ":" << n << " cites a file outside the repository: " << line;
    }
  }
  EXPECT_GT(scanned, 100u) << "the walk found too few files to mean anything";
}

TEST(DocsLinksTest, RelativeLinksStayInsideTheRepositoryAndExist) {
  const std::regex link(R"(\]\(([^)\s#]+)(#[^)\s]*)?\))");
  for (const fs::path& doc : documents()) {
    const std::string text = readFile(doc);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
      const std::string target = (*it)[1];
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
      const fs::path resolved = fs::weakly_canonical(doc.parent_path() / target);
      const auto rel = resolved.lexically_relative(kRoot);
      EXPECT_FALSE(rel.empty() || *rel.begin() == "..")
          << doc.lexically_relative(kRoot).string() << " links outside the repository: " << target;
      EXPECT_TRUE(fs::exists(resolved)) << doc.lexically_relative(kRoot).string() << " links to a missing file: " << target;
    }
  }
}

TEST(DocsLinksTest, ReadmeLinksTheContract) {
  EXPECT_NE(readFile(kRoot / "README.md").find("(docs/contract.md)"), std::string::npos);
  EXPECT_TRUE(fs::exists(kRoot / "docs/contract.md"));
}

}  // namespace
}  // namespace fabricmon
