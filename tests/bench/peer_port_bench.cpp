// peer_port_bench: what the peer_port collector costs per poll against a real simulated InfiniBand
// fabric (docs/benchmarks.md, "peer_port_bench"). Run it as one HCA of ibsim, through libumad2sim:
// tests/bench/peer_port_bench.sh starts the fabric and runs this.
//
//   peer_port_bench POLLS
//
// Prints, for the HCA's InfiniBand ports: MADs per poll (first poll, when every neighbour is
// learnt, and steady state), and wall and CPU time per poll, twice: with no sysfs view of the ports
// (the local PMA is read over MADs too, as under libumad2sim) and as on a real node, where sysfs
// shows them and pma_counters reads the local counters. Numbers are printed, never asserted.

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "collectors/collector.hpp"
#include "collectors/error_tracker.hpp"
#include "collectors/peer_port_collector.hpp"
#include "collectors/sources/mad_source.hpp"

namespace {

using fabricmon::CollectOutput;
using fabricmon::ErrorTracker;
using fabricmon::Topology;

double cpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct Cost {
  double firstMads = 0, mads = 0, wallMs = 0, cpuMs = 0;
  size_t samples = 0;
  uint64_t errors = 0;
};

Cost measure(const Topology& topology, unsigned polls, unsigned& ports) {
  auto source = std::shared_ptr<fabricmon::MadSource>(fabricmon::makeUmadSource(200, 0));
  auto collector = fabricmon::makePeerPortCollector(source);
  ErrorTracker tracker("peer_port");
  Cost cost;
  fabricmon::Batch batch;
  auto poll = [&] {
    batch = fabricmon::Batch{};
    CollectOutput out(batch, tracker);
    collector->collect(topology, out);
    cost.errors += out.errorCount();
  };
  uint64_t before = source->madsSent();
  poll();
  cost.firstMads = double(source->madsSent() - before);
  before = source->madsSent();
  const double cpu0 = cpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < polls; ++i) poll();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cost.mads = double(source->madsSent() - before) / polls;
  cost.wallMs = wall * 1e3 / polls;
  cost.cpuMs = (cpuSeconds() - cpu0) * 1e3 / polls;
  cost.samples = batch.samples.size();
  auto listed = source->ports();
  ports = 0;
  if (listed) {
    for (const auto& p : *listed) ports += p.infiniband ? 1 : 0;
  }
  return cost;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned polls = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 50;
  if (polls == 0) {
    std::fprintf(stderr, "usage: peer_port_bench POLLS (as an HCA of ibsim: tests/bench/peer_port_bench.sh)\n");
    return 2;
  }
  spdlog::set_level(spdlog::level::off);
  unsigned ports = 0;
  const Cost bare = measure(Topology{}, polls, ports);
  // As on a real node: sysfs shows the CA, so the local PMA is pma_counters' (not MADs of ours).
  Topology sysfs;
  if (auto listed = fabricmon::makeUmadSource(200, 0)->ports()) {
    for (const auto& p : *listed) {
      if (sysfs.devices.empty() || sysfs.devices.back().name != p.ca) sysfs.devices.push_back({p.ca, "", 1, {}});
      sysfs.devices.back().ports.push_back({p.port, p.infiniband ? "InfiniBand" : "Ethernet", {}});
    }
  }
  const Cost real = measure(sysfs, polls, ports);
  std::printf("peer_port_bench: %u InfiniBand ports, %u polls each\n", ports, polls);
  std::printf("%-34s %10s %10s %10s %10s %10s %8s %7s\n", "", "MADs/1st", "MADs/poll", "MADs/port", "wall ms",
              "CPU ms", "samples", "errors");
  for (const auto& [name, c] : {std::pair{"no sysfs (local PMA over MADs)", bare}, std::pair{"sysfs shows the CA", real}}) {
    std::printf("%-34s %10.0f %10.1f %10.1f %10.3f %10.3f %8zu %7llu\n", name, c.firstMads, c.mads,
                ports ? c.mads / ports : 0.0, c.wallMs, c.cpuMs, c.samples, static_cast<unsigned long long>(c.errors));
  }
  return bare.errors + real.errors == 0 && ports > 0 ? 0 : 1;
}
