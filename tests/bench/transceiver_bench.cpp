// Cost of reading and decoding pluggable modules (docs/benchmarks.md, "Transceiver reads"):
//  - decode: the three memory maps, identity + diagnostics, per port;
//  - a transceiver collector run over the image-file source, per port (the reads of a run: lower
//    page, serial bytes, lane page; the identity pages only at the first run);
//  - one SIOCETHTOOL GMODULEINFO on `lo` (the kernel's answer is EOPNOTSUPP): the system-call floor
//    of the ioctl source, without the I2C transfer a real module adds.
#include <benchmark/benchmark.h>

#include <fstream>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/module_eeprom_source.hpp"
#include "collectors/transceiver_decode.hpp"
#include "config/config.hpp"
#include "sim/module_image.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

void decode(benchmark::State& state, const sim::ModuleParams& p) {
  const transceiver::ModuleMemory m = transceiver::memoryFromImage(sim::buildModuleImage(p));
  for (auto _ : state) {
    auto id = transceiver::decodeIdentity(m);
    auto d = transceiver::decodeDiagnostics(m, *id);
    benchmark::DoNotOptimize(d);
  }
}
void BM_DecodeSff8472(benchmark::State& s) { decode(s, sim::sfp28Module("S")); }
void BM_DecodeSff8636(benchmark::State& s) { decode(s, sim::qsfp28Module("Q")); }
void BM_DecodeCmis(benchmark::State& s) { decode(s, sim::cmis400gModule("C", true)); }
BENCHMARK(BM_DecodeSff8472);
BENCHMARK(BM_DecodeSff8636);
BENCHMARK(BM_DecodeCmis);

// One collector run over `ports` CMIS modules from files; reported per port.
void BM_CollectorRunPerPort(benchmark::State& state) {
  testing::TempDir dir("fabricmon-xcvr-bench");
  Topology topology;
  const int ports = static_cast<int>(state.range(0));
  for (int i = 0; i < ports; ++i) {
    const std::string name = "eth" + std::to_string(i);
    const auto image =
        sim::buildModuleImage(sim::cmis400gModule("C" + std::to_string(i), i % 2 == 0));
    std::ofstream(dir.path() / (name + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(image.data()),
               static_cast<std::streamsize>(image.size()));
    topology.netdevs.push_back(Netdev{name, "", "mlx5_" + std::to_string(i), 1, ""});
  }
  Sources sources;
  sources.moduleEeprom = makeModuleEepromFileSource(dir.path());
  auto collector = makeCollector("transceiver", sources, Config{});
  ErrorTracker errors("transceiver");
  Batch batch;
  for (auto _ : state) {
    batch = Batch{};
    CollectOutput out(batch, errors);
    collector->collect(topology, out);
  }
  state.SetItemsProcessed(state.iterations() * ports);
  state.counters["samples_per_run"] = static_cast<double>(batch.samples.size());
}
BENCHMARK(BM_CollectorRunPerPort)->Arg(1)->Arg(9);

void BM_IoctlModuleInfoOnLo(benchmark::State& state) {
  auto source = makeModuleEepromIoctlSource();
  std::array<uint8_t, 128> buf{};
  for (auto _ : state) {
    auto st = source->read("lo", EepromRead{0x50, 0, 0, 0, 128}, buf);
    benchmark::DoNotOptimize(st);
  }
}
BENCHMARK(BM_IoctlModuleInfoOnLo);

}  // namespace
}  // namespace fabricmon

BENCHMARK_MAIN();
