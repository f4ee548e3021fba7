// poll_bench: what one poll of the simulated GPU node costs (docs/benchmarks.md).
//
//   BM_FullPoll            every collector of the registry once, the way CollectorRunner runs them
//   BM_Floor               the same files, kept open, pread once each, nothing parsed (the I/O floor)
//   BM_FloorPlus           the floor plus the per-poll syscalls the design requires (see below)
//   BM_Collector/<name>    one collector alone; BM_Floor/<name> the files that collector reads
//   BM_Render*             renderPrometheusText + makePayload of the full snapshot
//   BM_WatchdogPass        one watchdog pass over a fresh snapshot of every collector's batch: history
//                          ingest (series lookup, rates) and every rule, as the pipeline runs it
//
// A summary with the ratios and the targets is printed after the Google Benchmark table. The numbers
// are printed, never asserted: speed is not a test (the ctest entry only checks that it runs).
//
// FABRICMON_BENCH_TREE=DIR measures an existing node instead of the simulated default one: DIR/sys,
// DIR/ethtool, DIR/dcb as fabricsim writes them (tests/bench/make_node.py writes N-device nodes).

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.hpp"
#include "collectors/error_tracker.hpp"
#include "collectors/host_topology.hpp"
#include "collectors/registry.hpp"
#include "collectors/topology_discovery.hpp"
#include "config/config.hpp"
#include "exporters/payload.hpp"
#include "exporters/prometheus_text.hpp"
#include "sim/simulator.hpp"
#include "watchdog/watchdog.hpp"

namespace fabricmon::bench {
namespace {

namespace fs = std::filesystem;

/// One file the collectors read every poll, kept open for the floor.
struct FloorFile {
  std::string collector;  ///< which collector reads it (for the per-collector floor)
  std::string path;
  int fd = -1;
};

/// A directory the collectors stat every poll, or a file they open, read and close every poll.
struct FloorExtra {
  std::string collector;
  std::string path;
  bool openReadClose = false;  ///< false: stat() only
};

struct RunningCollector {
  std::string name;
  Cadence cadence = Cadence::kFast;
  std::unique_ptr<Collector> collector;
  std::unique_ptr<ErrorTracker> errors;
  SeriesRosterPtr roster;  ///< the last run's series, as the runner keeps them (SampleWriter)
};

/// The simulated node, the collectors over it and the file list of the floor. Built once.
struct Rig {
  fs::path dir;                ///< removed at exit (a tree made here)
  fs::path sysRoot, ethtoolDir, dcbDir, lldpFile, moduleEepromDir, fecDir, kmsgFile;
  std::unique_ptr<sim::Simulator> sim;
  Config config;
  Sources sources;
  TopologyPtr topology;
  std::vector<RunningCollector> collectors;
  std::vector<FloorFile> floor;
  std::vector<FloorExtra> extras;
  std::vector<BatchPtr> snapshot;  ///< the batches of the warm-up poll, for the render benchmarks
  size_t seriesCount = 0;
  size_t textBytes = 0;
  size_t gzipBytes = 0;

  ~Rig() {
    for (auto& f : floor) {
      if (f.fd >= 0) ::close(f.fd);
    }
    collectors.clear();  // closes the collectors' descriptors before the tree goes
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

Rig* gRig = nullptr;

/// One run of one collector, as daemon/collector_runner.cpp does it (fresh batch, error sweep).
BatchPtr pollOnce(RunningCollector& c, const Topology& topology, CollectStatus* status = nullptr) {
  auto batch = std::make_shared<Batch>();
  batch->collector = c.name;
  batch->monotonic = std::chrono::steady_clock::now();
  batch->wall = std::chrono::system_clock::now();
  CollectOutput out(*batch, *c.errors, c.roster);
  const CollectStatus st = c.collector->collect(topology, out);
  c.errors->sweep();
  c.roster = out.finish();
  if (status != nullptr) *status = st;
  return batch;
}

// 8 KiB covers any counter file; an ethtool -S text of a ConnectX-7 is ~25 KiB, so use more.
constexpr size_t kReadBuffer = 256 * 1024;

void preadAll(int fd, char* buf) {
  const ssize_t n = ::pread(fd, buf, kReadBuffer, 0);
  benchmark::DoNotOptimize(n);
}

// ---- the file list of the floor: what each collector reads per poll (collectors/*.cpp) ----

/// The collectors whose files are opened, read and closed by path at every poll.
bool reopenedEachPoll(const std::string& collector) {
  return collector == "ethtool_pfc" || collector == "dcb_config" || collector == "dcqcn_config" ||
         collector == "lldp_neighbors" || collector == "transceiver";
}

void addIfFile(Rig& rig, const std::string& collector, const fs::path& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) rig.floor.push_back({collector, path.string()});
}

void addDirFiles(Rig& rig, const std::string& collector, const fs::path& dir,
                 std::string_view skip = {}) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().filename() != skip) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) rig.floor.push_back({collector, f.string()});
}

