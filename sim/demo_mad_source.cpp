#include "sim/demo_mad_source.hpp"

#include <infiniband/mad.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "collectors/sources/parse.hpp"
#include "sim/lldp.hpp"

namespace fabricmon {
namespace {

constexpr unsigned kSwitchLid = 1;
constexpr unsigned kSwitchPorts = 64;
constexpr uint16_t kPmaCapMask = (1u << 9) | (1u << 12);  // PortCountersExtended, PortXmitWait valid
constexpr uint32_t kExtendedSpeedsSupported = 1u << 14;   // PortInfo.CapabilityMask (IBA 14.2.5.6)

/// The port's LID file: "0x1a" (drivers/infiniband/core/sysfs.c, lid_show).
uint64_t parseLid(std::string_view text) {
  text = trim(text);
  if (text.starts_with("0x")) text.remove_prefix(2);
  uint64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v, 16);
  return v;
}

class DemoMadSource final : public MadSource {
 public:
  DemoMadSource(std::shared_ptr<const SysfsRoot> sysfs, std::string pod, unsigned nodeIndex)
      : sysfs_(std::move(sysfs)), switchName_(std::move(pod) + "-ib-leaf"), facing_(nodeIndex) {
    // Mellanox's OUI and the switch's identity (the one its LLDP chassis MAC derives from).
    switchGuid_ = (uint64_t{0x0002c9} << 40) | (sim::switchIdOf(switchName_) & 0xffffffffffull);
  }

  Result<std::vector<UmadPort>> ports() override {
    std::vector<UmadPort> out;
    auto devices = sysfs_->listDir("class/infiniband");
    if (!devices) return out;
    for (const auto& ca : *devices) {
      auto ports = sysfs_->listDir("class/infiniband/" + ca + "/ports");
      if (!ports) continue;
      for (const auto& p : *ports) {
        const std::string dir = "class/infiniband/" + ca + "/ports/" + p;
        auto layer = sysfs_->readText(dir + "/link_layer");
        if (!layer || *layer != "InfiniBand") continue;
        auto number = parseCounter(p);
        if (!number) continue;
        UmadPort port{ca, static_cast<unsigned>(*number), true};
        auto lid = sysfs_->readText(dir + "/lid");
        port.lid = lid ? static_cast<unsigned>(parseLid(*lid)) : 0;
        port.state = static_cast<unsigned>(read(dir + "/state", parseEnumNumber, 1));
        port.physState = static_cast<unsigned>(read(dir + "/phys_state", parseEnumNumber, 2));
        auto rate = sysfs_->readText(dir + "/rate");
        auto bytes = rate ? parseRateBytesPerSecond(*rate) : Result<double>(Error{"no rate", ENOENT});
        port.rateGbps = bytes ? static_cast<unsigned>(*bytes * 8 / 1e9) : 0;
        out.push_back(port);
      }
    }
    return out;
  }

  Result<mad::Payload> smpDirected(const UmadPort& from, const std::vector<uint8_t>& hops, unsigned attr,
                                   unsigned modifier) override {
    ++sent_;
    const unsigned state = liveState(from);
    if (hops.empty()) {
      if (attr != IB_ATTR_PORT_INFO) return Error{"unexpected SMP attribute", EINVAL};
      return portInfo(from.lid, state);
    }
    // Nothing answers across a cable that is down: the SMP times out, as on a real fabric.
    if (state != 4) return Error{"MAD timed out (the link is down)", ETIMEDOUT};
    mad::Payload p{};
    switch (attr) {
      case IB_ATTR_NODE_INFO:
        mad_set_field(p.data(), 0, IB_NODE_TYPE_F, static_cast<uint32_t>(mad::NodeType::kSwitch));
        mad_set_field(p.data(), 0, IB_NODE_NPORTS_F, kSwitchPorts);
        mad_set_field64(p.data(), 0, IB_NODE_GUID_F, switchGuid_);
        mad_set_field(p.data(), 0, IB_NODE_LOCAL_PORT_F, facing_);
        return p;
      case IB_ATTR_NODE_DESC:
        std::copy(switchName_.begin(), switchName_.end(), p.begin());
        return p;
      case IB_ATTR_PORT_INFO:
        // A switch's LID is on its port 0 (IBA 14.2.5.6); its other ports carry none.
        return portInfo(modifier == 0 ? kSwitchLid : 0, state);
      default:
        return Error{"unexpected SMP attribute", EINVAL};
    }
  }

