// Kernel log records (collectors/sources/kmsg_record.hpp) and the driver-message matcher that reads
// them (collectors/nic_driver_messages.hpp). The input is a run of records separated by NUL bytes,
// matched in order as the collector does (the matcher keeps state across records).
#include <cstdint>
#include <string_view>

#include "collectors/nic_driver_messages.hpp"
#include "collectors/sources/kmsg_record.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view all = fuzz::asText(data, size);
  DriverLogMatcher matcher;
  while (!all.empty()) {
    const size_t end = all.find('\0');
    const std::string_view one = all.substr(0, end);
    all = end == std::string_view::npos ? std::string_view() : all.substr(end + 1);
    auto record = parseKmsgRecord(one);
    (void)pciFromPrefix(one);
    if (!record) continue;
    FUZZ_CHECK(record->level <= 7);
    FUZZ_CHECK(record->message.size() <= kKmsgMaxMessage);
    const std::string_view pci = record->pciDevice();
    if (!pci.empty()) FUZZ_CHECK(isPciAddress(pci));
    if (auto m = matcher.match(*record)) {
      FUZZ_CHECK(m->row != nullptr);
      if (!m->pci.empty()) FUZZ_CHECK(isPciAddress(m->pci));
    }
  }
  return 0;
}