void buildFloorList(Rig& rig) {
  const fs::path& sys = rig.sysRoot;
  for (const auto& d : rig.topology->devices) {
    const fs::path dev = sys / "class/infiniband" / d.name;
    for (const auto& p : d.ports) {
      const fs::path port = dev / "ports" / std::to_string(p.number);
      // rdma_port: state, phys_state, rate as a gauge and rate again for fabricmon_port_info.
      for (const char* f : {"state", "phys_state", "rate", "rate"}) addIfFile(rig, "rdma_port", port / f);
      addDirFiles(rig, "pma_counters", port / "counters");
      addDirFiles(rig, "hw_counters", port / "hw_counters", "lifespan");
    }
    addDirFiles(rig, "hw_counters", dev / "hw_counters", "lifespan");
    // port_topology: only the current PCIe link changes while the topology does not.
    for (const char* f : {"current_link_width", "current_link_speed"}) addIfFile(rig, "port_topology", dev / "device" / f);
    // SlotGroupCache stats each device directory per poll to see a re-created device.
    for (const char* c : {"rdma_port", "pma_counters", "hw_counters"}) {
      rig.extras.push_back({c, dev.string(), false});
    }
  }
  for (const auto& n : rig.topology->netdevs) {
    const fs::path net = sys / "class/net" / n.name;
    for (const char* f : {"operstate", "carrier_changes", "carrier_up_count", "carrier_down_count"}) {
      addIfFile(rig, "netdev_link", net / f);
    }
    rig.extras.push_back({"netdev_link", net.string(), false});
    for (const char* role : {"roce_np", "roce_rp"}) {
      addDirFiles(rig, "dcqcn_config", net / "ecn" / role);
      addDirFiles(rig, "dcqcn_config", net / "ecn" / role / "enable");
    }
    if (!n.pciAddress.empty()) {
      addDirFiles(rig, "dcqcn_config", sys / "kernel/debug/mlx5" / n.pciAddress / "cc_params");
    }
    addIfFile(rig, "ethtool_pfc", rig.ethtoolDir / n.name);
    addIfFile(rig, "dcb_config", rig.dcbDir / n.name);
    // The transceiver collector reads 1-3 half pages of each image per run (each an open, two
    // preads, a close); the floor counts one read of the file.
    addIfFile(rig, "transceiver", rig.moduleEepromDir / (n.name + ".bin"));
  }
  addIfFile(rig, "lldp_neighbors", rig.lldpFile);
  // pcie_aer: the three aer_dev_* files of every PCI function on the devices' paths, a shared port once.
  const SysfsRoot sysfs(sys);
  std::set<std::string> functions;
  for (const auto& d : rig.topology->devices) {
    for (const PciHop& hop : pciChain(sysfs, d.name)) functions.insert(hop.path);
  }
  for (const auto& f : functions) {
    for (const char* file : {"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal"}) {
      addIfFile(rig, "pcie_aer", sys / f / file);
    }
  }
  // The file sources (--ethtool-dir, --dcb-dir, sources.lldp_file) and dcqcn_config open, read and
  // close their files every poll (docs/contract.md §2: files are re-read at every poll, a test may
  // replace them).
  for (const auto& f : rig.floor) {
    if (reopenedEachPoll(f.collector)) {
      rig.extras.push_back({f.collector, f.path, true});
    }
  }
}

