#include "collectors/sources/netlink_socket.hpp"

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fabricmon {

NetlinkSocket::NetlinkSocket(NetlinkSocketOptions options)
    : options_(std::move(options)), buf_(options_.bufferSize) {}

NetlinkSocket::~NetlinkSocket() { close(); }

Status NetlinkSocket::open() {
  if (fd_ >= 0) return {};
  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, options_.protocol);
  if (fd < 0) return sysError(options_.name + ": socket(AF_NETLINK)", errno);
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    const int err = errno;
    ::close(fd);
    return sysError(options_.name + ": bind", err);
  }
  timeval tv{static_cast<time_t>(options_.receiveTimeout.count()), 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (options_.extendedAck) {
    const int one = 1;
    ::setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof one);
  }
  fd_ = fd;
  return {};
}

void NetlinkSocket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  familyId_.reset();
}

Result<int> NetlinkSocket::fd() {
  if (auto st = open(); !st) return st.error();
  return fd_;
}

Result<std::span<const uint8_t>> NetlinkSocket::exchange(std::span<const uint8_t> request,
                                                         uint32_t seq, const std::string& what) {
  if (auto st = open(); !st) return st.error();
  // A reply that arrived after an earlier timeout would otherwise be taken for this answer.
  while (::recv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT) > 0) {
  }
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  ssize_t n;
  do {
    n = ::sendto(fd_, request.data(), request.size(), 0, reinterpret_cast<sockaddr*>(&kernel),
                 sizeof kernel);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    const int err = errno;
    close();
    return sysError(what + ": sendto", err);
  }
  for (;;) {
    do {
      n = ::recv(fd_, buf_.data(), buf_.size(), MSG_TRUNC);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      const int err = errno;
      close();
      return sysError(what + ": recv", err == EAGAIN || err == EWOULDBLOCK ? ETIMEDOUT : err);
    }
    if (static_cast<size_t>(n) > buf_.size()) {
      return Error{what + ": reply of " + std::to_string(n) + " bytes truncated", EMSGSIZE};
    }
    const std::span<const uint8_t> datagram(buf_.data(), static_cast<size_t>(n));
    // Skip what answers an older request (its sequence number); the parsers check the rest.
    if (datagram.size() >= NLMSG_HDRLEN) {
      nlmsghdr h;
      std::memcpy(&h, datagram.data(), sizeof h);
      if (h.nlmsg_seq != seq) continue;
    }
    return datagram;
  }
}

Result<std::optional<uint16_t>> NetlinkSocket::genlFamily(std::string_view family) {
  if (familyId_ && familyName_ == family) {
    if (*familyId_ == 0) return std::optional<uint16_t>{};
    return std::optional<uint16_t>(*familyId_);
  }
  const uint32_t seq = nextSeq();
  const auto request = genl::buildFamilyRequest(family, seq);
  const std::string what = options_.name + " GETFAMILY " + std::string(family);
  auto datagram = exchange(request, seq, what);
  if (!datagram) return datagram.error();
  auto reply = genl::parseFamilyReply(*datagram, seq);
  if (!reply) return Error{what + ": " + reply.error().message, reply.error().errnum};
  if (reply->kernelErrno != 0 && reply->kernelErrno != ENOENT)
    return sysError(what, reply->kernelErrno);
  familyName_ = std::string(family);
  familyId_ = reply->id;  // 0 after ENOENT
  if (reply->id == 0) return std::optional<uint16_t>{};
  return std::optional<uint16_t>(reply->id);
}

namespace genl {

std::vector<uint8_t> buildFamilyRequest(std::string_view family, uint32_t seq) {
  const size_t nameLen = family.size() + 1;  // NUL included
  std::vector<uint8_t> out(NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(NLA_HDRLEN + nameLen), 0);
  nlmsghdr h{};
  h.nlmsg_len = static_cast<uint32_t>(out.size());
  h.nlmsg_type = GENL_ID_CTRL;
  h.nlmsg_flags = NLM_F_REQUEST;
  h.nlmsg_seq = seq;
  std::memcpy(out.data(), &h, sizeof h);
  genlmsghdr g{};
  g.cmd = CTRL_CMD_GETFAMILY;
  g.version = 1;
  std::memcpy(out.data() + NLMSG_HDRLEN, &g, sizeof g);
  nlattr a{};
  a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + nameLen);
  a.nla_type = CTRL_ATTR_FAMILY_NAME;
  uint8_t* at = out.data() + NLMSG_HDRLEN + GENL_HDRLEN;
  std::memcpy(at, &a, sizeof a);
  std::memcpy(at + NLA_HDRLEN, family.data(), family.size());
  return out;
}

Result<FamilyReply> parseFamilyReply(std::span<const uint8_t> datagram, uint32_t expectedSeq) {
  if (datagram.size() < NLMSG_HDRLEN) return Error{"short netlink message", EPROTO};
  nlmsghdr h;
  std::memcpy(&h, datagram.data(), sizeof h);
  if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > datagram.size()) {
    return Error{"malformed netlink message length", EPROTO};
  }
  if (h.nlmsg_seq != expectedSeq) return Error{"reply to another request", EPROTO};
  const auto body = datagram.subspan(NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
  FamilyReply r;
  if (h.nlmsg_type == NLMSG_ERROR) {
    const auto err = ackErrno(body);
    if (!err) return Error{"malformed netlink error message", EPROTO};
    r.kernelErrno = *err;
    if (r.kernelErrno == 0) return Error{"family request acknowledged without an answer", EPROTO};
    return r;
  }
  if (h.nlmsg_type != GENL_ID_CTRL || body.size() < GENL_HDRLEN) {
    return Error{"not a genetlink controller reply", EPROTO};
  }
  const auto attrs = body.subspan(GENL_HDRLEN);
  size_t off = 0;
  while (off + NLA_HDRLEN <= attrs.size()) {
    nlattr a;
    std::memcpy(&a, attrs.data() + off, sizeof a);
    if (a.nla_len < NLA_HDRLEN || off + a.nla_len > attrs.size()) break;
    if ((a.nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
        a.nla_len == NLA_HDRLEN + sizeof(uint16_t)) {
      std::memcpy(&r.id, attrs.data() + off + NLA_HDRLEN, sizeof r.id);
    }
    off += NLA_ALIGN(a.nla_len);
  }
  if (r.id == 0) return Error{"family reply without an id", EPROTO};
  return r;
}

}  // namespace genl

}  // namespace fabricmon
