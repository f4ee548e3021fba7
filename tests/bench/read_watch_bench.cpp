// What marking a read costs (collectors/sources/read_watch.hpp): every counter file a collector
// reads marks itself, ~6,000 times a second at 128 devices (docs/benchmarks.md, "Reads that wait
// for a NIC"). Measured with a watch on the thread (a collector's) and without (a test's), and next
// to the pread of a tmpfs file that it marks, the cheapest read there is.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "collectors/sources/read_watch.hpp"
#include "collectors/sources/sysfs.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

const std::string kPath =
    "/sys/devices/pci0000:00/0000:10:00.0/0000:16:00.0/0000:17:00.0/infiniband/mlx5_17/ports/1/hw_counters/"
    "np_ecn_marked_roce_packets";

void BM_MarkedReadWithAWatch(benchmark::State& state) {
  ReadWatch watch;
  setCurrentReadWatch(&watch);
  for (auto _ : state) {
    const WatchedRead read("read", kPath);
    benchmark::ClobberMemory();
  }
  setCurrentReadWatch(nullptr);
}
BENCHMARK(BM_MarkedReadWithAWatch);

void BM_MarkedReadWithoutAWatch(benchmark::State& state) {
  setCurrentReadWatch(nullptr);
  for (auto _ : state) {
    const WatchedRead read("read", kPath);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MarkedReadWithoutAWatch);

// A kept counter file re-read with pread (CounterFile), marked as in a collector.
void BM_CounterFileReadOnTmpfs(benchmark::State& state) {
  testing::TempDir dir("fabricmon-read-watch-bench");
  const std::string file = (dir.path() / "np_ecn_marked_roce_packets").string();
  std::ofstream(file) << "123456789\n";
  ReadWatch watch;
  setCurrentReadWatch(&watch);
  CounterFile counter(file);
  for (auto _ : state) benchmark::DoNotOptimize(counter.readU64());
  setCurrentReadWatch(nullptr);
}
BENCHMARK(BM_CounterFileReadOnTmpfs);

}  // namespace
}  // namespace fabricmon

BENCHMARK_MAIN();