  Result<mad::Payload> pma(const UmadPort& from, unsigned lid, unsigned portSelect, unsigned attr) override {
    ++sent_;
    const bool ours = lid == from.lid && portSelect == from.port;
    const bool theirs = lid == kSwitchLid && portSelect == facing_;
    if (!ours && !theirs) return Error{"no such LID or port", EHOSTUNREACH};
    if (theirs && liveState(from) != 4) return Error{"MAD timed out (the link is down)", ETIMEDOUT};
    mad::Payload p{};
    if (attr == CLASS_PORT_INFO) {
      mad_set_field(p.data(), 0, IB_CPI_BASEVER_F, 1);
      mad_set_field(p.data(), 0, IB_CPI_CAPMASK_F, kPmaCapMask);
      return p;
    }
    const std::string counters = "class/infiniband/" + from.ca + "/ports/" + std::to_string(from.port) + "/counters/";
    auto counter = [&](const char* name) { return read(counters + name, parseCounter, 0); };
    if (attr == IB_GSI_PORT_COUNTERS_EXT) {
      // The switch port sends what we receive and receives what we send (4-byte words, like sysfs).
      const char* xmitData = ours ? "port_xmit_data" : "port_rcv_data";
      const char* rcvData = ours ? "port_rcv_data" : "port_xmit_data";
      const char* xmitPkts = ours ? "port_xmit_packets" : "port_rcv_packets";
      const char* rcvPkts = ours ? "port_rcv_packets" : "port_xmit_packets";
      mad_set_field64(p.data(), 0, IB_PC_EXT_XMT_BYTES_F, counter(xmitData));
      mad_set_field64(p.data(), 0, IB_PC_EXT_RCV_BYTES_F, counter(rcvData));
      mad_set_field64(p.data(), 0, IB_PC_EXT_XMT_PKTS_F, counter(xmitPkts));
      mad_set_field64(p.data(), 0, IB_PC_EXT_RCV_PKTS_F, counter(rcvPkts));
      return p;
    }
    if (attr == IB_GSI_PORT_COUNTERS) {
      if (!ours) return p;  // a clean switch port: every error counter 0, no XmitWait
      const std::pair<MAD_FIELDS, const char*> fields[] = {
          {IB_PC_ERR_SYM_F, "symbol_error"},          {IB_PC_LINK_RECOVERS_F, "link_error_recovery"},
          {IB_PC_LINK_DOWNED_F, "link_downed"},       {IB_PC_ERR_RCV_F, "port_rcv_errors"},
          {IB_PC_XMT_DISCARDS_F, "port_xmit_discards"}, {IB_PC_XMT_WAIT_F, "port_xmit_wait"}};
      for (const auto& [field, name] : fields) {
        mad_set_field(p.data(), 0, field, static_cast<uint32_t>(counter(name)));
      }
      return p;
    }
    return Error{"attribute not supported", EPROTONOSUPPORT};  // the optional details (IBA 16.1.4)
  }

  void reopen(const UmadPort&) override {}
  uint64_t madsSent() const override { return sent_; }

 private:
  /// A number from a sysfs file through one of collectors/sources/parse.hpp's parsers, `otherwise`
  /// when it cannot be read or parsed.
  uint64_t read(const std::string& rel, Result<uint64_t> (*parse)(std::string_view), uint64_t otherwise) const {
    auto text = sysfs_->readText(rel);
    if (!text) return otherwise;
    auto value = parse(*text);
    return value ? *value : otherwise;
  }

  /// The port's state now (ports() is called once per poll; the link may have gone down since).
  unsigned liveState(const UmadPort& from) const {
    const std::string dir = "class/infiniband/" + from.ca + "/ports/" + std::to_string(from.port);
    return static_cast<unsigned>(read(dir + "/state", parseEnumNumber, 1));
  }

  /// NDR 4X on both ends (the simulator's InfiniBand port: docs/simulator.md).
  static mad::Payload portInfo(unsigned lid, unsigned state) {
    mad::Payload p{};
    mad_set_field(p.data(), 0, IB_PORT_LID_F, lid);
    mad_set_field(p.data(), 0, IB_PORT_STATE_F, state);
    mad_set_field(p.data(), 0, IB_PORT_PHYS_STATE_F, state == 4 ? 5 : 2);  // LinkUp / Polling
    mad_set_field(p.data(), 0, IB_PORT_CAPMASK_F, kExtendedSpeedsSupported);
    mad_set_field(p.data(), 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);      // 4X
    mad_set_field(p.data(), 0, IB_PORT_LINK_WIDTH_ENABLED_F, 2 | 1);  // 4X or 1X
    mad_set_field(p.data(), 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, 2 | 1);
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);  // QDR; the extended field says NDR
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_ENABLED_F, 7);
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_SUPPORTED_F, 7);
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, 8);  // NDR
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 15);
    mad_set_field(p.data(), 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, 15);
    return p;
  }

  std::shared_ptr<const SysfsRoot> sysfs_;
  std::string switchName_;
  unsigned facing_;
  uint64_t switchGuid_ = 0;
  uint64_t sent_ = 0;
};

}  // namespace

std::unique_ptr<MadSource> makeDemoMadSource(std::shared_ptr<const SysfsRoot> sysfs, std::string pod,
                                             unsigned nodeIndex) {
  return std::make_unique<DemoMadSource>(std::move(sysfs), std::move(pod), nodeIndex);
}

}  // namespace fabricmon
