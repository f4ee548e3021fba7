// devlink health reporters (collectors/sources/devlink_health_source.hpp): one datagram of the
// DEVLINK_CMD_HEALTH_REPORTER_GET dump's answer, or the JSON of `devlink -j -s health show`.
// First byte: which.
#include <cstdint>
#include <span>
#include <string>

#include "collectors/sources/devlink_health_source.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

namespace {

// The promises of DevlinkHealthReport: every kept reporter has a usable handle and name (its key
// starts with its bus and device), at most 4096 reporters are kept, and no key is kept twice.
void checkReport(const DevlinkHealthReport& report) {
  FUZZ_CHECK(report.reporters.size() <= 4096);
  for (size_t i = 0; i < report.reporters.size(); ++i) {
    const auto& r = report.reporters[i];
    FUZZ_CHECK(!r.bus.empty() && !r.device.empty() && !r.name.empty());
    FUZZ_CHECK(r.key().rfind(r.bus + "/" + r.device + "/", 0) == 0);
    for (size_t j = 0; j < i; ++j) FUZZ_CHECK(report.reporters[j].key() != r.key());
  }
  for (const auto& [key, error] : report.rejected) FUZZ_CHECK(!key.empty() && error.errnum != 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> body(data + 1, size - 1);
  // The family id and sequence number of the seeds' datagrams (make_seeds.py).
  constexpr uint32_t kSeq = 1;
  constexpr uint16_t kFamily = 21;
  if (data[0] % 2 == 0) {
    DevlinkHealthReport report;
    auto r = devlink::parseHealthReporterDump(body, kSeq, kFamily, report);
    if (r && r->kernelErrno != 0) FUZZ_CHECK(r->done);
    checkReport(report);
  } else {
    auto r = parseDevlinkHealthJson(fuzz::asText(body.data(), body.size()));
    if (r) checkReport(*r);
  }
  return 0;
}
