// The real DCB source: rtnetlink RTM_GETDCB over one reused NETLINK_ROUTE socket, plus the PFC
// storm-prevention timeout through SIOCETHTOOL on the same socket (any socket family reaches
// dev_ioctl, net/socket.c sock_do_ioctl).

#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <mutex>

#include "collectors/sources/dcb_netlink_msg.hpp"
#include "collectors/sources/dcb_source.hpp"

namespace fabricmon {

namespace {

// A DCB reply is small (the APP table is at most 64 DSCP entries of 8 bytes); MSG_TRUNC tells us if
// not.
constexpr size_t kReceiveBuffer = 32 * 1024;
// dcbnl answers synchronously inside sendto(); the timeout only guards against a kernel that never
// does.
constexpr time_t kReceiveTimeoutSeconds = 2;

class DcbNetlinkSource final : public DcbSource {
 public:
  ~DcbNetlinkSource() override { closeSocket(); }

  Result<std::optional<DcbInfo>> read(const std::string& ifname) override {
    std::lock_guard lock(mutex_);
    if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
      return Error{"dcbnl " + ifname + ": invalid interface name", EINVAL};
    }
    auto ieee = request(DCB_CMD_IEEE_GET, ifname);
    if (!ieee) return ieee.error();
    if (ieee->kernelErrno == EOPNOTSUPP) return std::optional<DcbInfo>{};  // veth, lo: no dcbnl_ops
    if (ieee->kernelErrno != 0) return sysError("dcbnl IEEE_GET " + ifname, ieee->kernelErrno);

    DcbInfo info;
    if (ieee->pfcEnabledBitmap) {
      for (unsigned p = 0; p < 8; ++p) info.pfcEnabled[p] = (*ieee->pfcEnabledBitmap >> p) & 1U;
    }
    info.pfcRequests = ieee->pfcRequests;
    info.pfcIndications = ieee->pfcIndications;
    info.dscpToPriority = ieee->dscpToPriority;
    info.trust = dcbnl::inferTrust(*ieee);
    info.dcbxMode = ieee->dcbxMode;

    auto dcbx = request(DCB_CMD_GDCBX, ifname);
    if (!dcbx) return dcbx.error();
    if (dcbx->kernelErrno == 0) {
      if (dcbx->dcbxMode) info.dcbxMode = dcbx->dcbxMode;
    } else if (dcbx->kernelErrno != EOPNOTSUPP) {
      return sysError("dcbnl GDCBX " + ifname, dcbx->kernelErrno);
    }

    auto tout = pfcPreventionTimeout(ifname);
    if (!tout) return tout.error();
    info.stormPreventionTimeoutMs = *tout;
    return std::optional<DcbInfo>{std::move(info)};
  }

 private:
  Status ensureSocket() {
    if (fd_ >= 0) return {};
    const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return sysError("dcbnl: socket(NETLINK_ROUTE)", errno);
    sockaddr_nl local{};
    local.nl_family = AF_NETLINK;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) {
      const int err = errno;
      ::close(fd);
      return sysError("dcbnl: bind", err);
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

  // A reply that arrived after an earlier timeout would otherwise be taken for the next answer.
  void drainStale() {
    while (::recv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT) > 0) {
    }
  }

  Result<dcbnl::DcbReply> request(uint8_t cmd, const std::string& ifname) {
    if (auto st = ensureSocket(); !st) return st.error();
    drainStale();
    const uint32_t seq = ++seq_;
    const auto msg = dcbnl::buildGetRequest(cmd, ifname, seq);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    ssize_t n;
    do {
      n = ::sendto(fd_, msg.data(), msg.size(), 0, reinterpret_cast<sockaddr*>(&kernel),
                   sizeof(kernel));
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      const int err = errno;
      closeSocket();
      return sysError("dcbnl " + ifname + ": sendto", err);
    }
    do {
      n = ::recv(fd_, buf_.data(), buf_.size(), MSG_TRUNC);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      const int err = errno;
      closeSocket();
      return sysError("dcbnl " + ifname + ": recv", err);
    }
    if (static_cast<size_t>(n) > buf_.size()) {
      return Error{"dcbnl " + ifname + ": reply of " + std::to_string(n) + " bytes truncated",
                   EMSGSIZE};
    }
    auto reply =
        dcbnl::parseReply(std::span<const uint8_t>(buf_.data(), static_cast<size_t>(n)), seq, cmd);
    if (!reply) return Error{ifname + ": " + reply.error().message, reply.error().errnum};
    return reply;
  }

  Result<std::optional<unsigned>> pfcPreventionTimeout(const std::string& ifname) {
    // struct ethtool_tunable is followed by its value (a flexible array): here one u16.
    ethtool_tunable tuna{};
    tuna.cmd = ETHTOOL_GTUNABLE;
    tuna.id = ETHTOOL_PFC_PREVENTION_TOUT;
    tuna.type_id = ETHTOOL_TUNABLE_U16;
    tuna.len = sizeof(uint16_t);
    alignas(ethtool_tunable) std::array<uint8_t, sizeof(ethtool_tunable) + sizeof(uint16_t)> req{};
    std::memcpy(req.data(), &tuna, sizeof(tuna));
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, ifname.data(), ifname.size());
    ifr.ifr_data = reinterpret_cast<char*>(req.data());
    if (::ioctl(fd_, SIOCETHTOOL, &ifr) != 0) {
      const int err = errno;
      // EOPNOTSUPP: the driver has no get_tunable or not this one; EINVAL: a kernel older than the
      // tunable (net/ethtool/ioctl.c ethtool_tunable_valid).
      if (err == EOPNOTSUPP || err == EINVAL) return std::optional<unsigned>{};
      return sysError("SIOCETHTOOL GTUNABLE pfc_prevention_tout " + ifname, err);
    }
    uint16_t value;
    std::memcpy(&value, req.data() + sizeof(ethtool_tunable), sizeof(value));
    return std::optional<unsigned>{dcbnl::decodePfcPreventionTimeoutMs(value)};
  }

  std::mutex mutex_;
  int fd_ = -1;
  uint32_t seq_ = 0;
  std::array<uint8_t, kReceiveBuffer> buf_{};
};

}  // namespace

std::unique_ptr<DcbSource> makeDcbNetlinkSource() { return std::make_unique<DcbNetlinkSource>(); }

}  // namespace fabricmon
