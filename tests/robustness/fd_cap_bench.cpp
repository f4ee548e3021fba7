// Cost of a counter read with a kept descriptor (pread) against one beyond the descriptor cap
// (open + pread + close: by the whole path, and below a kept handle of the directory), on real sysfs files of this machine (/sys/class/net/lo/statistics) and on
// a tmpfs copy. Not a test: `build/tests/robustness/fd_cap_bench`; the figures are in
// docs/benchmarks.md ("Descriptor cap").
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collectors/sources/dir_handles.hpp"
#include "collectors/sources/sysfs.hpp"

using namespace fabricmon;
using Clock = std::chrono::steady_clock;

namespace {

double nsPerRead(const std::vector<std::string>& paths, size_t cap, size_t dirCap, int rounds) {
  CounterFile::setMaxKeptFiles(cap);
  setMaxKeptDirs(dirCap);
  std::vector<CounterFile> files;
  for (const auto& p : paths) files.emplace_back(p);
  for (auto& f : files) (void)f.readU64();  // open what may be kept
  const auto t0 = Clock::now();
  uint64_t sink = 0;
  for (int r = 0; r < rounds; ++r) {
    for (auto& f : files) {
      auto v = f.readU64();
      if (v) sink += *v;
    }
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  if (sink == 42) std::puts("");
  return ns / (static_cast<double>(rounds) * files.size());
}

}  // namespace

int main() {
  std::vector<std::string> sysfs;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/net/lo/statistics")) sysfs.push_back(e.path());
  const auto tmp = std::filesystem::temp_directory_path() / "fabricmon-fd-cap-bench";
  std::filesystem::create_directories(tmp);
  std::vector<std::string> plain;
  for (int i = 0; i < 100; ++i) {
    const auto p = tmp / ("c" + std::to_string(i));
    std::ofstream(p) << 123456789 + i << "\n";
    plain.push_back(p);
  }
  const int rounds = 20000;
  std::printf("files          kept (pread)   beyond cap, whole path   ratio   beyond cap, below the directory's handle   ratio\n");
  for (const auto& [name, paths] : {std::pair{"sysfs", sysfs}, std::pair{"tmpfs", plain}}) {
    const double kept = nsPerRead(paths, paths.size(), 0, rounds);
    const double open = nsPerRead(paths, 0, 0, rounds);
    const double below = nsPerRead(paths, 0, 1, rounds);
    std::printf("%-6s x%-5zu  %8.0f ns      %8.0f ns              %4.1fx   %8.0f ns                                  %4.1fx\n",
                name, paths.size(), kept, open, open / kept, below, below / kept);
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
