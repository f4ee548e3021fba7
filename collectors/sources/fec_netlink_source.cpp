// The real FEC source: ethtool generic netlink over one reused NETLINK_GENERIC socket
// (netlink_socket.hpp). Per interface and poll: one ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS
// (net/ethtool/fec.c: the driver's get_fecparam and get_fec_stats) and one
// ETHTOOL_MSG_LINKMODES_GET (speed and lanes; compact bitsets keep the reply small).

#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <net/if.h>

#include <mutex>

#include "collectors/sources/fec_netlink_msg.hpp"
#include "collectors/sources/read_watch.hpp"
#include "collectors/sources/fec_source.hpp"
#include "collectors/sources/netlink_socket.hpp"

namespace fabricmon {

namespace {

class FecNetlinkSource final : public FecSource {
 public:
  Result<std::optional<FecInfo>> read(const std::string& ifname) override {
    std::lock_guard lock(mutex_);
    if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
      return Error{"ethtool netlink " + ifname + ": invalid interface name", EINVAL};
    }
    auto family = socket_.genlFamily(ETHTOOL_GENL_NAME);
    if (!family) return family.error();
    if (!*family) return std::optional<FecInfo>{};  // a kernel without ethtool netlink (< 5.6)
    family_ = **family;

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
  using Parser = Result<ethnl::GetReply> (*)(std::span<const uint8_t>, uint32_t, uint16_t);
  Result<ethnl::GetReply> request(uint8_t cmd, const std::string& ifname, uint32_t flags, Parser parse) {
    const uint32_t seq = socket_.nextSeq();
    const WatchedRead watched("ethtool netlink", "class/net/", ifname);
    auto datagram =
        socket_.exchange(ethnl::buildGetRequest(family_, cmd, ifname, flags, seq), seq, "ethtool netlink " + ifname);
    if (!datagram) return datagram.error();
    auto reply = parse(*datagram, seq, family_);
    if (!reply) return Error{ifname + ": " + reply.error().message, reply.error().errnum};
    return reply;
  }

  std::mutex mutex_;
  // A FEC reply is a few hundred bytes; a LINKMODES reply with compact bitsets about 200.
  NetlinkSocket socket_{{NETLINK_GENERIC, "ethtool netlink", std::chrono::seconds(2), 32 * 1024}};
  uint16_t family_ = 0;
};

}  // namespace

std::unique_ptr<FecSource> makeFecNetlinkSource() { return std::make_unique<FecNetlinkSource>(); }

}  // namespace fabricmon
