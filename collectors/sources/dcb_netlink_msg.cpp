#include "collectors/sources/dcb_netlink_msg.hpp"

#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstring>

#include "collectors/sources/netlink_socket.hpp"

namespace fabricmon::dcbnl {

namespace {

constexpr size_t kRtaHeader = 4;  // struct rtattr / nlattr: u16 len, u16 type

size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

template <typename T>
T loadAt(std::span<const uint8_t> buf, size_t offset) {
  T v;
  std::memcpy(&v, buf.data() + offset, sizeof(T));  // buffers need not be aligned
  return v;
}

struct Attr {
  uint16_t type;
  std::span<const uint8_t> payload;
};

/// Walks the attributes of `area`; `fn` returns a Status, the first failure stops the walk.
template <typename Fn>
Status forEachAttr(std::span<const uint8_t> area, const char* where, Fn&& fn) {
  size_t off = 0;
  while (off < area.size()) {
    if (area.size() - off < kRtaHeader) {
      return Error{std::string("dcbnl: truncated attribute header in ") + where, EBADMSG};
    }
    const auto len = loadAt<uint16_t>(area, off);
    const auto type = static_cast<uint16_t>(loadAt<uint16_t>(area, off + 2) & NLA_TYPE_MASK);
    if (len < kRtaHeader || len > area.size() - off) {
      return Error{std::string("dcbnl: attribute length ") + std::to_string(len) +
                       " out of bounds in " + where,
                   EBADMSG};
    }
    if (auto st = fn(Attr{type, area.subspan(off + kRtaHeader, len - kRtaHeader)}); !st) return st;
    off += align4(len);  // the padding of the last attribute may be missing
  }
  return {};
}

Status parsePfc(std::span<const uint8_t> p, DcbReply& out) {
  if (p.size() < sizeof(ieee_pfc)) {
    return Error{"dcbnl: DCB_ATTR_IEEE_PFC payload of " + std::to_string(p.size()) +
                     " bytes, want " + std::to_string(sizeof(ieee_pfc)),
                 EBADMSG};
  }
  out.pfcEnabledBitmap = loadAt<uint8_t>(p, offsetof(ieee_pfc, pfc_en));
  std::array<uint64_t, 8> req{}, ind{};
  for (size_t i = 0; i < 8; ++i) {
    req[i] = loadAt<uint64_t>(p, offsetof(ieee_pfc, requests) + i * sizeof(uint64_t));
    ind[i] = loadAt<uint64_t>(p, offsetof(ieee_pfc, indications) + i * sizeof(uint64_t));
  }
  out.pfcRequests = req;
  out.pfcIndications = ind;
  return {};
}

Status parseAppTable(std::span<const uint8_t> table, DcbReply& out) {
  out.hasAppTable = true;
  return forEachAttr(table, "DCB_ATTR_IEEE_APP_TABLE", [&](const Attr& a) -> Status {
    // Newer kernels also put DCB_ATTR_DCB_APP (non-IEEE selectors) here; only IEEE entries matter.
    if (a.type != DCB_ATTR_IEEE_APP) return {};
    if (a.payload.size() < sizeof(dcb_app))
      return Error{"dcbnl: short DCB_ATTR_IEEE_APP entry", EBADMSG};
    const auto selector = loadAt<uint8_t>(a.payload, offsetof(dcb_app, selector));
    const auto priority = loadAt<uint8_t>(a.payload, offsetof(dcb_app, priority));
    const auto protocol = loadAt<uint16_t>(a.payload, offsetof(dcb_app, protocol));
    if (selector != IEEE_8021QAZ_APP_SEL_DSCP) return {};
    if (protocol > 63 || priority > 7) {
      return Error{"dcbnl: DSCP APP entry " + std::to_string(protocol) + "->" +
                       std::to_string(priority) + " out of range",
                   EBADMSG};
    }
    out.dscpToPriority[protocol] = priority;
    return {};
  });
}

Status parseIeee(std::span<const uint8_t> nest, DcbReply& out) {
  return forEachAttr(nest, "DCB_ATTR_IEEE", [&](const Attr& a) -> Status {
    switch (a.type) {
      case DCB_ATTR_IEEE_PFC:
        return parsePfc(a.payload, out);
      case DCB_ATTR_IEEE_APP_TABLE:
        return parseAppTable(a.payload, out);
      default:
        return {};  // ETS, maxrate, peer info: not exported
    }
  });
}

Status parseDcbMessage(std::span<const uint8_t> body, uint8_t expectedCmd, DcbReply& out) {
  if (body.size() < sizeof(dcbmsg))
    return Error{"dcbnl: reply shorter than struct dcbmsg", EBADMSG};
  const auto cmd = loadAt<uint8_t>(body, offsetof(dcbmsg, cmd));
  if (cmd != expectedCmd) {
    return Error{"dcbnl: reply for command " + std::to_string(cmd) + ", asked " +
                     std::to_string(expectedCmd),
                 EBADMSG};
  }
  return forEachAttr(body.subspan(NLMSG_ALIGN(sizeof(dcbmsg))), "RTM_GETDCB",
                     [&](const Attr& a) -> Status {
                       switch (a.type) {
                         case DCB_ATTR_IEEE:
                           return parseIeee(a.payload, out);
                         case DCB_ATTR_DCBX:
                           if (a.payload.empty())
                             return Error{"dcbnl: empty DCB_ATTR_DCBX", EBADMSG};
                           out.dcbxMode = loadAt<uint8_t>(a.payload, 0);
                           return {};
                         default:
                           return {};
                       }
                     });
}

}  // namespace

std::vector<uint8_t> buildGetRequest(uint8_t cmd, const std::string& ifname, uint32_t seq) {
  const size_t nameLen = ifname.size() + 1;  // NLA_NUL_STRING: the kernel wants the NUL
  const size_t attrLen = kRtaHeader + nameLen;
  const size_t total = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(dcbmsg)) + align4(attrLen);
  std::vector<uint8_t> buf(total, 0);

