#include "collectors/sources/fec_netlink_msg.hpp"

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cstring>

#include "collectors/sources/netlink_socket.hpp"

namespace fabricmon::ethnl {

namespace {

// ETHTOOL_MAX_LANES of the kernel's include/linux/ethtool.h (not in the uapi headers).
constexpr size_t kMaxLanes = 8;

constexpr size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

std::vector<uint8_t> message(uint16_t type, uint8_t cmd, uint32_t seq) {
  std::vector<uint8_t> out(NLMSG_HDRLEN + GENL_HDRLEN, 0);
  nlmsghdr h{};
  h.nlmsg_type = type;
  h.nlmsg_flags = NLM_F_REQUEST;
  h.nlmsg_seq = seq;
  std::memcpy(out.data(), &h, sizeof(h));
  genlmsghdr g{};
  g.cmd = cmd;
  g.version = 1;
  std::memcpy(out.data() + NLMSG_HDRLEN, &g, sizeof(g));
  return out;
}

void finish(std::vector<uint8_t>& out) {
  const auto len = static_cast<uint32_t>(out.size());
  std::memcpy(out.data(), &len, sizeof(len));  // nlmsg_len is the first field
}

template <class T>
std::span<const uint8_t> bytesOf(const T& v) {
  return {reinterpret_cast<const uint8_t*>(&v), sizeof(v)};
}

/// Calls f(type, payload) for every attribute in `buf`; false when one overruns it.
template <class F>
bool forEachAttr(std::span<const uint8_t> buf, F&& f) {
  size_t off = 0;
  while (off + NLA_HDRLEN <= buf.size()) {
    nlattr a{};
    std::memcpy(&a, buf.data() + off, sizeof(a));
    if (a.nla_len < NLA_HDRLEN || off + a.nla_len > buf.size()) return false;
    f(static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK), buf.subspan(off + NLA_HDRLEN, a.nla_len - NLA_HDRLEN));
    off += align4(a.nla_len);
  }
  return true;
}

std::optional<uint32_t> u32(std::span<const uint8_t> p) {
  if (p.size() != sizeof(uint32_t)) return std::nullopt;
  uint32_t v;
  std::memcpy(&v, p.data(), sizeof(v));
  return v;
}

struct Message {
  int kernelErrno = 0;
  bool found = false;
  std::span<const uint8_t> attrs;  // after the genl header
  uint8_t cmd = 0;
};

/// The first message of the datagram with `expectedSeq` that is a reply of `family` or an error.
Result<Message> findMessage(std::span<const uint8_t> buf, uint32_t expectedSeq, uint16_t family) {
  size_t off = 0;
  while (off + NLMSG_HDRLEN <= buf.size()) {
    nlmsghdr h{};
    std::memcpy(&h, buf.data() + off, sizeof(h));
    if (h.nlmsg_len < NLMSG_HDRLEN || off + h.nlmsg_len > buf.size()) {
      return Error{"ethtool netlink: malformed message length", EPROTO};
    }
    if (h.nlmsg_seq != expectedSeq) return Error{"ethtool netlink: reply to another request", EPROTO};
    const auto body = buf.subspan(off + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
    if (h.nlmsg_type == NLMSG_ERROR) {
      const auto err = ackErrno(body);
      if (!err) return Error{"ethtool netlink: malformed or out-of-range error message", EPROTO};
      if (*err != 0) {
        Message m;
        m.kernelErrno = *err;
        return m;
      }
    } else if (h.nlmsg_type == family) {
      if (body.size() < GENL_HDRLEN) return Error{"ethtool netlink: short genl header", EPROTO};
      genlmsghdr g{};
      std::memcpy(&g, body.data(), sizeof(g));
      Message m;
      m.found = true;
      m.cmd = g.cmd;
      m.attrs = body.subspan(GENL_HDRLEN);
      return m;
    }
    off += align4(h.nlmsg_len);
  }
  return Error{"ethtool netlink: no reply in the datagram", EPROTO};
}

bool statArray(std::span<const uint8_t> p, FecCounter& out) {
  // [total, lane 0, ...]: at most ETHTOOL_MAX_LANES lanes, whole u64s. net/ethtool/fec.c
  // (fec_put_stats) puts all three groups whatever the driver filled, a group it left unset with an
  // empty payload (ice has no corrected bits, ionic no FEC statistics at all): not reported, not
  // malformed (ethtool's netlink/fec.c skips them the same way).
  if (p.empty()) return true;
  if (p.size() % sizeof(uint64_t) != 0 || p.size() / sizeof(uint64_t) > 1 + kMaxLanes) return false;
  const size_t n = p.size() / sizeof(uint64_t);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v;
    std::memcpy(&v, p.data() + i * sizeof(uint64_t), sizeof(v));
    if (i == 0) {
      out.total = v;
    } else {
      out.lanes.push_back(v);
    }
  }
  return true;
}

}  // namespace

