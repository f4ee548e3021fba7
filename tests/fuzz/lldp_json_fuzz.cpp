// lldpcli's JSON (`lldpcli -f json0 show neighbors details`, collectors/sources/lldp_source.hpp).
#include <cstdint>

#include "collectors/sources/lldp_source.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = parseLldpJson0(fuzz::asText(data, size));
  if (r) {
    for (const auto& n : *r) FUZZ_CHECK(!n.interface.empty());
  }
  return 0;
}