bool setUp(Rig& rig) {
  // Two kept-open sets (the collectors' and the floor's) exceed the default soft limit of 1024.
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
  if (const char* tree = std::getenv("FABRICMON_BENCH_TREE"); tree != nullptr && *tree != '\0') {
    rig.sysRoot = fs::path(tree) / "sys";
    rig.ethtoolDir = fs::path(tree) / "ethtool";
    rig.dcbDir = fs::path(tree) / "dcb";
    rig.lldpFile = fs::path(tree) / "lldp/neighbors.json";
    rig.moduleEepromDir = fs::path(tree) / "module_eeprom";
    rig.fecDir = fs::path(tree) / "fec";
    rig.kmsgFile = fs::path(tree) / "kmsg";
  } else {
    const char* base = std::getenv("FABRICMON_BENCH_DIR");
    fs::path parent = base != nullptr ? fs::path(base)
                      : fs::is_directory("/dev/shm") ? fs::path("/dev/shm")
                                                     : fs::temp_directory_path();
    std::string tmpl = (parent / "fabricmon-poll-bench-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::fprintf(stderr, "poll_bench: mkdtemp %s failed\n", tmpl.c_str());
      return false;
    }
    rig.dir = tmpl;
    rig.sim = std::make_unique<sim::Simulator>(sim::SimOptions{.root = rig.dir, .lldpPod = "su1"});
    if (auto st = rig.sim->init(); !st) {
      std::fprintf(stderr, "poll_bench: simulator init: %s\n", st.error().message.c_str());
      return false;
    }
    if (auto st = rig.sim->tick(std::chrono::seconds(1)); !st) {
      std::fprintf(stderr, "poll_bench: simulator tick: %s\n", st.error().message.c_str());
      return false;
    }
    rig.sysRoot = rig.sim->sysfsRoot();
    rig.ethtoolDir = rig.sim->ethtoolDir();
    rig.dcbDir = rig.sim->dcbDir();
    rig.lldpFile = rig.dir / "lldp/neighbors.json";
    rig.moduleEepromDir = rig.sim->moduleEepromDir();
    rig.fecDir = rig.sim->fecDir();
    rig.kmsgFile = rig.sim->kmsgFile();
  }

  rig.config.sources.sysfsRoot = rig.sysRoot.string();
  rig.config.sources.ethtoolDir = rig.ethtoolDir.string();
  rig.config.sources.dcbDir = rig.dcbDir.string();
  rig.config.sources.lldpFile = rig.lldpFile.string();
  rig.config.sources.moduleEepromDir = rig.moduleEepromDir.string();
  if (fs::is_directory(rig.fecDir)) rig.config.sources.fecDir = rig.fecDir.string();
  if (fs::exists(rig.kmsgFile)) rig.config.sources.kmsgFile = rig.kmsgFile.string();
  rig.sources = makeSources(rig.config.sources);
  TopologyDiscovery discovery(rig.sources.sysfs, rig.config.devices, rig.config.netdev);
  auto topo = discovery.scan();
  if (!topo) {
    std::fprintf(stderr, "poll_bench: discovery: %s\n", topo.error().message.c_str());
    return false;
  }
  rig.topology = *topo;
  if (rig.topology->devices.empty()) {
    std::fprintf(stderr, "poll_bench: discovery found no RDMA device below %s\n",
                 rig.config.sources.sysfsRoot.c_str());
    return false;
  }

  for (const CollectorEntry* entry : collectorRegistry()) {
    // peer_port reads MADs, not the simulated node's files: its cost needs a fabric (ibsim).
    if (entry->name == "peer_port") continue;
    // slurm_jobs reads slurmd's spool and the job cgroups: the simulated node runs no jobs.
    if (entry->name == "slurm_jobs") continue;
    // A tree written before the simulator had FEC files or a kernel log has nothing for these.
    if (entry->name == "fec" && !fs::is_directory(rig.fecDir)) continue;
    if (entry->name == "nic_driver_log" && !fs::exists(rig.kmsgFile)) continue;
    // A tree written without LLDP neighbours (fabricsim without --lldp-pod) has nothing to read.
    if (entry->name == "lldp_neighbors" && !fs::exists(rig.lldpFile)) continue;
    // Likewise a tree written before the simulator had modules.
    if (entry->name == "transceiver" && !fs::is_directory(rig.moduleEepromDir)) continue;
    RunningCollector c;
    c.name = std::string(entry->name);
    c.cadence = entry->cadence;
    c.collector = entry->make(rig.sources, rig.config);
    c.errors = std::make_unique<ErrorTracker>(c.name);
    rig.collectors.push_back(std::move(c));
  }
  // Warm-up: builds every series and opens every kept descriptor, as the daemon's first poll does.
  // A collector whose source the simulated node does not have (devlink health: the kernel's devlink
  // or a capture, neither of which the simulator writes) says "no data" and is left out of the
  // timing; one that fails, or says it read something and returns nothing, fails the bench.
  bool failed = false;
  std::vector<RunningCollector> measured;
  for (auto& c : rig.collectors) {
    CollectStatus status{};
    auto batch = pollOnce(c, *rig.topology, &status);
    if (status == CollectStatus::kNoData && batch->samples.empty()) {
      std::fprintf(stderr, "poll_bench: collector %s: no data on the simulated node, left out\n", c.name.c_str());
      continue;
    }
    if (status != CollectStatus::kOk || batch->samples.empty()) {
      std::fprintf(stderr, "poll_bench: collector %s: status %d, %zu samples on the simulated node\n",
                   c.name.c_str(), static_cast<int>(status), batch->samples.size());
      failed = true;
    }
    rig.snapshot.push_back(std::move(batch));
    measured.push_back(std::move(c));
  }
  if (failed) return false;
  rig.collectors = std::move(measured);

  const std::string text = renderPrometheusText(rig.snapshot);
  rig.textBytes = text.size();
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (end > pos && text[pos] != '#') ++rig.seriesCount;
    pos = end + 1;
  }
  rig.gzipBytes = makePayload(text, 1).gzip().size();

  buildFloorList(rig);
  for (auto& f : rig.floor) {
    f.fd = ::open(f.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f.fd < 0) {
      std::fprintf(stderr, "poll_bench: open %s failed\n", f.path.c_str());
      return false;
    }
  }
  return true;
}

