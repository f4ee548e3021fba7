// A user's clone holds only this repository: README.md and docs/ must not send a reader to files
// outside it (the contract lives in docs/contract.md), and their relative links must resolve.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
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

/// Calls `fn(relative path, line number, line)` for every line of every text file of the
/// repository (build trees and the repository's metadata left out); returns the files walked.
size_t forEachLine(const std::function<void(const fs::path&, int, const std::string&)>& fn) {
  size_t scanned = 0;
  for (auto it = fs::recursive_directory_iterator(kRoot); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory()) {
      // build/, build-asan/, ... and the repository's own metadata.
      if (name == ".git" || name.rfind("build", 0) == 0) it.disable_recursion_pending();
      continue;
    }
    // A worktree's .git is a file naming the machine's checkout: metadata, not content.
    if (name == ".git" || !it->is_regular_file() || it->file_size() > 4 * 1024 * 1024) continue;
    const fs::path rel = it->path().lexically_relative(kRoot);
    ++scanned;
    std::istringstream lines(readFile(it->path()));
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) fn(rel, n, line);
  }
  return scanned;
}

// Code comments, scripts, fixtures and deploy files cite only what a clone holds: the contract as
// docs/contract.md, a kernel source file or a spec, never the design notes this project was started
// from nor a path of the machine it was built on.
TEST(DocsLinksTest, NoFileCitesDesignNotesOutsideTheRepository) {
  const std::regex outside(
      R"((\.\./shared|\bCOUNTERS\.md|\bARCHITECTURE\.md|\bSTYLE\.md|(^|[^/])\bCONTRACT\b|\bnotes/|)"
      R"(NAMES_DERIVED_FROM_SOURCE|shared/(reference|realdata)|(^|[\s`(])/work/))");
  const size_t scanned = forEachLine([&](const fs::path& rel, int n, const std::string& line) {
    // The contract explains its own "CONTRACT §N" shorthand; this test names what it looks for.
    if (rel == "docs/contract.md" || rel == "tests/unit/daemon/docs_links_test.cpp") return;
    EXPECT_FALSE(std::regex_search(line, outside))
        << rel.string() << ":" << n << " cites a file outside the repository: " << line;
  });
  EXPECT_GT(scanned, 100u) << "the walk found too few files to mean anything";
}

// A comment or page that sends the reader to a file of this repository ("see
// exporters/http_security.hpp") names one that exists: files move, citations must follow.
TEST(DocsLinksTest, CitedRepositoryPathsExist) {
  // A path under one of the top-level folders, with a file extension of this repository or the
  // `name.*` shorthand for a file pair. Preceded by neither a word, a dot nor a slash, so
  // `class/net/<if>/device/config` or `$BUILD_DIR/sim/fabricsim` are not taken for citations.
  const std::regex cited(
      R"((^|[^\w./-])((collectors|config|daemon|deploy|docs|exporters|model|scripts|sim|tests|triage|watchdog|window)/[\w./-]*?)"
      R"((\.(hpp|cpp|md|cmake|py|sh|yml|yaml|json|ttar|prom|txt)\b|\.\*)))");
  size_t checked = 0;
  forEachLine([&](const fs::path& rel, int n, const std::string& line) {
    if (*rel.begin() == "tests" && rel.string().find("fixtures") != std::string::npos) return;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), cited); it != std::sregex_iterator(); ++it) {
      const std::string target = (*it)[2].str();
      bool found = false;
      if (target.ends_with(".*")) {
        // exporters/window_json.* : any file of that stem.
        const fs::path stem = kRoot / target.substr(0, target.size() - 2);
        if (fs::is_directory(stem.parent_path())) {
          for (const auto& e : fs::directory_iterator(stem.parent_path())) {
            found |= e.path().stem() == stem.filename();
          }
        }
      } else {
        // daemon/version.hpp is generated from daemon/version.hpp.in.
        found = fs::exists(kRoot / target) || fs::exists(kRoot / (target + ".in"));
      }
      ++checked;
      EXPECT_TRUE(found) << rel.string() << ":" << n << " cites " << target << ", which does not exist";
    }
  });
  EXPECT_GT(checked, 100u) << "too few citations found to mean anything";
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
