// The folders' layers as docs/architecture.md ("Folders and layers") lists them: each folder
// includes only from the folders its row names, every one of them further up the table, so no
// include runs from a lower layer to a higher one and there is no include cycle.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = fs::weakly_canonical(FABRICMON_SOURCE_DIR);

struct Layer {
  std::string folder;
  std::set<std::string> mayInclude;
};

/// The table's rows, top (lowest layer) first.
std::vector<Layer> layersOfArchitectureMd() {
  std::ifstream in(kRoot / "docs/architecture.md");
  std::string line;
  bool inSection = false;
  std::vector<Layer> layers;
  const std::regex row(R"(^\| `([a-z_]+)/` \|.*\| ([^|]+) \|$)");
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) inSection = line == "## Folders and layers";
    std::smatch m;
    if (!inSection || !std::regex_match(line, m, row)) continue;
    Layer layer{m[1].str(), {}};
    const std::string deps = m[2].str();
    if (deps == "everything above") {
      for (const Layer& l : layers) layer.mayInclude.insert(l.folder);
    } else if (deps != "—") {
      std::istringstream names(deps);
      std::string name;
      while (std::getline(names, name, ',')) {
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        layer.mayInclude.insert(name);
      }
    }
    layers.push_back(std::move(layer));
  }
  return layers;
}

TEST(LayeringTest, IncludesFollowTheLayersOfArchitectureMd) {
  const auto layers = layersOfArchitectureMd();
  ASSERT_GE(layers.size(), 8u) << "the table of docs/architecture.md was not found";
  std::set<std::string> above;
  for (const Layer& layer : layers) {
    for (const std::string& dep : layer.mayInclude) {
      EXPECT_TRUE(above.count(dep))
          << layer.folder << "/ may include " << dep
          << "/, which is not further up the table: a cycle or an upward arrow";
    }
    above.insert(layer.folder);
  }

  // Every source folder of the tree has a row.
  for (const auto& entry : fs::directory_iterator(kRoot)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || !fs::exists(entry.path() / "CMakeLists.txt")) continue;
    if (name == "tests" || name == "deploy" || name.rfind("build", 0) == 0) continue;
    EXPECT_TRUE(above.count(name))
        << name << "/ has no row in docs/architecture.md, \"Folders and layers\"";
  }

  const std::regex include(R"(^\s*#\s*include\s+"([a-z_]+)/)");
  size_t checked = 0;
  for (const Layer& layer : layers) {
    for (auto it = fs::recursive_directory_iterator(kRoot / layer.folder);
         it != fs::recursive_directory_iterator(); ++it) {
      const std::string ext = it->path().extension().string();
      if (!it->is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".in")) continue;
      std::ifstream in(it->path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        std::smatch m;
        if (!std::regex_search(line, m, include)) continue;
        const std::string to = m[1].str();
        if (to == layer.folder || !above.count(to))
          continue;  // its own folder, or not a folder of ours
        ++checked;
        EXPECT_TRUE(layer.mayInclude.count(to))
            << it->path().lexically_relative(kRoot).string() << ":" << n << " includes " << to
            << "/, which " << layer.folder
            << "/ may not (docs/architecture.md, \"Folders and layers\")";
      }
    }
  }
  EXPECT_GT(checked, 100u) << "too few includes across folders found to mean anything";
}

}  // namespace
}  // namespace fabricmon
