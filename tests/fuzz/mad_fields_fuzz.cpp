// MAD attribute decoding (collectors/sources/mad_fields.hpp): the data area libibmad returns for
// NodeInfo, NodeDescription, PortInfo, ClassPortInfo and the PMA counter attributes, of any length
// up to the MAD's, plus the hex text of the fixtures. First byte: which decoder.
#include <cstdint>
#include <span>
#include <string>

#include "collectors/sources/mad_fields.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::span<const uint8_t> body(data + 1, size - 1);
  if (body.size() > sizeof(mad::Payload)) body = body.first(sizeof(mad::Payload));
  auto counters = [](const std::vector<mad::Counter>& cs) {
    for (const auto& c : cs) {
      FUZZ_CHECK(!c.name.empty());
      FUZZ_CHECK(c.bits >= 1 && c.bits <= 64);
      if (c.bits < 64) FUZZ_CHECK(c.value < (uint64_t{1} << c.bits));
    }
  };
  switch (mode % 9) {
    case 0:
      if (auto n = mad::decodeNodeInfo(body)) (void)mad::nodeTypeName(n->type);
      break;
    case 1: {
      const std::string d = mad::decodeNodeDescription(body);
      for (char c : d) FUZZ_CHECK(c >= 0x20 && c <= 0x7e);
      break;
    }
    case 2:
      if (auto p = mad::decodePortInfo(body)) {
        FUZZ_CHECK(p->laneGbpsActive >= 0 && p->laneGbpsActive < 1000);
      }
      break;
    case 3:
      (void)mad::decodeClassPortInfo(body);
      break;
    case 4:
      counters(mad::decodePortCounters(body, mode & 0x80));
      break;
    case 5:
      counters(mad::decodePortCountersExtended(body));
      break;
    case 6:
      counters(mad::decodeRcvErrorDetails(body));
      break;
    case 7:
      counters(mad::decodeXmitDiscardDetails(body));
      break;
    case 8:
      (void)mad::payloadFromHex(fuzz::asText(data + 1, size - 1));
      (void)mad::widestLanes(mode);
      (void)mad::fastestSpeedGbps(size & 0xff, mode);
      break;
  }
  return 0;
}
