// The ethtool generic-netlink module EEPROM request (kernel >= 5.13, net/ethtool/eeprom.c):
// ETHTOOL_MSG_MODULE_EEPROM_GET with the interface in the request header and offset, length,
// page, bank and I2C address; the reply's ETHTOOL_A_MODULE_EEPROM_DATA holds the bytes. For
// drivers without get_module_eeprom_by_page the kernel answers the lower page and page 00h (and
// SFF-8472's A2h) from the old get_module_eeprom itself (eeprom_fallback). Where the kernel has no
// "ethtool" genetlink family at all, makeModuleEepromKernelSource uses the ioctl instead.

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "collectors/sources/module_eeprom_source.hpp"
#include "collectors/sources/read_watch.hpp"
#include "collectors/sources/netlink_socket.hpp"

namespace fabricmon {

namespace {

class Message {
 public:
  Message(uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd, uint8_t version) {
    buf_.resize(NLMSG_HDRLEN + GENL_HDRLEN);
    auto* nl = reinterpret_cast<nlmsghdr*>(buf_.data());
    nl->nlmsg_type = type;
    nl->nlmsg_flags = flags;
    nl->nlmsg_seq = seq;
    auto* genl = reinterpret_cast<genlmsghdr*>(buf_.data() + NLMSG_HDRLEN);
    genl->cmd = cmd;
    genl->version = version;
  }
  void attr(uint16_t type, const void* data, size_t len) {
    const size_t at = buf_.size();
    buf_.resize(at + NLA_ALIGN(NLA_HDRLEN + len));
    auto* a = reinterpret_cast<nlattr*>(buf_.data() + at);
    a->nla_type = type;
    a->nla_len = static_cast<uint16_t>(NLA_HDRLEN + len);
    std::memcpy(buf_.data() + at + NLA_HDRLEN, data, len);
  }
  size_t beginNest(uint16_t type) {
    const size_t at = buf_.size();
    buf_.resize(at + NLA_HDRLEN);
    reinterpret_cast<nlattr*>(buf_.data() + at)->nla_type = type | NLA_F_NESTED;
    return at;
  }
  void endNest(size_t at) {
    reinterpret_cast<nlattr*>(buf_.data() + at)->nla_len = static_cast<uint16_t>(buf_.size() - at);
  }
  std::span<const uint8_t> finish() {
    reinterpret_cast<nlmsghdr*>(buf_.data())->nlmsg_len = static_cast<uint32_t>(buf_.size());
    return buf_;
  }

 private:
  std::vector<uint8_t> buf_;
};

// Calls `fn(type, payload)` for each attribute in `attrs`; false when one overruns the buffer.
template <class Fn>
bool forEachAttr(std::span<const uint8_t> attrs, Fn fn) {
  size_t at = 0;
  while (at + NLA_HDRLEN <= attrs.size()) {
    nlattr a;
    std::memcpy(&a, attrs.data() + at, sizeof a);
    if (a.nla_len < NLA_HDRLEN || at + a.nla_len > attrs.size()) return false;
    fn(static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK),
       attrs.subspan(at + NLA_HDRLEN, a.nla_len - NLA_HDRLEN));
    at += NLA_ALIGN(a.nla_len);
  }
  return true;
}

class ModuleEepromNetlinkSource final : public ModuleEepromSource {
 public:
  explicit ModuleEepromNetlinkSource(std::unique_ptr<ModuleEepromSource> fallback)
      : fallback_(std::move(fallback)) {}

