#include "collectors/peer_port_collector.hpp"

#include <fmt/format.h>
#include <infiniband/mad.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "collectors/registry.hpp"
#include "collectors/sources/mad_source.hpp"
#include "model/families/mad.hpp"
#include "model/families/neighbor.hpp"
#include "model/families/pma.hpp"
#include "model/families/port.hpp"

namespace fabricmon {
namespace {

using namespace families::mad;
using mad::Counter;

/// Which end of the cable a sample describes. The neighbour's quantities are the local port's
/// families' peers (families::mad::localPeerPairs), labelled with the local device and port.
enum class Side { kLocal, kPeer };

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

/// The `lane` label values (static storage, as SeriesKey keeps a view).
constexpr std::string_view kLaneNames[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"};

/// FECModeActive values whose PortExtendedSpeedsCounters have the RS-FEC layout (infiniband-diags'
/// perfquery decides the same way): Standard RS-FEC and RS-FEC2.
bool rsfecLayout(unsigned mode) { return mode == 2 || mode == 4; }

/// One end's PortExtendedSpeedsCounters: optional in IBA 16.1.4, with no capability bit of their
/// own. A PMA that has never answered them is asked at most kFecTries times, then not again (until
/// the neighbour changes); one that has answered and then fails is a failed read.
constexpr unsigned kFecTries = 3;
struct FecAsk {
  bool answered = false;
  unsigned failures = 0;
  bool worthAsking() const { return answered || failures < kFecTries; }
};

/// One end's FEC reads: the counters' optional attribute, the mode PortInfoExtended last gave, and
/// the layout and lane count the counters were last emitted in (0 lanes: none are).
struct FecEnd {
  FecAsk counters;
  std::optional<unsigned> lastMode;
  bool rsfec = false;
  unsigned lanes = 0;
};

/// The FEC families of the local end (their neighbour's are families::mad::peerOf).
bool isFecFamily(const FamilyDef* local) {
  return local == &kFecCorrectedBlocks || local == &kFecUncorrectableBlocks || local == &kFecCorrectedSymbols ||
         local == &kFecLaneCorrectedSymbols || local == &kFecLaneCorrectedBlocks;
}

/// A series of the cache: the local family it stands for, the side, and the `counter` label (a
/// name from libibmad's field tables, collectors/sources/mad_fields.cpp: static storage) or "".
struct SeriesKey {
  const FamilyDef* local;
  Side side;
  std::string_view counter;
  auto operator<=>(const SeriesKey&) const = default;
};

/// What the collector remembers per local port between polls.
struct PortMemory {
  // The error-tracker keys of the port's three reads, built once.
  std::string localKey, peerKey, localPmaKey, localFecKey;

  // The neighbour, learnt when its GUID first answers; re-learnt when the GUID changes.
  uint64_t peerGuid = 0;
  unsigned peerPort = 0;
  unsigned peerLid = 0;
  mad::PmaCapabilities peerCaps;
  bool peerDetails = true;  ///< PortRcvErrorDetails / PortXmitDiscardDetails answered (or not tried yet)
  unsigned localLid = 0;
  std::optional<mad::PmaCapabilities> localCaps;
  bool localDetails = true;
  /// The local port's PortInfo of this poll (its width and whether PortInfoExtended answers).
  std::optional<mad::PortInfo> localPortInfo;
  /// Whether the neighbour answers PortInfoExtended: a switch's port 0 says (learnNeighbour).
  bool peerPortInfoExtended = false;
  FecEnd fec[2];  ///< [Side]
  /// fabricmon_port_fec_info of each side ([Side]).
  SeriesPtr fecInfo[2];

  /// The port's identity or PMA counters were emitted here (no sysfs view of it yet): the series
  /// to let go to rdma_port and pma_counters once sysfs shows the device.
  bool ownsLocalIdentity = false;
  bool up = false, peerUp = false;
  bool seen = false, peerSeen = false;
  double downs = 0, peerDowns = 0;
  unsigned failures = 0;

  // Series, built once. The identities carry the neighbour in their labels (cleared with it); the
  // local port_info carries the rate it was built for.
  std::map<SeriesKey, SeriesPtr> series;
  SeriesPtr peerInfo, neighbourInfo, localInfo;
  double localInfoGbps = -1;

  /// The neighbour left (link down, NodeInfo unanswered) or its port left ACTIVE.
  void peerLost() {
    if (peerSeen && peerUp) ++peerDowns;
    peerUp = false;
  }
};

class PeerPortCollector final : public Collector {
 public:
  PeerPortCollector(std::shared_ptr<MadSource> source, NameFilter devices)
      : source_(std::move(source)), devices_(std::move(devices)) {}

  std::span<const FamilyDef* const> families() const override { return peerPortFamilies(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    auto ports = source_->ports();
    if (!ports) {
      out.fileError("umad", ports.error());
      return CollectStatus::kFailed;
    }
    out.fileOk("umad");
    std::map<std::pair<std::string, unsigned>, PortMemory> kept;
    for (const UmadPort& port : *ports) {
      if (!port.infiniband) continue;  // RoCE: no PMA over MADs, LLDP tells the neighbour there
      if (!devices_.selected(port.ca)) continue;
      auto key = std::make_pair(port.ca, port.port);
      PortMemory memory;
      if (auto it = memory_.find(key); it != memory_.end()) {
        memory = std::move(it->second);
      } else {
        const std::string at = fmt::format("{}/{}", port.ca, port.port);
        memory.localKey = at + " (local PortInfo)";
        memory.peerKey = at + " (neighbour)";
        memory.localPmaKey = at + " (local PMA)";
        memory.localFecKey = at + " (local PMA) FEC";
      }
      pollPort(topology, port, memory, out);
      kept.emplace(std::move(key), std::move(memory));
    }
    // Ports that vanished take their series with them (they are simply not emitted any more).
    memory_ = std::move(kept);
    return memory_.empty() ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  /// `counter` is the value of the family's third label, `counter` or (lane families) `lane`.
  SeriesPtr& series(PortMemory& m, const FamilyDef& local, Side side, const UmadPort& port,
                    std::string_view counter = {}) {
    SeriesPtr& s = m.series[SeriesKey{&local, side, counter}];
    if (s == nullptr) {
      const FamilyDef* family = side == Side::kPeer ? peerOf(local) : &local;
      Labels labels{{"device", port.ca}, {"port", std::to_string(port.port)}};
      const bool lane = &local == &kFecLaneCorrectedSymbols || &local == &kFecLaneCorrectedBlocks;
      if (!counter.empty()) labels.emplace_back(lane ? "lane" : "counter", std::string(counter));
      s = makeSeries(*family, std::move(labels));
    }
    return s;
  }

  /// One port, one poll. Every failure ends here the same way: the read's key reports the error,
  /// the port's failure streak grows (its umad handle is reopened after kReopenAfter), and the
  /// link-down counts are still emitted; what was read before the failure stays in the batch, and
  /// the port's other series are unread this run (unreadSince).
  void pollPort(const Topology& topology, const UmadPort& port, PortMemory& m, CollectOutput& out) {
    // Once sysfs has shown the device, rdma_port and pma_counters own its port series for the rest
    // of the run, also while the device is away or not yet discovered again: a fallback emitted in
    // that gap would clash with their next batch (two sources of one series) and feed the rules a
    // rate computed another way.
    // Kept per device, not per port memory: a device that vanishes takes its umad ports (and their
    // memory) with it, and they answer MADs again before discovery sees the device return.
    if (!sysfsShown_.contains(port.ca) && topology.device(port.ca) != nullptr) sysfsShown_.insert(port.ca);
    const bool sysfsKnows = sysfsShown_.contains(port.ca);
    if (sysfsKnows && m.ownsLocalIdentity) forgetLocalIdentity(m);
    const size_t mark = out.samples().size();
    bool localCountersRead = true;
    const std::string* failedKey = &m.localKey;
    Status status = pollLocal(port, sysfsKnows, m, out);
    if (status) {
      out.fileOk(m.localKey);
      failedKey = &m.peerKey;
      if (!m.up) {
        // No neighbour to ask while the link is down; its loss counts as a down on its side too.
        m.peerLost();
        holdFec(m, out);
      } else {
        if (!sysfsKnows) localCountersRead = pollLocalCounters(port, m, out);
        if (!pollLocalFec(port, m, out)) localCountersRead = false;
        status = pollPeer(topology, port, m, out);
      }
    }
    if (status) {
      out.fileOk(m.peerKey);
      m.failures = 0;
    } else {
      out.fileError(*failedKey, status.error());
      if (++m.failures >= kReopenAfter) {
        source_->reopen(port);
        m.failures = 0;
      }
    }
    if (m.seen) out.add(series(m, kDownObserved, Side::kLocal, port), m.downs);
    if (m.peerSeen) out.add(series(m, kDownObserved, Side::kPeer, port), m.peerDowns);
    if (!status || !localCountersRead) unreadSince(mark, m, out);
  }

  /// A read that failed (a MAD that timed out: a busy or dead peer, a wedged local HCA) leaves the
  /// port's series that this run did not give unread, not gone: their history, and the findings
  /// the neighbour's counters hold up, stay until a read answers again (docs/architecture.md, "An
  /// unread series is not a vanished one"). A port whose link is down is read fine: its neighbour's
  /// series leave, as the neighbour is not there to be read.
  static void unreadSince(size_t mark, const PortMemory& m, CollectOutput& out) {
    std::vector<const Series*> given;
    for (const Sample& sample : out.samples().subspan(mark)) given.push_back(sample.series);
    std::sort(given.begin(), given.end());
    auto unread = [&](const SeriesPtr& series) {
      if (series && !std::binary_search(given.begin(), given.end(), series.get())) out.unread(series);
    };
    for (const auto& [key, series] : m.series) unread(series);
    for (const SeriesPtr* series : {&m.peerInfo, &m.neighbourInfo, &m.localInfo, &m.fecInfo[0], &m.fecInfo[1]}) {
      unread(*series);
    }
  }

  /// While the link is down both ends' FEC series are unread, not gone: link_ber holds what it
  /// judged of the link until it is back (docs/rules.md, "link_ber").
  static void holdFec(const PortMemory& m, CollectOutput& out) {
    for (const auto& [key, series] : m.series) {
      if (series && isFecFamily(key.local)) out.unread(series);
    }
    for (const SeriesPtr& info : m.fecInfo) {
      if (info) out.unread(info);
    }
  }

  /// Sysfs shows the device now: rdma_port and pma_counters own the port's identity and PMA series,
  /// which this collector no longer emits nor reports unread (one series, one source).
  static void forgetLocalIdentity(PortMemory& m) {
    const auto mad = families::mad::all();
    std::erase_if(m.series, [&](const auto& entry) {
      return entry.first.side == Side::kLocal && std::find(mad.begin(), mad.end(), entry.first.local) == mad.end();
    });
    m.localInfo = nullptr;
    m.localInfoGbps = -1;
    m.ownsLocalIdentity = false;
  }

  /// The local port's own PortInfo: an SMP to ourselves (directed route of no hops).
  Status pollLocal(const UmadPort& port, bool sysfsKnows, PortMemory& m, CollectOutput& out) {
    auto raw = source_->smpDirected(port, {}, IB_ATTR_PORT_INFO, port.port);
    if (!raw) return raw.error();
    auto local = mad::decodePortInfo(*raw);
    if (!local) return Error{"PortInfo out of its domain"};
    m.localLid = local->lid;
    m.localPortInfo = *local;
    const bool up = local->state == kActive && local->physState == kLinkUp;
    if (m.seen && m.up && !up) ++m.downs;
    m.up = up;
    m.seen = true;
    emitPortInfo(port, Side::kLocal, *local, m, out);
    if (!sysfsKnows) emitPortIdentity(port, *local, m, out);
    return {};
  }

  /// The neighbour: who it is (learnt again when it changes), its port facing us, its counters.
  Status pollPeer(const Topology& topology, const UmadPort& port, PortMemory& m, CollectOutput& out) {
    const std::vector<uint8_t> hop{static_cast<uint8_t>(port.port)};
    auto nodeRaw = source_->smpDirected(port, hop, IB_ATTR_NODE_INFO, 0);
    std::optional<mad::NodeInfo> node;
    if (nodeRaw) node = mad::decodeNodeInfo(*nodeRaw);
    if (!node) {
      m.peerLost();
      m.peerSeen = true;
      return nodeRaw ? Error{"neighbour NodeInfo out of its domain"} : nodeRaw.error();
    }
    if (node->nodeGuid != m.peerGuid || node->localPort != m.peerPort) {
      if (auto st = learnNeighbour(topology, port, hop, *node, m); !st) return st;
    }
    auto peerRaw = source_->smpDirected(port, hop, IB_ATTR_PORT_INFO, m.peerPort);
    if (!peerRaw) return peerRaw.error();
    auto peer = mad::decodePortInfo(*peerRaw);
    if (!peer) return Error{"neighbour PortInfo out of its domain"};
    if (!(peer->state == kActive && peer->physState == kLinkUp)) m.peerLost();
    else m.peerUp = true;
    m.peerSeen = true;

    out.add(m.peerInfo, 1.0);
    out.add(m.neighbourInfo, 1.0);
    emitPortInfo(port, Side::kPeer, *peer, m, out);

    auto counters = readCounters(port, m.peerLid, m.peerPort, m.peerCaps, m.peerDetails);
    if (!counters) return counters.error();
    for (const Counter& c : *counters) emitCounter(port, Side::kPeer, c, m, out);
    return pollFec(port, Side::kPeer, hop, m.peerLid, m.peerPort, m.peerCaps, m.peerPortInfoExtended,
                   peer->widthActive, m, out);
  }

  /// The local port's FEC: its own PMA by its own LID (sysfs has no FEC counters of an InfiniBand
  /// port). A failure has its own error key and does not stop the neighbour's reads. False when
  /// counters that answered before could not be read.
  bool pollLocalFec(const UmadPort& port, PortMemory& m, CollectOutput& out) {
    if (!m.localPortInfo || m.localLid == 0) return true;
    FecAsk& ask = m.fec[static_cast<int>(Side::kLocal)].counters;
    if (!m.localCaps) {
      if (!ask.worthAsking()) return true;
      auto cpi = source_->pma(port, m.localLid, port.port, CLASS_PORT_INFO);
      if (cpi) m.localCaps = mad::decodeClassPortInfo(*cpi);
      if (!m.localCaps) {
        ++ask.failures;  // pollLocalCounters reports a PMA that does not answer
        return true;
      }
    }
    if (auto st = pollFec(port, Side::kLocal, {}, m.localLid, port.port, *m.localCaps, m.localPortInfo->portInfoExtended,
                          m.localPortInfo->widthActive, m, out);
        !st) {
      out.fileError(m.localFecKey, st.error());
      return false;
    }
    out.fileOk(m.localFecKey);
    return true;
  }

  /// One end's FEC: the mode it runs (PortInfoExtended, where PortInfo says it answers) and its
  /// PortExtendedSpeedsCounters for the `lanes` the link trained to. No FEC, no counters.
  /// PortExtendedSpeedsCounters are optional with no capability bit: an end that never answered
  /// them is not an error (FecAsk). PortInfoExtended has its bit: where it says the attribute
  /// answers, the counters are read in the layout its mode gives, and not before it has answered
  /// once (a FireCode decode of RS-FEC counters would be garbage); a later failure keeps the mode
  /// it gave last.
  Status pollFec(const UmadPort& port, Side side, const std::vector<uint8_t>& hops, unsigned lid, unsigned portSelect,
                 const mad::PmaCapabilities& caps, bool portInfoExtended, unsigned lanes, PortMemory& m,
                 CollectOutput& out) {
    const int s = static_cast<int>(side);
    FecEnd& end = m.fec[s];
    std::optional<unsigned> mode;
    if (portInfoExtended) {
      auto raw = source_->smpDirected(port, hops, IB_ATTR_PORT_INFO_EXT, portSelect);
      if (raw) mode = mad::decodeFecModeActive(*raw);
      if (mode) end.lastMode = mode;
      mode = end.lastMode;
      if (!mode) return {};  // promised but never given: the counters' layout is not known yet
    }
    if (mode && !mad::ibFecCode(*mode).empty()) {
      if (m.fecInfo[s] == nullptr || m.fecInfo[s]->label("mode") != mad::ibFecModeName(*mode)) {
        const FamilyDef& family = side == Side::kPeer ? kPeerFecInfo : kFecInfo;
        m.fecInfo[s] = makeSeries(family, {{"device", port.ca},
                                           {"port", std::to_string(port.port)},
                                           {"mode", std::string(mad::ibFecModeName(*mode))},
                                           {"code", std::string(mad::ibFecCode(*mode))}});
      }
      out.add(m.fecInfo[s], 1.0);
    } else {
      m.fecInfo[s] = nullptr;
    }
    FecAsk& ask = end.counters;
    // No FEC: nothing to count. A mode mad::ibFecCode does not know: the counters' layout is unknown.
    const bool unknownMode = mode && (*mode == 0 || mad::ibFecCode(*mode).empty());
    if (unknownMode || lanes == 0 || !ask.worthAsking()) {
      forgetFec(m, side);
      return {};
    }
    auto raw = source_->pma(port, lid, portSelect, IB_GSI_PORT_EXT_SPEEDS_COUNTERS);
    if (!raw) {
      if (ask.answered) return raw.error();
      ++ask.failures;
      return {};
    }
    const bool rsfec = caps.rsfecCounters() && mode && rsfecLayout(*mode);
    auto fec = mad::decodeExtendedSpeedsFec(*raw, rsfec, lanes);
    if (!fec) return Error{"PortExtendedSpeedsCounters out of its domain"};
    ask.answered = true;
    if (end.lanes != 0 && (end.rsfec != rsfec || (!rsfec && end.lanes != lanes))) {
      // Another layout, or FireCode sums over another number of lanes: other counters under the
      // same names. The old series leave in this run and the new ones start in the next, so no
      // rule reads the switch as a jump. (The RS-FEC layout's port totals do not depend on the
      // lanes: a link that retrained narrower keeps them and only loses the lanes it left.)
      forgetFec(m, side);
      return {};
    }
    if (end.lanes > lanes) {
      std::erase_if(m.series, [&](const auto& entry) {
        const auto& [family, at, lane] = entry.first;
        return at == side && family == &kFecLaneCorrectedSymbols &&
               std::find(kLaneNames, kLaneNames + lanes, lane) == kLaneNames + lanes;
      });
    }
    end.rsfec = rsfec;
    end.lanes = lanes;
    out.add(series(m, kFecCorrectedBlocks, side, port), double(fec->correctedBlocks));
    out.add(series(m, kFecUncorrectableBlocks, side, port), double(fec->uncorrectableBlocks));
    if (fec->correctedSymbols) out.add(series(m, kFecCorrectedSymbols, side, port), double(*fec->correctedSymbols));
    const FamilyDef& laneFamily = rsfec ? kFecLaneCorrectedSymbols : kFecLaneCorrectedBlocks;
    for (size_t lane = 0; lane < fec->laneCorrected.size(); ++lane) {
      out.add(series(m, laneFamily, side, port, kLaneNames[lane]), double(fec->laneCorrected[lane]));
    }
    return {};
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
    // The old neighbour's series leave with it; the local port's stay.
    std::erase_if(m.series, [](const auto& entry) { return entry.first.side == Side::kPeer; });
    m.peerGuid = node.nodeGuid;
    m.peerPort = node.localPort;
    m.peerLid = pi->lid;
    m.peerCaps = *caps;
    m.peerDetails = true;
    // A switch says on its port 0 whether PortInfoExtended answers; a CA on the port itself.
    m.peerPortInfoExtended = pi->portInfoExtended;
    m.fec[static_cast<int>(Side::kPeer)] = FecEnd{};
    m.fecInfo[static_cast<int>(Side::kPeer)] = nullptr;
    const std::string description = mad::decodeNodeDescription(*desc);
    const std::string guid = fmt::format("{:#018x}", node.nodeGuid);
    m.peerInfo = makeSeries(kPeerInfo, {{"device", port.ca},
                                        {"port", std::to_string(port.port)},
                                        {"peer_guid", guid},
                                        {"peer_port", std::to_string(node.localPort)},
                                        {"peer_description", description},
                                        {"peer_type", std::string(mad::nodeTypeName(node.type))}});
    // The same neighbour under the names LLDP fills on Ethernet (docs/contract.md §4).
    m.neighbourInfo = makeSeries(families::neighbor::kPortNeighborInfo,
                                 {{"device", port.ca},
                                  {"port", std::to_string(port.port)},
                                  {"interface", interfaceOf(topology, port)},
                                  {"chassis_name", description},
                                  {"chassis_id", guid},
                                  {"port_id", std::to_string(node.localPort)},
                                  {"port_description", ""},
                                  {"source", "mad"}});
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

  /// The local port's PMA over MADs, for a port sysfs does not show (its own error key; a failure
  /// here does not stop the neighbour's reads). False when they could not be read.
  bool pollLocalCounters(const UmadPort& port, PortMemory& m, CollectOutput& out) {
    if (!m.localCaps) {
      auto cpi = source_->pma(port, m.localLid, port.port, CLASS_PORT_INFO);
      if (cpi) m.localCaps = mad::decodeClassPortInfo(*cpi);
      if (!m.localCaps) {
        out.fileError(m.localPmaKey, cpi ? Error{"ClassPortInfo out of its domain"} : cpi.error());
        return false;
      }
    }
    auto counters = readCounters(port, m.localLid, port.port, *m.localCaps, m.localDetails);
    if (!counters) {
      out.fileError(m.localPmaKey, counters.error());
      return false;
    }
    out.fileOk(m.localPmaKey);
    m.ownsLocalIdentity = true;
    for (const Counter& c : *counters) emitCounter(port, Side::kLocal, c, m, out);
    return true;
  }

  /// Lets one end's FEC counter series go (they are not emitted this run: gone, not unread).
  static void forgetFec(PortMemory& m, Side side) {
    unsigned& lanes = m.fec[static_cast<int>(side)].lanes;
    if (lanes == 0) return;  // none emitted
    lanes = 0;
    std::erase_if(m.series, [side](const auto& entry) { return entry.first.side == side && isFecFamily(entry.first.local); });
  }

  /// A PMA counter of either end: its own family where it has one (families::pma), else
  /// fabricmon_pma_stat_total{counter}; narrow ones also as saturated or not.
  void emitCounter(const UmadPort& port, Side side, const Counter& c, PortMemory& m, CollectOutput& out) {
    if (const auto* named = families::pma::namedCounter(c.name)) {
      out.add(series(m, *named->family, side, port), double(c.value) * named->scale);
    } else {
      out.add(series(m, families::pma::kPortCounter, side, port, c.name), double(c.value));
    }
    if (c.bits < 64) {
      const uint64_t max = (uint64_t{1} << c.bits) - 1;
      out.add(series(m, families::pma::kSaturated, side, port, c.name), c.value >= max ? 1.0 : 0.0);
    }
  }

  /// Width and speed of either end's port; the neighbour's state too (the local port's state is
  /// rdma_port's, or emitPortIdentity's).
  void emitPortInfo(const UmadPort& port, Side side, const mad::PortInfo& info, PortMemory& m, CollectOutput& out) {
    if (side == Side::kPeer) {
      out.add(series(m, families::port::kPortState, side, port), info.state);
      out.add(series(m, families::port::kPortPhysicalState, side, port), info.physState);
    }
    out.add(series(m, kWidthActive, side, port), info.widthActive);
    out.add(series(m, kWidthEnabled, side, port), info.widthEnabled);
    out.add(series(m, kSpeedActive, side, port), laneBytes(info.laneGbpsActive));
    out.add(series(m, kSpeedEnabled, side, port), laneBytes(info.laneGbpsEnabled));
  }

  /// No sysfs view of this port (libumad2sim, or a sysfs root that shows other devices): the
  /// port's own identity, state and rate from its PortInfo, so the rules can join and judge it.
  /// rdma_port emits these for every port sysfs shows, and only for those: the two never emit
  /// the same series (docs/metrics.md, "The far end of the cable").
  void emitPortIdentity(const UmadPort& port, const mad::PortInfo& local, PortMemory& m, CollectOutput& out) {
    const double gbps = local.widthActive * mad::kernelLaneGbps(local.laneGbpsActive);
    if (m.localInfo == nullptr || m.localInfoGbps != gbps) {
      m.localInfo = makeSeries(families::port::kPortInfo,
                               {{"device", port.ca},
                                {"port", std::to_string(port.port)},
                                {"interface", ""},
                                {"link_layer", "InfiniBand"},
                                {"rate", fmt::format("{:g} Gb/sec ({}X)", gbps, local.widthActive)}});
      m.localInfoGbps = gbps;
    }
    m.ownsLocalIdentity = true;
    out.add(m.localInfo, 1.0);
    out.add(series(m, families::port::kPortState, Side::kLocal, port), local.state);
    out.add(series(m, families::port::kPortPhysicalState, Side::kLocal, port), local.physState);
    out.add(series(m, families::port::kPortRate, Side::kLocal, port), laneBytes(gbps));
  }

  std::shared_ptr<MadSource> source_;
  NameFilter devices_;
  std::map<std::pair<std::string, unsigned>, PortMemory> memory_;
  std::set<std::string, std::less<>> sysfsShown_;  ///< devices sysfs has shown in this run
};

/// For each local InfiniBand port: the neighbour's identity (SMP NodeInfo/NodeDescription by
/// directed route), its port's state, width and speed (PortInfo), and its PMA counters by LID, as
/// fabricmon_peer_* series labelled with the local device and port; the local port's own width,
/// speed and PMA counters where sysfs has none. RoCE ports are skipped; no InfiniBand port = no
/// data. `devices.include` / `devices.exclude` select the local devices, as for every other
/// collector.
std::unique_ptr<Collector> makePeerPortCollector(const Sources& sources, const Config& config) {
  // Qualified: the public overload over a given source (peer_port_collector.hpp), not this one.
  return fabricmon::makePeerPortCollector(
      sources.mad, NameFilter(config.devices.include, config.devices.exclude, "devices"));
}

}  // namespace

std::unique_ptr<Collector> makePeerPortCollector(std::shared_ptr<MadSource> source, NameFilter devices) {
  return std::make_unique<PeerPortCollector>(std::move(source), std::move(devices));
}

// MADs to the neighbour: slow like pma_counters (docs/metrics.md, "The far end of the cable").
extern const CollectorEntry kPeerPortCollector{
    "peer_port", Cadence::kSlow, {}, &makePeerPortCollector, nullptr};

}  // namespace fabricmon
