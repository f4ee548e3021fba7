#pragma once
// Building and parsing the ethtool generic-netlink messages the FEC source sends (linux/genetlink.h,
// linux/ethtool_netlink.h) as pure functions over byte buffers, kept apart from the socket so tests
// can feed them replies built byte by byte. Documentation/networking/ethtool-netlink.rst describes
// the messages: FEC_GET (with ETHTOOL_FLAG_STATS: the FEC statistics), LINKMODES_GET (speed, lanes).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectors/sources/fec_source.hpp"
#include "model/result.hpp"

namespace fabricmon::ethnl {

// The family id is asked of the controller by the socket (genl::buildFamilyRequest,
// collectors/sources/netlink_socket.hpp).

/// An ethtool GET request (`cmd` ETHTOOL_MSG_FEC_GET or ETHTOOL_MSG_LINKMODES_GET) for `ifname`:
/// its header nest (attribute 1 of both) carries ETHTOOL_A_HEADER_DEV_NAME and
/// ETHTOOL_A_HEADER_FLAGS = `flags` (ETHTOOL_FLAG_STATS, ETHTOOL_FLAG_COMPACT_BITSETS).
std::vector<uint8_t> buildGetRequest(uint16_t family, uint8_t cmd, const std::string& ifname, uint32_t flags,
                                     uint32_t seq);

/// What one GET reply said: kernelErrno > 0 for a refusal (EOPNOTSUPP: the driver lacks the
/// operation; ENODEV: no such interface), else the fields of `info` it carried.
struct GetReply {
  int kernelErrno = 0;
  FecInfo info;
};
/// Parses an ETHTOOL_MSG_FEC_GET_REPLY: ETHTOOL_A_FEC_ACTIVE (a link-mode bit: FEC_NONE 49, RS 50,
/// BASER 51, LLRS 74) and the ETHTOOL_A_FEC_STATS nest ([total, lane 0, ...] u64 arrays).
Result<GetReply> parseFecReply(std::span<const uint8_t> datagram, uint32_t expectedSeq, uint16_t family);
/// Parses an ETHTOOL_MSG_LINKMODES_GET_REPLY: speed (SPEED_UNKNOWN = unset) and lanes.
Result<GetReply> parseLinkModesReply(std::span<const uint8_t> datagram, uint32_t expectedSeq, uint16_t family);

/// Appends a netlink attribute (header, payload, padding to 4 bytes) to `out`; for tests and the
/// builders.
void putAttr(std::vector<uint8_t>& out, uint16_t type, std::span<const uint8_t> payload);

}  // namespace fabricmon::ethnl