  nlmsghdr hdr{};
  hdr.nlmsg_len = static_cast<uint32_t>(total);
  hdr.nlmsg_type = RTM_GETDCB;
  hdr.nlmsg_flags = NLM_F_REQUEST;
  hdr.nlmsg_seq = seq;
  hdr.nlmsg_pid = 0;
  std::memcpy(buf.data(), &hdr, sizeof(hdr));

  dcbmsg dcb{};
  dcb.dcb_family = AF_UNSPEC;
  dcb.cmd = cmd;
  std::memcpy(buf.data() + NLMSG_HDRLEN, &dcb, sizeof(dcb));

  const size_t at = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(dcbmsg));
  const auto len16 = static_cast<uint16_t>(attrLen);
  const uint16_t type16 = DCB_ATTR_IFNAME;
  std::memcpy(buf.data() + at, &len16, 2);
  std::memcpy(buf.data() + at + 2, &type16, 2);
  std::memcpy(buf.data() + at + kRtaHeader, ifname.data(), ifname.size());
  return buf;
}

Result<DcbReply> parseReply(std::span<const uint8_t> datagram, uint32_t expectedSeq,
                            uint8_t expectedCmd) {
  size_t off = 0;
  while (off < datagram.size()) {
    if (datagram.size() - off < sizeof(nlmsghdr))
      return Error{"dcbnl: truncated nlmsghdr", EBADMSG};
    const auto hdr = loadAt<nlmsghdr>(datagram, off);
    if (hdr.nlmsg_len < sizeof(nlmsghdr) || hdr.nlmsg_len > datagram.size() - off) {
      return Error{"dcbnl: nlmsg_len " + std::to_string(hdr.nlmsg_len) + " out of bounds (" +
                       std::to_string(datagram.size() - off) + " bytes left)",
                   EBADMSG};
    }
    if (hdr.nlmsg_seq != expectedSeq) {
      return Error{"dcbnl: reply with sequence number " + std::to_string(hdr.nlmsg_seq) +
                       ", expected " + std::to_string(expectedSeq),
                   EBADMSG};
    }
    const auto body = datagram.subspan(off + NLMSG_HDRLEN, hdr.nlmsg_len - NLMSG_HDRLEN);
    if (hdr.nlmsg_type == NLMSG_ERROR) {
      const auto err = ackErrno(body);
      if (!err) return Error{"dcbnl: truncated or out-of-range NLMSG_ERROR", EBADMSG};
      if (*err != 0) {
        DcbReply r;
        r.kernelErrno = *err;
        return r;
      }
      // error 0 is an ACK: the data (if any) came in an earlier message of this datagram
    } else if (hdr.nlmsg_type == RTM_GETDCB) {
      DcbReply r;
      if (auto st = parseDcbMessage(body, expectedCmd, r); !st) return st.error();
      return r;
    } else if (hdr.nlmsg_type != NLMSG_NOOP && hdr.nlmsg_type != NLMSG_DONE) {
      return Error{"dcbnl: unexpected message type " + std::to_string(hdr.nlmsg_type), EBADMSG};
    }
    off += NLMSG_ALIGN(hdr.nlmsg_len);
  }
  return Error{"dcbnl: no RTM_GETDCB reply in the datagram", ENODATA};
}

std::optional<std::string> inferTrust(const DcbReply& ieee) {
  if (!ieee.hasAppTable) return std::nullopt;
  return ieee.dscpToPriority.empty() ? "pcp" : "dscp";
}

unsigned decodePfcPreventionTimeoutMs(uint16_t raw) {
  constexpr unsigned kMlx5AutoTimeoutMs = 100;
  return raw == PFC_STORM_PREVENTION_AUTO ? kMlx5AutoTimeoutMs : raw;
}

}  // namespace fabricmon::dcbnl
