#include "collectors/peer_port_collector.hpp"

#include <fmt/format.h>
#include <infiniband/mad.h>

#include <array>
#include <map>
#include <unordered_map>

#include "collectors/pma_counter_collector.hpp"
#include "collectors/rdma_port_collector.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/mad_source.hpp"
#include "model/families/mad.hpp"
#include "model/families/neighbor.hpp"

namespace fabricmon {
namespace {

using namespace families::mad;

using mad::Counter;

// The neighbour's PMA counters: the local families' names with fabricmon_peer_ in place of
// fabricmon_, the same units, labelled with the local device and port.

// Width and speed: the local port's (from its own PortInfo) and the neighbour's.

/// The peer family of a local PMA family ("fabricmon_port_symbol_errors_total" → the peer's).
const FamilyDef* peerFamilyOf(const FamilyDef* local) {
  if (local == nullptr) return nullptr;
  for (const FamilyDef* f : families::mad::all()) {
    if (f->name.size() > 15 && f->name.substr(15) == local->name.substr(10) && f->name.starts_with("fabricmon_peer_")) {
      return f;
    }
  }
  return nullptr;
}

/// The MAD families plus the neighbour's identity under the link-layer-neutral names LLDP fills on
/// Ethernet (fabricmon_port_neighbor_info, source="mad").
std::span<const FamilyDef* const> peerPortFamilies() {
  static const std::vector<const FamilyDef*> list = [] {
    std::vector<const FamilyDef*> v(families::mad::all().begin(), families::mad::all().end());
    v.push_back(&families::neighbor::kPortNeighborInfo);
    return v;
  }();
  return list;
}

/// The first network interface behind an RDMA port (IPoIB on InfiniBand); "" when sysfs shows none.
std::string interfaceOf(const Topology& topology, const UmadPort& port) {
  const RdmaDevice* device = topology.device(port.ca);
  if (device == nullptr) return "";
  for (const RdmaPort& p : device->ports) {
    if (p.number == port.port && !p.netdevs.empty()) return p.netdevs.front();
  }
  return "";
}

constexpr unsigned kActive = 4, kLinkUp = 5;
/// Consecutive failed polls of a port after which its umad handle is closed and opened again.
constexpr unsigned kReopenAfter = 3;

double laneBytes(double gbps) { return gbps * 1e9 / 8; }

/// What the collector remembers per local port between polls.
struct PortMemory {
  // The neighbour, learnt when its GUID first answers; re-learnt when the GUID changes.
  uint64_t peerGuid = 0;
  unsigned peerPort = 0;
  unsigned peerLid = 0;
  mad::NodeType peerType = mad::NodeType::kUnknown;
  std::string peerDescription;
  mad::PmaCapabilities peerCaps;
  bool peerDetails = true;  ///< PortRcvErrorDetails / PortXmitDiscardDetails answered (or not tried yet)
  std::optional<mad::PmaCapabilities> localCaps;
  bool localDetails = true;

  bool up = false, peerUp = false;
  bool seen = false, peerSeen = false;
  double downs = 0, peerDowns = 0;
  unsigned failures = 0;
  std::unordered_map<std::string, SeriesPtr> series;  ///< built once per series; cleared on a new neighbour
};

class PeerPortCollector final : public Collector {
 public:
  PeerPortCollector(std::shared_ptr<MadSource> source, NameFilter devices)
      : source_(std::move(source)), devices_(std::move(devices)) {}