// ---- benchmarks ----

void BM_FullPoll(benchmark::State& state) {
  Rig& rig = *gRig;
  size_t samples = 0;
  for (auto _ : state) {
    samples = 0;
    for (auto& c : rig.collectors) samples += pollOnce(c, *rig.topology)->samples.size();
  }
  state.counters["samples"] = static_cast<double>(samples);
  state.counters["files"] = static_cast<double>(rig.floor.size());
}

/// The collectors that run at poll.interval (the others run at poll.slow_interval).
void BM_FastPoll(benchmark::State& state) {
  Rig& rig = *gRig;
  size_t samples = 0;
  for (auto _ : state) {
    samples = 0;
    for (auto& c : rig.collectors) {
      if (c.cadence == Cadence::kFast) samples += pollOnce(c, *rig.topology)->samples.size();
    }
  }
  state.counters["samples"] = static_cast<double>(samples);
}

void BM_Collector(benchmark::State& state, size_t index) {
  Rig& rig = *gRig;
  RunningCollector& c = rig.collectors[index];
  size_t samples = 0;
  for (auto _ : state) samples = pollOnce(c, *rig.topology)->samples.size();
  state.counters["samples"] = static_cast<double>(samples);
}

bool isFast(const Rig& rig, const std::string& collector) {
  for (const auto& c : rig.collectors) {
    if (c.name == collector) return c.cadence == Cadence::kFast;
  }
  return false;
}

/// The floor: the I/O of a poll and nothing else. `which` is a collector name, "all" or "fast".
void BM_Floor(benchmark::State& state, std::string which) {
  Rig& rig = *gRig;
  std::vector<int> fds;
  for (const auto& f : rig.floor) {
    if (which == "all" || f.collector == which || (which == "fast" && isFast(rig, f.collector))) {
      fds.push_back(f.fd);
    }
  }
  std::vector<char> buf(kReadBuffer);
  for (auto _ : state) {
    for (int fd : fds) preadAll(fd, buf.data());
  }
  state.counters["files"] = static_cast<double>(fds.size());
}

/// The floor plus what the design makes every poll do besides pread: stat each watched sysfs directory
/// (re-created device detection) and open/read/close the files that are re-read by path.
void BM_FloorPlus(benchmark::State& state) {
  Rig& rig = *gRig;
  std::vector<int> fds;  // files that are pread on kept descriptors
  for (const auto& f : rig.floor) {
    if (!reopenedEachPoll(f.collector)) fds.push_back(f.fd);
  }
  std::vector<char> buf(kReadBuffer);
  for (auto _ : state) {
    for (int fd : fds) preadAll(fd, buf.data());
    for (const auto& e : rig.extras) {
      if (e.openReadClose) {
        const int fd = ::open(e.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
          benchmark::DoNotOptimize(::read(fd, buf.data(), buf.size()));
          ::close(fd);
        }
      } else {
        struct stat st {};
        benchmark::DoNotOptimize(::stat(e.path.c_str(), &st));
      }
    }
  }
  state.counters["files"] = static_cast<double>(rig.floor.size());
  state.counters["stats"] = static_cast<double>(
      std::count_if(rig.extras.begin(), rig.extras.end(), [](const FloorExtra& e) { return !e.openReadClose; }));
}

