// ethtool generic-netlink replies (collectors/sources/fec_netlink_msg.hpp): the controller's family
// reply, FEC_GET and LINKMODES_GET replies, and the YAML of the --fec-dir files. First byte: which.
#include <cstdint>
#include <span>
#include <string>

#include "collectors/sources/fec_netlink_msg.hpp"
#include "collectors/sources/fec_source.hpp"
#include "collectors/sources/netlink_socket.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

namespace {

void checkInfo(const FecInfo& info) {
  if (info.lanes) FUZZ_CHECK(*info.lanes <= 8);
  for (const FecCounter* c : {&info.corrected, &info.uncorrectable, &info.correctedBits}) {
    FUZZ_CHECK(c->lanes.size() <= 8);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::span<const uint8_t> body(data + 1, size - 1);
  // The family id and sequence number of the seeds' replies (make_seeds.py).
  constexpr uint32_t kSeq = 1;
  constexpr uint16_t kFamily = 20;
  switch (mode % 4) {
    case 0:
      (void)genl::parseFamilyReply(body, kSeq);
      break;
    case 1: {
      auto r = ethnl::parseFecReply(body, kSeq, kFamily);
      if (r) checkInfo(r->info);
      break;
    }
    case 2: {
      auto r = ethnl::parseLinkModesReply(body, kSeq, kFamily);
      if (r) checkInfo(r->info);
      break;
    }
    case 3: {
      auto r = parseFecYaml(std::string(fuzz::asText(body.data(), body.size())));
      if (r) checkInfo(*r);
      break;
    }
  }
  return 0;
}