  std::string_view name() const override { return "peer_port"; }
  std::span<const FamilyDef* const> families() const override { return peerPortFamilies(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    auto ports = source_->ports();
    if (!ports) {
      out.fileError("umad", ports.error());
      return CollectStatus::kFailed;
    }
    out.fileOk("umad");
    std::map<std::string, PortMemory> kept;
    for (const UmadPort& port : *ports) {
      if (!port.infiniband) continue;  // RoCE: no PMA over MADs, LLDP tells the neighbour there
      if (!devices_.selected(port.ca)) continue;
      const std::string key = fmt::format("{}/{}", port.ca, port.port);
      PortMemory memory;
      if (auto it = memory_.find(key); it != memory_.end()) memory = std::move(it->second);
      pollPort(topology, port, key, memory, out);
      kept.emplace(key, std::move(memory));
    }
    // Ports that vanished take their series with them (they are simply not emitted any more).
    memory_ = std::move(kept);
    return memory_.empty() ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  SeriesPtr series(PortMemory& m, const FamilyDef& family, const UmadPort& port, std::string_view extraName = {},
                   std::string_view extraValue = {}) {
    std::string k = fmt::format("{}\x1f{}", family.name, extraValue);
    auto it = m.series.find(k);
    if (it != m.series.end()) return it->second;
    Labels labels{{"device", port.ca}, {"port", std::to_string(port.port)}};
    if (!extraName.empty()) labels.emplace_back(std::string(extraName), std::string(extraValue));
    auto s = makeSeries(family, std::move(labels));
    m.series.emplace(std::move(k), s);
    return s;
  }

  void pollPort(const Topology& topology, const UmadPort& port, const std::string& key, PortMemory& m,
                CollectOutput& out) {
    const std::string localKey = key + " (local PortInfo)";
    const std::string peerKey = key + " (neighbour)";
    // The local port's own PortInfo: an SMP to ourselves (directed route of no hops).
    auto localRaw = source_->smpDirected(port, {}, IB_ATTR_PORT_INFO, port.port);
    std::optional<mad::PortInfo> local;
    if (localRaw) local = mad::decodePortInfo(*localRaw);
    if (!local) {
      out.fileError(localKey, localRaw ? Error{"PortInfo out of its domain"} : localRaw.error());
      failed(port, m);
      emitDowns(port, m, out);
      return;
    }
    out.fileOk(localKey);
    const bool sysfsKnows = topology.device(port.ca) != nullptr;
    const bool up = local->state == kActive && local->physState == kLinkUp;
    if (m.seen && m.up && !up) ++m.downs;
    m.up = up;
    m.seen = true;
    emitLocal(port, *local, sysfsKnows, m, out);

    if (!up) {
      // No neighbour to ask while the link is down; its loss counts as a down on its side too.
      if (m.peerSeen && m.peerUp) ++m.peerDowns;
      m.peerUp = false;
      m.failures = 0;
      out.fileOk(peerKey);
      emitDowns(port, m, out);
      return;
    }
    if (!sysfsKnows) pollLocalCounters(port, *local, m, out);

    const std::vector<uint8_t> hop{static_cast<uint8_t>(port.port)};
    auto nodeRaw = source_->smpDirected(port, hop, IB_ATTR_NODE_INFO, 0);
    std::optional<mad::NodeInfo> node;
    if (nodeRaw) node = mad::decodeNodeInfo(*nodeRaw);
    if (!node) {
      out.fileError(peerKey, nodeRaw ? Error{"neighbour NodeInfo out of its domain"} : nodeRaw.error());
      if (m.peerSeen && m.peerUp) ++m.peerDowns;
      m.peerUp = false;
      m.peerSeen = true;
      failed(port, m);
      emitDowns(port, m, out);
      return;
    }
    if (node->nodeGuid != m.peerGuid || node->localPort != m.peerPort) {
      if (auto st = learnNeighbour(topology, port, hop, *node, m); !st) {
        out.fileError(peerKey, st.error());
        failed(port, m);
        emitDowns(port, m, out);
        return;
      }
    }
    auto peerRaw = source_->smpDirected(port, hop, IB_ATTR_PORT_INFO, m.peerPort);
    std::optional<mad::PortInfo> peer;
    if (peerRaw) peer = mad::decodePortInfo(*peerRaw);
    if (!peer) {
      out.fileError(peerKey, peerRaw ? Error{"neighbour PortInfo out of its domain"} : peerRaw.error());
      failed(port, m);
      emitDowns(port, m, out);
      return;
    }
    const bool peerUp = peer->state == kActive && peer->physState == kLinkUp;
    if (m.peerSeen && m.peerUp && !peerUp) ++m.peerDowns;
    m.peerUp = peerUp;
    m.peerSeen = true;

    out.add(series(m, kPeerInfo, port), 1.0);  // labels below: built once per neighbour
    out.add(series(m, families::neighbor::kPortNeighborInfo, port), 1.0);
    emitPeerPortInfo(port, *peer, m, out);
    emitDowns(port, m, out);

    auto counters = readCounters(port, m.peerLid, m.peerPort, m.peerCaps, m.peerDetails);
    if (!counters) {
      out.fileError(peerKey, counters.error());
      failed(port, m);
      return;
    }
    for (const Counter& c : *counters) emitCounter(port, m, c, true, out);
    out.fileOk(peerKey);
    m.failures = 0;
  }

  /// A new neighbour (first contact, re-cabled, switch replaced): who it is, its LID, what its PMA answers.
  Status learnNeighbour(const Topology& topology, const UmadPort& port, const std::vector<uint8_t>& hop,
                        const mad::NodeInfo& node, PortMemory& m) {
    auto desc = source_->smpDirected(port, hop, IB_ATTR_NODE_DESC, 0);
    if (!desc) return desc.error();
    // A switch's LID is on PortInfo of its port 0 (IBA 14.2.5.6); a CA's on the port itself.
    const unsigned lidPort = node.type == mad::NodeType::kSwitch ? 0 : node.localPort;
    auto lidInfo = source_->smpDirected(port, hop, IB_ATTR_PORT_INFO, lidPort);
    if (!lidInfo) return lidInfo.error();
    auto pi = mad::decodePortInfo(*lidInfo);
    if (!pi || pi->lid == 0 || pi->lid >= 0xc000) {
      return Error{fmt::format("neighbour {:#018x} has no unicast LID yet (is a subnet manager running?)", node.nodeGuid)};
    }
    auto cpi = source_->pma(port, pi->lid, node.localPort, CLASS_PORT_INFO);
    if (!cpi) return cpi.error();
    auto caps = mad::decodeClassPortInfo(*cpi);
    if (!caps) return Error{"neighbour PMA ClassPortInfo out of its domain"};
    m.series.clear();  // the old neighbour's series leave with it
    m.peerGuid = node.nodeGuid;
    m.peerPort = node.localPort;
    m.peerType = node.type;
    m.peerLid = pi->lid;
    m.peerDescription = mad::decodeNodeDescription(*desc);
    m.peerCaps = *caps;
    m.peerDetails = true;
    m.series.emplace(std::string(kPeerInfo.name) + "\x1f",
                     makeSeries(kPeerInfo, {{"device", port.ca},
                                            {"port", std::to_string(port.port)},
                                            {"peer_guid", fmt::format("{:#018x}", node.nodeGuid)},
                                            {"peer_port", std::to_string(node.localPort)},
                                            {"peer_description", m.peerDescription},
                                            {"peer_type", std::string(mad::nodeTypeName(node.type))}}));
    // The same neighbour under the names LLDP fills on Ethernet (docs/contract.md §4).
    const auto& neighbourInfo = families::neighbor::kPortNeighborInfo;
    m.series.emplace(std::string(neighbourInfo.name) + "\x1f",
                     makeSeries(neighbourInfo, {{"device", port.ca},
                                                {"port", std::to_string(port.port)},
                                                {"interface", interfaceOf(topology, port)},
                                                {"chassis_name", m.peerDescription},
                                                {"chassis_id", fmt::format("{:#018x}", node.nodeGuid)},
                                                {"port_id", std::to_string(node.localPort)},
                                                {"port_description", ""},
                                                {"source", "mad"}}));
    return {};
  }

  /// PortCounters, PortCountersExtended (when the capability mask says so) and the two details
  /// attributes (optional in IBA 16.1.4; no capability bit: a PMA that does not answer them once
  /// is not asked again until the neighbour changes).
  Result<std::vector<Counter>> readCounters(const UmadPort& port, unsigned lid, unsigned portSelect,
                                            const mad::PmaCapabilities& caps, bool& details) {
    auto pc = source_->pma(port, lid, portSelect, IB_GSI_PORT_COUNTERS);
    if (!pc) return pc.error();
    std::vector<Counter> out = mad::decodePortCounters(*pc, caps.xmitWait());
    if (caps.extendedCounters()) {
      auto ext = source_->pma(port, lid, portSelect, IB_GSI_PORT_COUNTERS_EXT);
      if (!ext) return ext.error();
      auto wide = mad::decodePortCountersExtended(*ext);
      for (Counter& c : out) {
        for (const Counter& w : wide) {
          if (w.name == c.name) c = w;
        }
      }
      for (const Counter& w : wide) {
        if (w.name.find("cast") != std::string_view::npos) out.push_back(w);
      }
    }
    if (details) {
      auto rcv = source_->pma(port, lid, portSelect, IB_GSI_PORT_RCV_ERROR_DETAILS);
      auto xmit = rcv ? source_->pma(port, lid, portSelect, IB_GSI_PORT_XMIT_DISCARD_DETAILS) : rcv;
      if (rcv && xmit) {
        for (const Counter& c : mad::decodeRcvErrorDetails(*rcv)) out.push_back(c);
        for (const Counter& c : mad::decodeXmitDiscardDetails(*xmit)) out.push_back(c);
      } else {
        details = false;
      }
    }
    return out;
  }

  void pollLocalCounters(const UmadPort& port, const mad::PortInfo& local, PortMemory& m, CollectOutput& out) {
    const std::string k = fmt::format("{}/{} (local PMA)", port.ca, port.port);
    if (!m.localCaps) {
      auto cpi = source_->pma(port, local.lid, port.port, CLASS_PORT_INFO);
      if (cpi) m.localCaps = mad::decodeClassPortInfo(*cpi);
      if (!m.localCaps) {
        out.fileError(k, cpi ? Error{"ClassPortInfo out of its domain"} : cpi.error());
        return;
      }
    }
    auto counters = readCounters(port, local.lid, port.port, *m.localCaps, m.localDetails);
    if (!counters) {
      out.fileError(k, counters.error());
      return;
    }
    out.fileOk(k);
    for (const Counter& c : *counters) emitCounter(port, m, c, false, out);
  }

  void emitCounter(const UmadPort& port, PortMemory& m, const Counter& c, bool peer, CollectOutput& out) {
    double scale = 1.0;
    const FamilyDef* local = pmaCounterFamily(c.name, &scale);
    const FamilyDef* family = peer ? peerFamilyOf(local) : local;
    if (family != nullptr) {
      out.add(series(m, *family, port), double(c.value) * scale);
    } else {
      out.add(series(m, peer ? kPeerStat : pmaStatFamily(), port, "counter", c.name), double(c.value));
    }
    if (c.bits < 64) {
      const uint64_t max = (uint64_t{1} << c.bits) - 1;
      out.add(series(m, peer ? kPeerSaturated : pmaSaturatedFamily(), port, "counter",
                     c.name),
              c.value >= max ? 1.0 : 0.0);
    }
  }

  void emitLocal(const UmadPort& port, const mad::PortInfo& local, bool sysfsKnows, PortMemory& m, CollectOutput& out) {
    out.add(series(m, kWidthActive, port), local.widthActive);
    out.add(series(m, kWidthEnabled, port), local.widthEnabled);
    out.add(series(m, kSpeedActive, port), laneBytes(local.laneGbpsActive));
    out.add(series(m, kSpeedEnabled, port), laneBytes(local.laneGbpsEnabled));
    if (sysfsKnows) return;
    // No sysfs view of this port (libumad2sim, or a sysfs root that shows other devices): the
    // port's own state and rate from its PortInfo, so the rules can join and judge it.
    const double gbps = local.widthActive * local.laneGbpsActive;
    const std::string infoKey = fmt::format("port_info\x1f{}", gbps);
    auto it = m.series.find(infoKey);
    if (it == m.series.end()) {
      it = m.series
               .emplace(infoKey, makeSeries(portInfoFamily(), {{"device", port.ca},
                                                              {"port", std::to_string(port.port)},
                                                              {"interface", ""},
                                                              {"link_layer", "InfiniBand"},
                                                              {"rate", fmt::format("{:g} Gb/sec ({}X)", gbps,
                                                                                   local.widthActive)}}))
               .first;
    }
    out.add(it->second, 1.0);
    out.add(series(m, portStateFamily(), port), local.state);
    out.add(series(m, portPhysicalStateFamily(), port), local.physState);
    out.add(series(m, portRateFamily(), port), laneBytes(gbps));
  }

  void emitPeerPortInfo(const UmadPort& port, const mad::PortInfo& peer, PortMemory& m, CollectOutput& out) {
    out.add(series(m, kPeerState, port), peer.state);
    out.add(series(m, kPeerPhysicalState, port), peer.physState);
    out.add(series(m, kPeerWidthActive, port), peer.widthActive);
    out.add(series(m, kPeerWidthEnabled, port), peer.widthEnabled);
    out.add(series(m, kPeerSpeedActive, port), laneBytes(peer.laneGbpsActive));
    out.add(series(m, kPeerSpeedEnabled, port), laneBytes(peer.laneGbpsEnabled));
  }

  void emitDowns(const UmadPort& port, PortMemory& m, CollectOutput& out) {
    if (m.seen) out.add(series(m, kDownObserved, port), m.downs);
    if (m.peerSeen) out.add(series(m, kPeerDownObserved, port), m.peerDowns);
  }

  void failed(const UmadPort& port, PortMemory& m) {
    if (++m.failures >= kReopenAfter) {
      source_->reopen(port);
      m.failures = 0;
    }
  }

  std::shared_ptr<MadSource> source_;
  NameFilter devices_;
  std::map<std::string, PortMemory> memory_;
};

}  // namespace

std::unique_ptr<Collector> makePeerPortCollector(std::shared_ptr<MadSource> source, NameFilter devices) {
  return std::make_unique<PeerPortCollector>(std::move(source), std::move(devices));
}

std::unique_ptr<Collector> makePeerPortCollector(const Sources& sources, const Config& config) {
  return makePeerPortCollector(sources.mad, NameFilter(config.devices.include, config.devices.exclude, "devices"));
}

}  // namespace fabricmon
