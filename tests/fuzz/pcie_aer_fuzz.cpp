// The PCIe AER counter files, aer_dev_{correctable,nonfatal,fatal} (collectors/pcie_aer_collector.hpp).
// First byte: the severity of the file.
#include <cstdint>
#include <set>
#include <string_view>

#include "collectors/pcie_aer_collector.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const AerSeverity severity = data[0] % 3 == 0   ? AerSeverity::kCorrectable
                               : data[0] % 3 == 1 ? AerSeverity::kNonFatal
                                                  : AerSeverity::kFatal;
  auto r = parseAerStats(fuzz::asText(data + 1, size - 1), severity);
  if (!r) return 0;
  FUZZ_CHECK(r->count <= AerStats::kMaxEntries);
  std::set<std::string_view> names;
  for (size_t i = 0; i < r->count; ++i) {
    const AerEntry& e = r->entries[i];
    FUZZ_CHECK(!e.error.empty() && e.error.size() <= 64);
    FUZZ_CHECK(names.insert(e.error).second);
    FUZZ_CHECK(e.value <= (uint64_t{1} << 53));
  }
  return 0;
}
