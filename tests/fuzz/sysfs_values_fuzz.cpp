// The sysfs value parsers (collectors/sources/parse.hpp, parseNetdevFlagsUp, parsePcieSpeed, parsePcieWidth, isPciAddress, the hwmon
// temperature and label parsers of collectors/sources/hwmon_source.hpp): the first byte picks the parser, the rest is
// the file's text.
#include <cmath>
#include <cstdint>
#include <string>

#include "collectors/host_topology.hpp"
#include "collectors/sources/hwmon_source.hpp"
#include "collectors/sources/kmsg_record.hpp"
#include "collectors/sources/parse.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(fuzz::asText(data + 1, size - 1));
  switch (data[0] % 13) {
    case 0: {
      const std::string_view t = trim(text);
      FUZZ_CHECK(t.size() <= text.size());
      break;
    }
    case 1:
      (void)parseCounter(text);
      break;
    case 2:
      (void)parseEnumNumber(text);
      break;
    case 3: {
      auto r = parseRateBytesPerSecond(text);
      if (r) FUZZ_CHECK(std::isfinite(*r) && *r > 0 && *r <= kMaxRateGbps * 1e9 / 8);
      break;
    }
    case 4: {
      auto r = parsePortState(text);
      if (r) FUZZ_CHECK(*r <= 5);
      break;
    }
    case 5: {
      auto r = parsePhysState(text);
      if (r) FUZZ_CHECK(*r <= 7);
      break;
    }
    case 6: {
      auto r = parseOperstateUp(text);
      if (r) FUZZ_CHECK(*r == 0 || *r == 1);
      break;
    }
    case 7: {
      auto r = parseSwitch(text);
      if (r) FUZZ_CHECK(*r == 0 || *r == 1);
      auto flags = parseNetdevFlagsUp(text);
      if (flags) FUZZ_CHECK(*flags == 0 || *flags == 1);
      break;
    }
    case 8: {
      auto r = parsePcieSpeed(text);
      if (r) FUZZ_CHECK(std::isfinite(*r) && *r > 0);
      break;
    }
    case 9:
      if (isPciAddress(text)) {
        // dddd:bb:dd.f with 4 to 8 domain digits (VMD domains have 5).
        const size_t n = text.size();
        FUZZ_CHECK(n >= kPciAddressMinLength && n <= kPciAddressMaxLength);
        FUZZ_CHECK(text[n - 8] == ':' && text[n - 5] == ':' && text[n - 2] == '.');
      }
      break;
    case 10: {
      auto r = parsePcieWidth(text);
      if (r) FUZZ_CHECK(*r >= 1 && *r <= 32);
      break;
    }
    case 11: {
      auto r = parseHwmonMillidegrees(text);
      if (r) FUZZ_CHECK(std::isfinite(*r) && *r >= kHwmonMinCelsius && *r <= kHwmonMaxCelsius);
      break;
    }
    case 12: {
      auto r = parseHwmonLabel(text);
      if (r) FUZZ_CHECK(!r->empty() && r->size() <= 32 && r->find('"') == std::string::npos);
      break;
    }
  }
  return 0;
}
