// The real DCB source: rtnetlink RTM_GETDCB over one reused NETLINK_ROUTE socket
// (netlink_socket.hpp), plus the PFC storm-prevention timeout through SIOCETHTOOL on the same
// socket (any socket family reaches dev_ioctl, net/socket.c sock_do_ioctl).

#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <array>
#include <cstring>
#include <mutex>

#include "collectors/sources/dcb_netlink_msg.hpp"
#include "collectors/sources/read_watch.hpp"
#include "collectors/sources/dcb_source.hpp"
#include "collectors/sources/netlink_socket.hpp"

namespace fabricmon {

namespace {

class DcbNetlinkSource final : public DcbSource {
 public:
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
  Result<dcbnl::DcbReply> request(uint8_t cmd, const std::string& ifname) {
    const uint32_t seq = socket_.nextSeq();
    const auto msg = dcbnl::buildGetRequest(cmd, ifname, seq);
    const WatchedRead watched("dcb netlink", "class/net/", ifname);
    auto datagram = socket_.exchange(msg, seq, "dcbnl " + ifname);
    if (!datagram) return datagram.error();
    auto reply = dcbnl::parseReply(*datagram, seq, cmd);
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
    auto fd = socket_.fd();
    if (!fd) return fd.error();
    // mlx5 answers from the firmware (mlx5_query_port_stall_watermark).
    const WatchedRead watched("ethtool ioctl", "class/net/", ifname);
    if (::ioctl(*fd, SIOCETHTOOL, &ifr) != 0) {
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
  // A DCB reply is small (the APP table is at most 64 DSCP entries of 8 bytes); dcbnl answers
  // synchronously inside sendto().
  NetlinkSocket socket_{{NETLINK_ROUTE, "dcbnl", std::chrono::seconds(2), 32 * 1024}};
};

}  // namespace

std::unique_ptr<DcbSource> makeDcbNetlinkSource() { return std::make_unique<DcbNetlinkSource>(); }

}  // namespace fabricmon
