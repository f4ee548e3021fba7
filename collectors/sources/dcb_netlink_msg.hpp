#pragma once
// Building and parsing the rtnetlink DCB messages (RTM_GETDCB, linux/dcbnl.h) as pure functions
// over byte buffers, kept apart from the socket so tests can feed them messages built byte by byte.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fabricmon::dcbnl {

/// What one RTM_GETDCB reply said. A reply is either a kernel refusal (kernelErrno > 0) or data.
struct DcbReply {
  int kernelErrno = 0;  ///< errno of an NLMSG_ERROR reply (EOPNOTSUPP: no DCB on this device)
  std::optional<uint8_t> pfcEnabledBitmap;             ///< ieee_pfc.pfc_en, bit N = priority N
  std::optional<std::array<uint64_t, 8>> pfcRequests;  ///< ieee_pfc.requests[] (mlx5: tx pause)
  std::optional<std::array<uint64_t, 8>>
      pfcIndications;                           ///< ieee_pfc.indications[] (mlx5: rx pause)
  bool hasAppTable = false;                     ///< DCB_ATTR_IEEE_APP_TABLE was present
  std::map<unsigned, unsigned> dscpToPriority;  ///< APP entries with selector DSCP
  std::optional<unsigned> dcbxMode;             ///< DCB_ATTR_DCBX (DCB_CAP_DCBX_* bits)
};

/// One RTM_GETDCB request for `cmd` (DCB_CMD_IEEE_GET, DCB_CMD_GDCBX) on `ifname`, as sent to the
/// kernel: nlmsghdr, struct dcbmsg, DCB_ATTR_IFNAME (NUL-terminated). Flags: NLM_F_REQUEST only.
std::vector<uint8_t> buildGetRequest(uint8_t cmd, const std::string& ifname, uint32_t seq);

/// Parses the datagram the kernel answered with. Every netlink message in it must carry
/// `expectedSeq`; the first RTM_GETDCB message for `expectedCmd` or NLMSG_ERROR with a non-zero
/// error is the answer (plain ACKs and NOOPs are skipped). Lengths of every nlmsghdr and rtattr are
/// checked against the buffer: a truncated or malformed message is an Error, never an out-of-bounds
/// read.
Result<DcbReply> parseReply(std::span<const uint8_t> datagram, uint32_t expectedSeq,
                            uint8_t expectedCmd);

/// mlx5 switches the port to trust DSCP when the first DSCP APP entry is added and back to PCP when
/// the last one goes (drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c, mlx5e_dcbnl_ieee_setapp /
/// delapp), and lists the 64 DSCP entries while trust is DSCP. So: DSCP entries => "dscp", else
/// "pcp". std::nullopt when the reply had no APP table at all.
std::optional<std::string> inferTrust(const DcbReply& ieee);

/// ETHTOOL_PFC_PREVENTION_TOUT value in ms: 0 = off; PFC_STORM_PREVENTION_AUTO (0xffff) means the
/// driver default, 100 ms on mlx5 (MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC, en_ethtool.c).
unsigned decodePfcPreventionTimeoutMs(uint16_t raw);

}  // namespace fabricmon::dcbnl
