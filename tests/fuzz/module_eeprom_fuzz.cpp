// Module EEPROM decoders (collectors/transceiver_decode.hpp): SFF-8472, SFF-8636 and CMIS over a
// flat image as the ioctl or a --transceiver-dir file gives it (docs/contract.md §2).
#include <cmath>
#include <cstdint>
#include <span>

#include "collectors/transceiver_decode.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;
using namespace fabricmon::transceiver;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ModuleMemory memory = memoryFromImage(std::span<const uint8_t>(data, size));
  auto id = decodeIdentity(memory);
  if (!id) return 0;
  FUZZ_CHECK(id->lanes >= 1 && id->lanes <= 8);
  (void)monitorPages(*id);
  (void)identityPages(id->spec, memory);
  const Diagnostics d = decodeDiagnostics(memory, *id);
  auto finite = [](const std::optional<double>& v) { FUZZ_CHECK(!v || std::isfinite(*v)); };
  finite(d.temperatureCelsius);
  finite(d.supplyVoltageVolts);
  for (const auto* lanes : {&d.txBiasAmperes, &d.txPowerWatts, &d.rxPowerWatts}) {
    FUZZ_CHECK(lanes->size() <= id->lanes);
    for (const auto& v : *lanes) finite(v);
  }
  for (const auto& t : d.thresholds) {
    if (t) {
      for (double v : *t) FUZZ_CHECK(std::isfinite(v));
    }
  }
  for (const Flag& f : d.flags) FUZZ_CHECK(f.lane <= 8);
  return 0;
}