void putAttr(std::vector<uint8_t>& out, uint16_t type, std::span<const uint8_t> payload) {
  nlattr a{};
  a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + payload.size());
  a.nla_type = type;
  const size_t at = out.size();
  out.resize(at + align4(a.nla_len), 0);
  std::memcpy(out.data() + at, &a, sizeof(a));
  if (!payload.empty()) std::memcpy(out.data() + at + NLA_HDRLEN, payload.data(), payload.size());
}

std::vector<uint8_t> buildGetRequest(uint16_t family, uint8_t cmd, const std::string& ifname, uint32_t flags,
                                     uint32_t seq) {
  auto out = message(family, cmd, seq);
  std::vector<uint8_t> header;
  std::vector<uint8_t> name(ifname.begin(), ifname.end());
  name.push_back(0);
  putAttr(header, ETHTOOL_A_HEADER_DEV_NAME, name);
  putAttr(header, ETHTOOL_A_HEADER_FLAGS, bytesOf(flags));
  // ETHTOOL_A_FEC_HEADER and ETHTOOL_A_LINKMODES_HEADER are both attribute 1.
  static_assert(ETHTOOL_A_FEC_HEADER == ETHTOOL_A_LINKMODES_HEADER);
  putAttr(out, ETHTOOL_A_FEC_HEADER | NLA_F_NESTED, header);
  finish(out);
  return out;
}

Result<GetReply> parseFecReply(std::span<const uint8_t> datagram, uint32_t expectedSeq, uint16_t family) {
  auto m = findMessage(datagram, expectedSeq, family);
  if (!m) return m.error();
  GetReply r;
  if (m->kernelErrno != 0) {
    r.kernelErrno = m->kernelErrno;
    return r;
  }
  if (m->cmd != ETHTOOL_MSG_FEC_GET_REPLY) return Error{"ethtool netlink: not a FEC reply", EPROTO};
  bool bad = false;
  bool ok = forEachAttr(m->attrs, [&](uint16_t type, std::span<const uint8_t> p) {
    if (type == ETHTOOL_A_FEC_ACTIVE) {
      auto bit = u32(p);
      if (!bit) {
        bad = true;
        return;
      }
      switch (*bit) {
        case ETHTOOL_LINK_MODE_FEC_NONE_BIT: r.info.mode = "off"; break;
        case ETHTOOL_LINK_MODE_FEC_RS_BIT: r.info.mode = "rs"; break;
        case ETHTOOL_LINK_MODE_FEC_BASER_BIT: r.info.mode = "baser"; break;
        case ETHTOOL_LINK_MODE_FEC_LLRS_BIT: r.info.mode = "llrs"; break;
        default: break;  // a mode newer than this build: unknown, not an error
      }
    } else if (type == ETHTOOL_A_FEC_STATS) {
      bad |= !forEachAttr(p, [&](uint16_t st, std::span<const uint8_t> q) {
        if (st == ETHTOOL_A_FEC_STAT_CORRECTED) bad |= !statArray(q, r.info.corrected);
        if (st == ETHTOOL_A_FEC_STAT_UNCORR) bad |= !statArray(q, r.info.uncorrectable);
        if (st == ETHTOOL_A_FEC_STAT_CORR_BITS) bad |= !statArray(q, r.info.correctedBits);
      });
    }
  });
  if (!ok || bad) return Error{"ethtool netlink: malformed FEC reply", EPROTO};
  return r;
}

Result<GetReply> parseLinkModesReply(std::span<const uint8_t> datagram, uint32_t expectedSeq, uint16_t family) {
  auto m = findMessage(datagram, expectedSeq, family);
  if (!m) return m.error();
  GetReply r;
  if (m->kernelErrno != 0) {
    r.kernelErrno = m->kernelErrno;
    return r;
  }
  if (m->cmd != ETHTOOL_MSG_LINKMODES_GET_REPLY) return Error{"ethtool netlink: not a link-modes reply", EPROTO};
  bool ok = forEachAttr(m->attrs, [&](uint16_t type, std::span<const uint8_t> p) {
    if (type == ETHTOOL_A_LINKMODES_SPEED) {
      // SPEED_UNKNOWN (-1) while the link is down.
      if (auto v = u32(p); v && *v != 0 && *v != static_cast<uint32_t>(SPEED_UNKNOWN)) r.info.speedMbps = *v;
    } else if (type == ETHTOOL_A_LINKMODES_LANES) {
      if (auto v = u32(p); v && *v >= 1 && *v <= kMaxLanes) r.info.lanes = *v;
    }
  });
  if (!ok) return Error{"ethtool netlink: malformed link-modes reply", EPROTO};
  return r;
}

}  // namespace fabricmon::ethnl
