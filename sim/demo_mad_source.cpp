#include "sim/demo_mad_source.hpp"

#include <infiniband/mad.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

#include "collectors/sources/parse.hpp"
#include "sim/lldp.hpp"

namespace fabricmon {
namespace {

constexpr unsigned kSwitchLid = 1;
constexpr unsigned kSwitchPorts = 64;
// PortCountersExtended, PortXmitWait valid, PortExtendedSpeedsCounters in the RS-FEC layout.
constexpr uint16_t kPmaCapMask = (1u << 9) | (1u << 12) | (1u << 14);
constexpr uint32_t kExtendedSpeedsSupported = 1u << 14;   // PortInfo.CapabilityMask (IBA 14.2.5.6)
constexpr uint32_t kCapabilityMask2Supported = 1u << 15;  // PortInfo.CapabilityMask
constexpr uint32_t kPortInfoExtendedSupported = 1u << 1;  // PortInfo.CapabilityMask2
constexpr uint64_t kMax32 = 0xffffffffu;                  // the PMA's FEC counters saturate here

/// One simulator FEC file: "name: value" (lane lists: "name: a b c d").
using FecFile = std::map<std::string, std::vector<uint64_t>, std::less<>>;
FecFile parseFecFile(const std::string& text) {
  FecFile out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream values(line.substr(colon + 1));
    uint64_t v = 0;
    auto& list = out[line.substr(0, colon)];
    while (values >> v) list.push_back(v);
  }
  return out;
}

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
  DemoMadSource(std::shared_ptr<const SysfsRoot> sysfs, std::string pod, unsigned nodeIndex, std::filesystem::path madDir)
      : sysfs_(std::move(sysfs)), switchName_(std::move(pod) + "-ib-leaf"), facing_(nodeIndex), madDir_(std::move(madDir)) {
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
    const std::optional<FecFile> fec = fecFile(from);
    if (attr == IB_ATTR_PORT_INFO_EXT && (hops.empty() || state == 4)) {
      if (!fec) return Error{"attribute not supported", EPROTONOSUPPORT};
      mad::Payload p{};
      mad_set_field(p.data(), 0, IB_PORT_EXT_CAPMASK_F, 1);  // IsFECModeSupported
      mad_set_field(p.data(), 0, IB_PORT_EXT_FEC_MODE_ACTIVE_F, static_cast<uint32_t>(first(*fec, "fec_mode")));
      return p;
    }
    if (hops.empty()) {
      if (attr != IB_ATTR_PORT_INFO) return Error{"unexpected SMP attribute", EINVAL};
      return portInfo(from.lid, state, fec.has_value());
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
        // Its capability masks, too, are on port 0 only (reserved on external ports, IBA 14.2.5.6).
        return portInfo(modifier == 0 ? kSwitchLid : 0, state, fec.has_value() && modifier == 0);
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
    if (attr == IB_GSI_PORT_EXT_SPEEDS_COUNTERS) {
      const std::optional<FecFile> fec = fecFile(from);
      if (!fec) return Error{"attribute not supported", EPROTONOSUPPORT};
      const std::string side = ours ? "" : "peer_";
      auto put = [&](MAD_FIELDS field, uint64_t v) { mad_set_field(p.data(), 0, field, static_cast<uint32_t>(std::min(v, kMax32))); };
      put(IB_PESC_PORT_FEC_CORR_SYMBOL_CTR_F, first(*fec, side + "corrected_symbols"));
      put(IB_PESC_PORT_FEC_CORR_BLOCK_CTR_F, first(*fec, side + "corrected_blocks"));
      put(IB_PESC_PORT_FEC_UNCORR_BLOCK_CTR_F, first(*fec, side + "uncorrectable_blocks"));
      if (auto lanes = fec->find(side + "lane_corrected_symbols"); lanes != fec->end()) {
        for (size_t lane = 0; lane < lanes->second.size() && lane < 12; ++lane) {
          put(static_cast<MAD_FIELDS>(IB_PESC_RSFEC_FEC_CORR_SYMBOL_CTR_LANE0_F + lane), lanes->second[lane]);
        }
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

  /// The simulator's FEC file of the port (both ends), if the demo has one.
  std::optional<FecFile> fecFile(const UmadPort& from) const {
    if (madDir_.empty()) return std::nullopt;
    std::ifstream in(madDir_ / from.ca / std::to_string(from.port));
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    return parseFecFile(text.str());
  }
  static uint64_t first(const FecFile& f, std::string_view name) {
    auto it = f.find(name);
    return it == f.end() || it->second.empty() ? 0 : it->second.front();
  }

  /// NDR 4X on both ends (the simulator's InfiniBand port: docs/simulator.md); PortInfoExtended
  /// where the simulator keeps the link's FEC.
  static mad::Payload portInfo(unsigned lid, unsigned state, bool portInfoExtended) {
    mad::Payload p{};
    if (portInfoExtended) mad_set_field(p.data(), 0, IB_PORT_CAPMASK2_F, kPortInfoExtendedSupported);
    const uint32_t capMask2Supported = portInfoExtended ? kCapabilityMask2Supported : 0;
    mad_set_field(p.data(), 0, IB_PORT_LID_F, lid);
    mad_set_field(p.data(), 0, IB_PORT_STATE_F, state);
    mad_set_field(p.data(), 0, IB_PORT_PHYS_STATE_F, state == 4 ? 5 : 2);  // LinkUp / Polling
    mad_set_field(p.data(), 0, IB_PORT_CAPMASK_F, kExtendedSpeedsSupported | capMask2Supported);
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
  std::filesystem::path madDir_;
};

}  // namespace

std::unique_ptr<MadSource> makeDemoMadSource(std::shared_ptr<const SysfsRoot> sysfs, std::string pod,
                                             unsigned nodeIndex, std::filesystem::path madDir) {
  return std::make_unique<DemoMadSource>(std::move(sysfs), std::move(pod), nodeIndex, std::move(madDir));
}

}  // namespace fabricmon
