// rtnetlink DCB replies (collectors/sources/dcb_netlink_msg.hpp): the datagram the kernel answers
// RTM_GETDCB with, and the YAML of the --dcb-dir files (collectors/sources/dcb_file_source.hpp).
// First byte: which parser; for netlink also the command the reply is read for.
#include <linux/dcbnl.h>

#include <cstdint>
#include <span>
#include <string>

#include "collectors/sources/dcb_file_source.hpp"
#include "collectors/sources/dcb_netlink_msg.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::span<const uint8_t> body(data + 1, size - 1);
  if (mode & 0x80) {
    auto info = parseDcbYaml(fuzz::asText(body.data(), body.size()));
    if (info) FUZZ_CHECK(!info->trust || *info->trust == "dscp" || *info->trust == "pcp");
    return 0;
  }
  // Bit 0 picks the command the reply is read for; bit 1 the sequence number expected (1, that of
  // the seeds' replies, or 0).
  const uint8_t cmd = (mode & 1) ? DCB_CMD_GDCBX : DCB_CMD_IEEE_GET;
  auto reply = dcbnl::parseReply(body, (mode & 2) ? 0u : 1u, cmd);
  if (reply && reply->kernelErrno == 0) {
    for (const auto& [dscp, prio] : reply->dscpToPriority) {
      FUZZ_CHECK(dscp < 64);
      FUZZ_CHECK(prio < 8);
    }
    auto trust = dcbnl::inferTrust(*reply);
    FUZZ_CHECK(trust.has_value() == reply->hasAppTable);
  }
  (void)dcbnl::decodePfcPreventionTimeoutMs(uint16_t(mode) << 8 | uint16_t(size & 0xff));
  return 0;
}
