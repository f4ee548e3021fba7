// The real FEC source: ethtool generic netlink over one reused NETLINK_GENERIC socket, the same
// request/answer pattern as the DCB source (dcb_netlink_source.cpp). Per interface and poll: one
// ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS (net/ethtool/fec.c: the driver's get_fecparam and
// get_fec_stats) and one ETHTOOL_MSG_LINKMODES_GET (speed and lanes; compact bitsets keep the reply
// small).

#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <mutex>

#include "collectors/sources/fec_netlink_msg.hpp"
#include "collectors/sources/fec_source.hpp"

namespace fabricmon {

namespace {

// A FEC reply is a few hundred bytes; a LINKMODES reply with compact bitsets about 200.
constexpr size_t kReceiveBuffer = 32 * 1024;
constexpr time_t kReceiveTimeoutSeconds = 2;

class FecNetlinkSource final : public FecSource {
 public:
  ~FecNetlinkSource() override { closeSocket(); }

  Result<std::optional<FecInfo>> read(const std::string& ifname) override {
    std::lock_guard lock(mutex_);
    if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
      return Error{"ethtool netlink " + ifname + ": invalid interface name", EINVAL};
    }
    if (auto st = ensureFamily(); !st) return st.error();
    if (family_ == 0) return std::optional<FecInfo>{};  // a kernel without ethtool netlink (< 5.6)

    auto fec = request(ETHTOOL_MSG_FEC_GET, ifname, ETHTOOL_FLAG_STATS, &ethnl::parseFecReply);
    if (!fec) return fec.error();
    // EOPNOTSUPP: the driver has no get_fecparam (veth, lo); ENODEV: the interface left.
    if (fec->kernelErrno == EOPNOTSUPP || fec->kernelErrno == ENODEV) return std::optional<FecInfo>{};
    if (fec->kernelErrno != 0) return sysError("ethtool netlink FEC_GET " + ifname, fec->kernelErrno);
    FecInfo info = std::move(fec->info);

    auto modes = request(ETHTOOL_MSG_LINKMODES_GET, ifname, ETHTOOL_FLAG_COMPACT_BITSETS,
                         &ethnl::parseLinkModesReply);
    if (!modes) return modes.error();
    if (modes->kernelErrno == 0) {
      info.speedMbps = modes->info.speedMbps;
      info.lanes = modes->info.lanes;
    } else if (modes->kernelErrno != EOPNOTSUPP && modes->kernelErrno != ENODEV) {
      return sysError("ethtool netlink LINKMODES_GET " + ifname, modes->kernelErrno);
    }
    return std::optional<FecInfo>{std::move(info)};
  }

 private:
  Status ensureSocket() {
    if (fd_ >= 0) return {};
    const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    if (fd < 0) return sysError("ethtool netlink: socket(NETLINK_GENERIC)", errno);
    sockaddr_nl local{};
    local.nl_family = AF_NETLINK;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
      const int err = errno;
      ::close(fd);
      return sysError("ethtool netlink: bind", err);
    }
    timeval tv{kReceiveTimeoutSeconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    fd_ = fd;
    return {};
  }

  void closeSocket() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  Result<size_t> exchange(const std::vector<uint8_t>& msg, const std::string& what) {
    if (auto st = ensureSocket(); !st) return st.error();
    // A reply that arrived after an earlier timeout would otherwise be taken for the next answer.
    while (::recv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT) > 0) {
    }
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    ssize_t n;
    do {
      n = ::sendto(fd_, msg.data(), msg.size(), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel));
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      const int err = errno;
      closeSocket();
      return sysError("ethtool netlink " + what + ": sendto", err);
    }
    do {
      n = ::recv(fd_, buf_.data(), buf_.size(), MSG_TRUNC);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      const int err = errno;
      closeSocket();
      return sysError("ethtool netlink " + what + ": recv", err);
    }
    if (static_cast<size_t>(n) > buf_.size()) {
      return Error{"ethtool netlink " + what + ": reply truncated", EMSGSIZE};
    }
    return static_cast<size_t>(n);
  }

  Status ensureFamily() {
    if (familyKnown_) return {};
    const uint32_t seq = ++seq_;
    auto n = exchange(ethnl::buildFamilyRequest(seq), "GETFAMILY");
    if (!n) return n.error();
    auto reply = ethnl::parseFamilyReply(std::span<const uint8_t>(buf_.data(), *n), seq);
    if (!reply) return reply.error();
    if (reply->kernelErrno != 0 && reply->kernelErrno != ENOENT) {
      return sysError("ethtool netlink GETFAMILY", reply->kernelErrno);
    }
    family_ = reply->id;  // 0 after ENOENT: no ethtool netlink
    familyKnown_ = true;
    return {};
  }

  using Parser = Result<ethnl::GetReply> (*)(std::span<const uint8_t>, uint32_t, uint16_t);
  Result<ethnl::GetReply> request(uint8_t cmd, const std::string& ifname, uint32_t flags, Parser parse) {
    const uint32_t seq = ++seq_;
    auto n = exchange(ethnl::buildGetRequest(family_, cmd, ifname, flags, seq), ifname);
    if (!n) return n.error();
    auto reply = parse(std::span<const uint8_t>(buf_.data(), *n), seq, family_);
    if (!reply) return Error{ifname + ": " + reply.error().message, reply.error().errnum};
    return reply;
  }

  std::mutex mutex_;
  int fd_ = -1;
  uint32_t seq_ = 0;
  uint16_t family_ = 0;
  bool familyKnown_ = false;
  std::array<uint8_t, kReceiveBuffer> buf_{};
};

}  // namespace

std::unique_ptr<FecSource> makeFecNetlinkSource() { return std::make_unique<FecNetlinkSource>(); }

}  // namespace fabricmon