  Status read(const std::string& ifname, const EepromRead& request,
              std::span<uint8_t> out) override {
    std::unique_lock lock(mu_);
    if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
      return Error{"module eeprom " + ifname + ": invalid interface name", EINVAL};
    }
    if (!request.valid() || out.size() != request.length) {
      return Error{"module eeprom " + ifname + ": invalid request", EINVAL};
    }
    if (noFamily_) {
      lock.unlock();
      return fallback_->read(ifname, request, out);
    }
    auto family = socket_.genlFamily(ETHTOOL_GENL_NAME);
    if (!family) return family.error();
    if (!*family) {  // no ethtool netlink in this kernel (before 5.6)
      noFamily_ = true;
      lock.unlock();
      return fallback_->read(ifname, request, out);
    }
    const uint32_t seq = socket_.nextSeq();
    Message m(**family, NLM_F_REQUEST, seq, ETHTOOL_MSG_MODULE_EEPROM_GET, ETHTOOL_GENL_VERSION);
    const size_t nest = m.beginNest(ETHTOOL_A_MODULE_EEPROM_HEADER);
    m.attr(ETHTOOL_A_HEADER_DEV_NAME, ifname.c_str(), ifname.size() + 1);
    m.endNest(nest);
    const uint32_t offset = request.offset, length = request.length;
    m.attr(ETHTOOL_A_MODULE_EEPROM_OFFSET, &offset, sizeof offset);
    m.attr(ETHTOOL_A_MODULE_EEPROM_LENGTH, &length, sizeof length);
    m.attr(ETHTOOL_A_MODULE_EEPROM_PAGE, &request.page, 1);
    m.attr(ETHTOOL_A_MODULE_EEPROM_BANK, &request.bank, 1);
    m.attr(ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, &request.i2cAddress, 1);
    bool got = false;
    const WatchedRead watched("module eeprom netlink", "class/net/", ifname);
    const Status st =
        exchange(m.finish(), seq, "module eeprom " + ifname, [&](std::span<const uint8_t> attrs) {
          forEachAttr(attrs, [&](uint16_t type, std::span<const uint8_t> payload) {
            if (type == ETHTOOL_A_MODULE_EEPROM_DATA && payload.size() == out.size()) {
              std::memcpy(out.data(), payload.data(), out.size());
              got = true;
            }
          });
        });
    if (!st && st.error().errnum == EOPNOTSUPP) {
      // Kernels 5.6-5.12 have the family but not this request; drivers without module access say
      // the same. The ioctl tells the two apart (and answers EOPNOTSUPP for the latter).
      lock.unlock();
      return fallback_->read(ifname, request, out);
    }
    if (!st) {
      // EINVAL from the kernel for a page
      // the module does not have (net/ethtool/eeprom.c validates against the module's type).
      if (st.error().errnum == EINVAL) return Error{st.error().message, ENODATA};
      return st;
    }
    if (!got)
      return Error{"module eeprom " + ifname + ": reply without data of the asked length", EPROTO};
    return {};
  }

 private:
  // Sends one request and reads its answer: a message with attributes (given to `onReply`) or an
  // error/ack.
  template <class OnReply>
  Status exchange(std::span<const uint8_t> msg, uint32_t seq, const std::string& what, OnReply onReply) {
    auto datagram = socket_.exchange(msg, seq, what);
    if (!datagram) return datagram.error();
    size_t at = 0;
    const size_t len = datagram->size();
    while (at + NLMSG_HDRLEN <= len) {
      nlmsghdr h;
      std::memcpy(&h, datagram->data() + at, sizeof h);
      if (h.nlmsg_len < NLMSG_HDRLEN || at + h.nlmsg_len > len) return Error{what + ": malformed reply", EPROTO};
      const auto body = datagram->subspan(at + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
      at += NLMSG_ALIGN(h.nlmsg_len);
      if (h.nlmsg_seq != seq) continue;
      if (h.nlmsg_type == NLMSG_ERROR) {
        int32_t error = 0;
        if (body.size() >= sizeof error) std::memcpy(&error, body.data(), sizeof error);
        if (error == 0) return {};
        return sysError(what, -error);
      }
      if (body.size() < GENL_HDRLEN) return Error{what + ": short reply", EPROTO};
      onReply(body.subspan(GENL_HDRLEN));
      return {};
    }
    return Error{what + ": reply without an answer", EPROTO};
  }

  std::unique_ptr<ModuleEepromSource> fallback_;
  std::mutex mu_;
  // A reply carries at most 128 bytes of data; ack and extended-ack messages are small too. The
  // module read happens inside the request (the driver reads the I2C bus synchronously); the
  // timeout guards only against a kernel that never answers. A hung firmware read stalls this
  // collector's thread, never the others (docs/architecture.md, "A stuck collector").
  NetlinkSocket socket_{{NETLINK_GENERIC, "module eeprom", std::chrono::seconds(5), 8192, true}};
  bool noFamily_ = false;
};

}  // namespace

std::unique_ptr<ModuleEepromSource> makeModuleEepromKernelSource() {
  return std::make_unique<ModuleEepromNetlinkSource>(makeModuleEepromIoctlSource());
}

}  // namespace fabricmon