void BM_RenderText(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(renderPrometheusText(gRig->snapshot));
  state.counters["series"] = static_cast<double>(gRig->seriesCount);
  state.counters["bytes"] = static_cast<double>(gRig->textBytes);
}

void BM_RenderAndPayload(benchmark::State& state) {
  uint64_t generation = 0;
  for (auto _ : state) {
    auto payload = makePayload(renderPrometheusText(gRig->snapshot), ++generation);
    benchmark::DoNotOptimize(payload.gzip());
  }
  state.counters["series"] = static_cast<double>(gRig->seriesCount);
  state.counters["gzip_bytes"] = static_cast<double>(gRig->gzipBytes);
}

// Snapshots of the warm-up batches one poll interval apart: the same series (as the collectors
// reuse them), values grown by a step each round, so every counter moves and every rule judges.
std::vector<Snapshot> watchdogRounds(const Rig& rig, size_t first, size_t count) {
  std::vector<Snapshot> rounds;
  const auto base = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  for (size_t r = first; r < first + count; ++r) {
    Snapshot snap;
    snap.generation = r + 1;
    for (const BatchPtr& b : rig.snapshot) {
      auto copy = std::make_shared<Batch>(*b);
      copy->monotonic = base + rig.config.poll.interval * r;
      for (Sample& sample : copy->samples) {
        if (sample.series->family->type == MetricType::kCounter) sample.value += 1000.0 * double(r);
      }
      snap.batches[copy->collector] = std::move(copy);
    }
    rounds.push_back(std::move(snap));
  }
  return rounds;
}

void BM_WatchdogPass(benchmark::State& state) {
  Watchdog watchdog(gRig->config.watchdog, gRig->config.qos);
  constexpr size_t kRounds = 64;
  size_t next = 0;
  std::vector<Snapshot> rounds = watchdogRounds(*gRig, next, kRounds);
  size_t i = 0;
  const auto wall = std::chrono::system_clock::now();
  for (auto _ : state) {
    if (i == rounds.size()) {
      state.PauseTiming();
      next += kRounds;
      rounds = watchdogRounds(*gRig, next, kRounds);
      i = 0;
      state.ResumeTiming();
    }
    const Snapshot& snap = rounds[i++];
    watchdog.evaluate(snap, snap.batches.begin()->second->monotonic, wall);
  }
  state.counters["series"] = static_cast<double>(gRig->seriesCount);
}

// ---- the summary after the table ----

/// Keeps the CPU time of every run (in µs) so the ratios can be printed at the end.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(OutputOptions options) : ConsoleReporter(options) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      if (r.error_occurred) continue;
      const double us = r.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(r.time_unit) * 1e6;
      const std::string name = r.run_name.str();
      // With --benchmark_repetitions the median is kept; otherwise the single run.
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        cpuUs_[name] = us;
        fromMedian_.insert(name);
      } else if (r.run_type == Run::RT_Iteration && !fromMedian_.contains(name)) {
        cpuUs_[name] = us;
      }
    }
  }

  double us(const std::string& name) const {
    auto it = cpuUs_.find(name);
    return it == cpuUs_.end() ? -1 : it->second;
  }

 private:
  std::map<std::string, double> cpuUs_;
  std::set<std::string> fromMedian_;
};

constexpr double kTargetRatio = 1.5;

void printRatio(const char* label, double poll, double floor) {
  if (poll < 0 || floor <= 0) return;
  std::printf("%-34s %10.1f %10.1f %8.2f\n", label, poll, floor, poll / floor);
}

