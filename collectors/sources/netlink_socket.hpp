#pragma once
// One netlink socket reused across requests, as the DCB (rtnetlink), FEC and module EEPROM
// (ethtool generic netlink) sources use it: opened on first use, one request and its answer at a
// time, closed after a failed send or receive so that a late answer is never taken for the next
// request's (the next request opens a new one). The kernel answers these requests synchronously
// inside sendto(); the receive timeout only guards against one that never does.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

struct NetlinkSocketOptions {
  int protocol = 0;  ///< NETLINK_ROUTE, NETLINK_GENERIC
  std::string name;  ///< for errors: "dcbnl", "ethtool netlink"
  std::chrono::seconds receiveTimeout{2};
  size_t bufferSize = 32 * 1024;  ///< a larger reply is an error (EMSGSIZE), never cut silently
  bool extendedAck = false;       ///< NETLINK_EXT_ACK: the kernel's reason with an error
};

class NetlinkSocket {
 public:
  explicit NetlinkSocket(NetlinkSocketOptions options);
  ~NetlinkSocket();
  NetlinkSocket(const NetlinkSocket&) = delete;
  NetlinkSocket& operator=(const NetlinkSocket&) = delete;

  /// The next sequence number for a request.
  uint32_t nextSeq() { return ++seq_; }

  /// Sends `request` (sequence number `seq`) and returns the first datagram that answers it;
  /// datagrams left from an earlier request are dropped. Errors name `what`
  /// ("dcbnl eth0: recv: Connection timed out"). The span is valid until the next call.
  Result<std::span<const uint8_t>> exchange(std::span<const uint8_t> request, uint32_t seq,
                                            const std::string& what);

  /// The id of the generic-netlink family `family` ("ethtool"), asked of the controller once
  /// (again after the socket was closed); nullopt when the kernel has no such family (ENOENT).
  Result<std::optional<uint16_t>> genlFamily(std::string_view family);

  /// The descriptor, opened if needed: any socket reaches dev_ioctl (net/socket.c sock_do_ioctl),
  /// so the DCB source sends its SIOCETHTOOL on this one.
  Result<int> fd();

  void close();

 private:
  Status open();

  NetlinkSocketOptions options_;
  int fd_ = -1;
  uint32_t seq_ = 0;
  std::optional<uint16_t> familyId_;  ///< of familyName_; unset until asked, or after close()
  std::string familyName_;
  std::vector<uint8_t> buf_;
};

/// The error an NLMSG_ERROR message carries, from its body: 0 for an ACK, else the errno. The kernel
/// sends -errno, at least -MAX_ERRNO (netlink_ack(), include/linux/err.h): a truncated body, a
/// positive value or one beyond -MAX_ERRNO (INT_MIN, whose negation overflows) is not the kernel's,
/// and is nullopt. Every netlink parser here reads errors through this one function.
inline std::optional<int> ackErrno(std::span<const uint8_t> body) {
  constexpr int kMaxErrno = 4095;
  int32_t err = 0;
  if (body.size() < sizeof err) return std::nullopt;
  std::memcpy(&err, body.data(), sizeof err);
  if (err > 0 || err < -kMaxErrno) return std::nullopt;
  return -err;
}

namespace genl {

/// CTRL_CMD_GETFAMILY for `family` (include/uapi/linux/genetlink.h).
std::vector<uint8_t> buildFamilyRequest(std::string_view family, uint32_t seq);

/// The controller's answer: the family id, or kernelErrno on an NLMSG_ERROR (ENOENT: no such
/// family in this kernel).
struct FamilyReply {
  int kernelErrno = 0;
  uint16_t id = 0;
};
Result<FamilyReply> parseFamilyReply(std::span<const uint8_t> datagram, uint32_t expectedSeq);

}  // namespace genl

}  // namespace fabricmon