void printSummary(const Rig& rig, const SummaryReporter& rep) {
  const double poll = rep.us("BM_FullPoll");
  const double floor = rep.us("BM_Floor/all");
  const double floorPlus = rep.us("BM_FloorPlus");
  std::printf("\n== poll_bench summary: CPU time per operation, microseconds ==\n");
  std::printf("node: %zu RDMA devices, %zu interfaces, %zu files read per poll, %zu series\n",
              rig.topology->devices.size(), rig.topology->netdevs.size(), rig.floor.size(),
              rig.seriesCount);
  std::printf("%-34s %10s %10s %8s\n", "", "poll", "floor", "ratio");
  printRatio("all collectors vs pread floor", poll, floor);
  printRatio("all collectors vs floor+", poll, floorPlus);
  printRatio("fast collectors vs their pread floor", rep.us("BM_FastPoll"), rep.us("BM_Floor/fast"));
  double perSecond = 0;
  bool complete = true;
  const double slowEvery = std::chrono::duration<double>(rig.config.poll.slowInterval).count() /
                           std::chrono::duration<double>(rig.config.poll.interval).count();
  for (const auto& c : rig.collectors) {
    const double us = rep.us("BM_Collector/" + c.name);
    const std::string label = "  " + c.name + (c.cadence == Cadence::kFast ? " (fast)" : " (slow)");
    printRatio(label.c_str(), us, rep.us("BM_Floor/" + c.name));
    if (us < 0) complete = false;
    perSecond += c.cadence == Cadence::kFast ? us : us / slowEvery;
  }
  if (complete) {
    std::printf("collector CPU per second at the default intervals (fast every %.0f ms, slow every %.0f ms): "
                "%.1f us/s = %.3f %% of one core\n",
                std::chrono::duration<double, std::milli>(rig.config.poll.interval).count(),
                std::chrono::duration<double, std::milli>(rig.config.poll.slowInterval).count(), perSecond,
                perSecond / 1e4);
  }
  const double fastFloor = rep.us("BM_Floor/fast");
  if (floor > 0 && fastFloor > 0) {
    // What the floor costs per second of polling: the fast files every poll.interval, the others
    // every poll.slow_interval (10 s by default). scale_bench.sh reads these two lines.
    const double slowSeconds = std::chrono::duration<double>(rig.config.poll.slowInterval).count();
    for (double interval : {1.0, 0.25}) {
      std::printf("pread floor per second at %.0f ms polling: floor_us_per_s=%.1f\n", interval * 1000,
                  fastFloor / interval + (floor - fastFloor) / slowSeconds);
    }
  }
  if (poll >= 0 && floor > 0) {
    const double ratio = poll / floor;
    std::printf("target full poll <= %.1f x pread floor: %s (%.2f)\n", kTargetRatio,
                ratio <= kTargetRatio ? "met" : "MISSED", ratio);
  }
  const double pass = rep.us("BM_WatchdogPass");
  if (pass >= 0) {
    std::printf("watchdog pass (history ingest + every rule) per poll: %.1f us for %zu series\n", pass,
                rig.seriesCount);
  }
  const double render = rep.us("BM_RenderAndPayload");
  if (render >= 0) {
    std::printf("render text + gzip payload: %.1f us (text only %.1f us) for %zu series, %zu bytes (%zu gzip)\n",
                render, rep.us("BM_RenderText"), rig.seriesCount, rig.textBytes, rig.gzipBytes);
  }
}

}  // namespace
}  // namespace fabricmon::bench

int main(int argc, char** argv) {
  using namespace fabricmon::bench;
  // Per-file errors would be logged; the simulated node has none, and the table must stay readable.
  spdlog::set_level(spdlog::level::warn);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  auto rig = std::make_unique<Rig>();
  if (!setUp(*rig)) return 1;
  gRig = rig.get();

  const auto unit = benchmark::kMicrosecond;
  benchmark::RegisterBenchmark("BM_FullPoll", BM_FullPoll)->Unit(unit);
  benchmark::RegisterBenchmark("BM_Floor/all", BM_Floor, std::string("all"))->Unit(unit);
  benchmark::RegisterBenchmark("BM_FastPoll", BM_FastPoll)->Unit(unit);
  benchmark::RegisterBenchmark("BM_Floor/fast", BM_Floor, std::string("fast"))->Unit(unit);
  benchmark::RegisterBenchmark("BM_FloorPlus", BM_FloorPlus)->Unit(unit);
  for (size_t i = 0; i < rig->collectors.size(); ++i) {
    const std::string& name = rig->collectors[i].name;
    benchmark::RegisterBenchmark(("BM_Collector/" + name).c_str(), BM_Collector, i)->Unit(unit);
    benchmark::RegisterBenchmark(("BM_Floor/" + name).c_str(), BM_Floor, name)->Unit(unit);
  }
  benchmark::RegisterBenchmark("BM_RenderText", BM_RenderText)->Unit(unit);
  benchmark::RegisterBenchmark("BM_RenderAndPayload", BM_RenderAndPayload)->Unit(unit);
  benchmark::RegisterBenchmark("BM_WatchdogPass", BM_WatchdogPass)->Unit(unit);

  // Colour only on a terminal, as the default reporter does with --benchmark_color=auto.
  SummaryReporter reporter(::isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular
                                                   : benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printSummary(*rig, reporter);
  benchmark::Shutdown();
  return 0;
}
