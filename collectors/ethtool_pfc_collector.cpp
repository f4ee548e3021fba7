#include "collectors/ethtool_pfc_collector.hpp"

#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <functional>
#include <regex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "collectors/registry.hpp"
#include "collectors/sources/ethtool_source.hpp"
#include "config/config.hpp"

namespace fabricmon {

namespace {

using enum MetricType;

// ---- families (names: CONTRACT §4 and notes/metric_names.md, "ethtool group") ----

const FamilyDef kPfcPauseRx{"fabricmon_pfc_pause_frames_received_total",
                            "PFC pause frames received for a priority (ethtool rx_prio<N>_pause).",
                            kCounter};
const FamilyDef kPfcPauseTx{"fabricmon_pfc_pause_frames_transmitted_total",
                            "PFC pause frames sent for a priority (ethtool tx_prio<N>_pause).",
                            kCounter};
const FamilyDef kPfcPauseSeconds{"fabricmon_pfc_pause_seconds_total",
                                 "Time a priority was paused by PFC, received (rx) or sent (tx) "
                                 "(ethtool rx|tx_prio<N>_pause_duration, us).",
                                 kCounter};
const FamilyDef kPfcPauseTransitions{"fabricmon_pfc_pause_transitions_total",
                                     "Transitions of a priority between paused and not paused by "
                                     "received PFC (ethtool rx_prio<N>_pause_transition).",
                                     kCounter};
const FamilyDef kGlobalPauseRx{
    "fabricmon_global_pause_frames_received_total",
    "IEEE 802.3x global pause frames received (ethtool rx_global_pause).", kCounter};
const FamilyDef kGlobalPauseTx{"fabricmon_global_pause_frames_transmitted_total",
                               "IEEE 802.3x global pause frames sent (ethtool tx_global_pause).",
                               kCounter};
const FamilyDef kGlobalPauseSeconds{"fabricmon_global_pause_seconds_total",
                                    "Time the port was paused by 802.3x global pause, received "
                                    "(rx) or sent (tx) (ethtool rx|tx_global_pause_duration, us).",
                                    kCounter};
const FamilyDef kGlobalPauseTransitions{"fabricmon_global_pause_transitions_total",
                                        "Transitions between paused and not paused by received "
                                        "802.3x pause (ethtool rx_global_pause_transition).",
                                        kCounter};
const FamilyDef kStormWarning{"fabricmon_pause_storm_warning_events_total",
                              "Times the NIC had been sending pause for most of its "
                              "storm-prevention timeout (ethtool tx_pause_storm_warning_events).",
                              kCounter};
const FamilyDef kStormError{"fabricmon_pause_storm_error_events_total",
                            "Times the NIC stopped sending pause because its storm-prevention "
                            "timeout expired (ethtool tx_pause_storm_error_events).",
                            kCounter};
const FamilyDef kPrioRxBytes{"fabricmon_priority_receive_bytes_total",
                             "Bytes received on a priority (ethtool rx_prio<N>_bytes).", kCounter};
const FamilyDef kPrioTxBytes{"fabricmon_priority_transmit_bytes_total",
                             "Bytes sent on a priority (ethtool tx_prio<N>_bytes).", kCounter};
const FamilyDef kPrioRxPackets{"fabricmon_priority_receive_packets_total",
                               "Packets received on a priority (ethtool rx_prio<N>_packets).",
                               kCounter};
const FamilyDef kPrioTxPackets{"fabricmon_priority_transmit_packets_total",
                               "Packets sent on a priority (ethtool tx_prio<N>_packets).",
                               kCounter};
const FamilyDef kPrioDiscards{
    "fabricmon_priority_discards_total",
    "Received packets of a priority dropped: kind discards (rx_prio<N>_discards), buffer "
    "(_buf_discard), congestion (_cong_discard).",
    kCounter};
const FamilyDef kPrioEcnMarked{
    "fabricmon_priority_ecn_marked_packets_total",
    "Received packets of a priority carrying an ECN congestion mark (ethtool rx_prio<N>_marked).",
    kCounter};
const FamilyDef kPhyLinkDown{"fabricmon_phy_link_down_events_total",
                             "Times the physical link went down (ethtool link_down_events_phy).",
                             kCounter};
const FamilyDef kPhySymbol{"fabricmon_phy_symbol_errors_total",
                           "Symbol errors seen by the PHY (ethtool rx_symbol_err_phy).", kCounter};
const FamilyDef kPhyCrc{"fabricmon_phy_crc_errors_total",
                        "Frames received with a bad CRC (ethtool rx_crc_errors_phy).", kCounter};
const FamilyDef kPhyPcsSymbol{
    "fabricmon_phy_pcs_symbol_errors_total",
    "Symbol errors after FEC at the PCS layer (ethtool rx_pcs_symbol_err_phy).", kCounter};
const FamilyDef kPhyCorrectedBits{
    "fabricmon_phy_corrected_bit_errors_total",
    "Bit errors corrected by FEC, the pre-FEC error count (ethtool rx_corrected_bits_phy).",
    kCounter};
const FamilyDef kPhyReceivedBytes{
    "fabricmon_phy_received_bytes_total",
    "Data received by the PHY in bytes (ethtool rx_bits_phy / 8); x8 gives the bit error rate's "
    "denominator.",
    kCounter};
const FamilyDef kPhyRxDiscards{
    "fabricmon_phy_receive_discards_total",
    "Received packets the port dropped, e.g. for lack of buffer (ethtool rx_discards_phy).",
    kCounter};
const FamilyDef kPhyTxDiscards{"fabricmon_phy_transmit_discards_total",
                               "Packets the port dropped on transmit (ethtool tx_discards_phy).",
                               kCounter};
const FamilyDef kRxOutOfBuffer{
    "fabricmon_receive_out_of_buffer_total",
    "Packets dropped because no receive buffer was posted on the ring (ethtool rx_out_of_buffer).",
    kCounter};
const FamilyDef kRxBufferPassedThreshold{
    "fabricmon_receive_buffer_passed_threshold_total",
    "Times the port receive buffer filled past its threshold (ethtool rx_buffer_passed_thres_phy).",
    kCounter};
const FamilyDef kRdmaVportBytes{
    "fabricmon_rdma_vport_bytes_total",
    "RDMA unicast bytes of the vport, rx or tx (ethtool rx|tx_vport_rdma_unicast_bytes).",
    kCounter};
const FamilyDef kRdmaVportPackets{
    "fabricmon_rdma_vport_packets_total",
    "RDMA unicast packets of the vport, rx or tx (ethtool rx|tx_vport_rdma_unicast_packets).",
    kCounter};
const FamilyDef kPciStalled{
    "fabricmon_pci_outbound_stalled_ratio",
    "Fraction of the last second the NIC's outbound PCI reads (rd) or writes (wr) were stalled "
    "(ethtool outbound_pci_stalled_rd|wr, percent / 100).",
    kGauge};
const FamilyDef kEthtoolStat{"fabricmon_ethtool_stat_total",
                             "Any other ethtool statistic matched by ethtool.stats_include, raw "
                             "value as the driver reports it.",
                             kCounter};

constexpr std::array kFamilies = {
    &kPfcPauseRx,
    &kPfcPauseTx,
    &kPfcPauseSeconds,
    &kPfcPauseTransitions,
    &kGlobalPauseRx,
    &kGlobalPauseTx,
    &kGlobalPauseSeconds,
    &kGlobalPauseTransitions,
    &kStormWarning,
    &kStormError,
    &kPrioRxBytes,
    &kPrioTxBytes,
    &kPrioRxPackets,
    &kPrioTxPackets,
    &kPrioDiscards,
    &kPrioEcnMarked,
    &kPhyLinkDown,
    &kPhySymbol,
    &kPhyCrc,
    &kPhyPcsSymbol,
    &kPhyCorrectedBits,
    &kPhyReceivedBytes,
    &kPhyRxDiscards,
    &kPhyTxDiscards,
    &kRxOutOfBuffer,
    &kRxBufferPassedThreshold,
    &kRdmaVportBytes,
    &kRdmaVportPackets,
    &kPciStalled,
    &kEthtoolStat,
};

// ---- the name table (mlx5 en_stats.c; reference/COUNTERS.md) ----

constexpr double kMicro = 1e-6;    // pause durations are microseconds
constexpr double kBitsToBytes = 1.0 / 8;  // exported in base units (CONTRACT §4)
constexpr double kPercent = 0.01;  // outbound_pci_stalled_* are percent of the last second

struct Rule {
  std::string_view stat;  // exact name, or the suffix after rx_prio<N>_ / tx_prio<N>_
  const FamilyDef* family;
  std::string_view label;  // one extra label ("direction", "kind"), or empty
  std::string_view value;
  double scale;
};

const Rule kExact[] = {
    {"rx_global_pause", &kGlobalPauseRx, {}, {}, 1},
    {"tx_global_pause", &kGlobalPauseTx, {}, {}, 1},
    {"rx_global_pause_duration", &kGlobalPauseSeconds, "direction", "rx", kMicro},
    {"tx_global_pause_duration", &kGlobalPauseSeconds, "direction", "tx", kMicro},
    {"rx_global_pause_transition", &kGlobalPauseTransitions, {}, {}, 1},
    {"tx_pause_storm_warning_events", &kStormWarning, {}, {}, 1},
    {"tx_pause_storm_error_events", &kStormError, {}, {}, 1},
    {"link_down_events_phy", &kPhyLinkDown, {}, {}, 1},
    {"rx_symbol_err_phy", &kPhySymbol, {}, {}, 1},
    {"rx_crc_errors_phy", &kPhyCrc, {}, {}, 1},
    {"rx_pcs_symbol_err_phy", &kPhyPcsSymbol, {}, {}, 1},
    {"rx_corrected_bits_phy", &kPhyCorrectedBits, {}, {}, 1},
    {"rx_bits_phy", &kPhyReceivedBytes, {}, {}, kBitsToBytes},
    {"rx_discards_phy", &kPhyRxDiscards, {}, {}, 1},
    {"tx_discards_phy", &kPhyTxDiscards, {}, {}, 1},
    {"rx_out_of_buffer", &kRxOutOfBuffer, {}, {}, 1},
    {"rx_buffer_passed_thres_phy", &kRxBufferPassedThreshold, {}, {}, 1},
    {"rx_vport_rdma_unicast_bytes", &kRdmaVportBytes, "direction", "rx", 1},
    {"tx_vport_rdma_unicast_bytes", &kRdmaVportBytes, "direction", "tx", 1},
    {"rx_vport_rdma_unicast_packets", &kRdmaVportPackets, "direction", "rx", 1},
    {"tx_vport_rdma_unicast_packets", &kRdmaVportPackets, "direction", "tx", 1},
    {"outbound_pci_stalled_rd", &kPciStalled, "direction", "rd", kPercent},
    {"outbound_pci_stalled_wr", &kPciStalled, "direction", "wr", kPercent},
};

const Rule kRxPrio[] = {
    {"pause", &kPfcPauseRx, {}, {}, 1},
    {"pause_duration", &kPfcPauseSeconds, "direction", "rx", kMicro},
    {"pause_transition", &kPfcPauseTransitions, {}, {}, 1},
    {"bytes", &kPrioRxBytes, {}, {}, 1},
    {"packets", &kPrioRxPackets, {}, {}, 1},
    {"discards", &kPrioDiscards, "kind", "discards", 1},
    {"buf_discard", &kPrioDiscards, "kind", "buffer", 1},
    {"cong_discard", &kPrioDiscards, "kind", "congestion", 1},
    {"marked", &kPrioEcnMarked, {}, {}, 1},
};

const Rule kTxPrio[] = {
    {"pause", &kPfcPauseTx, {}, {}, 1},
    {"pause_duration", &kPfcPauseSeconds, "direction", "tx", kMicro},
    {"bytes", &kPrioTxBytes, {}, {}, 1},
    {"packets", &kPrioTxPackets, {}, {}, 1},
};

template <size_t N>
const Rule* find(const Rule (&rules)[N], std::string_view stat) {
  for (const Rule& r : rules) {
    if (r.stat == stat) return &r;
  }
  return nullptr;
}

EthtoolStatMapping fromRule(const Rule& r, std::string_view priority) {
  EthtoolStatMapping m{r.family, {}, r.scale};
  if (!priority.empty()) m.labels.emplace_back("priority", std::string(priority));
  if (!r.label.empty()) m.labels.emplace_back(std::string(r.label), std::string(r.value));
  return m;
}

// ---- the collector ----

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

bool isNoData(int errnum) { return errnum == ENOENT || errnum == EOPNOTSUPP; }

class EthtoolPfcCollector final : public Collector {
 public:
  EthtoolPfcCollector(std::shared_ptr<EthtoolSource> source, std::vector<std::regex> include)
      : source_(std::move(source)), include_(std::move(include)) {}

  std::string_view name() const override { return "ethtool_pfc"; }
  std::span<const FamilyDef* const> families() const override { return kFamilies; }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (!source_ || topology.netdevs.empty()) return CollectStatus::kNoData;
    ++poll_;
    size_t ok = 0, failed = 0;
    for (const Netdev& netdev : topology.netdevs) {
      auto [it, inserted] = interfaces_.try_emplace(netdev.name);
      Interface& iface = it->second;
      if (inserted) {
        iface.errorKey = netdev.name + "/ethtool";
        iface.linesKey = netdev.name + "/ethtool (lines)";
      }
      iface.lastSeen = poll_;

      if (auto st = source_->readInto(netdev.name, iface.stats); !st) {
        // Whatever the source left in `stats` is not the list `exports` was built for.
        iface.synced = false;
        if (isNoData(st.error().errnum)) {
          if (!iface.noData)
            spdlog::debug("ethtool_pfc: {}: no ethtool stats ({})", netdev.name,
                          st.error().message);
          iface.noData = true;
          out.fileOk(iface.errorKey);
        } else {
          ++failed;
          out.fileError(iface.errorKey, st.error());
        }
        continue;
      }
      iface.noData = false;
      ++ok;
      out.fileOk(iface.errorKey);
      if (!iface.stats.issues.empty()) {
        std::string msg = iface.stats.issues.front();
        if (iface.stats.issues.size() > 1)
          msg += " (and " + std::to_string(iface.stats.issues.size() - 1) + " more lines)";
        out.fileError(iface.linesKey,
                      Error{"ethtool stats of " + netdev.name + ": " + msg, EINVAL});
      } else {
        out.fileOk(iface.linesKey);
      }
      emit(netdev.name, iface, out);
    }
    if (interfaces_.size() != topology.netdevs.size()) {
      std::erase_if(interfaces_, [&](const auto& kv) { return kv.second.lastSeen != poll_; });
    }
    if (ok > 0) return CollectStatus::kOk;
    return failed > 0 ? CollectStatus::kFailed : CollectStatus::kNoData;
  }

 private:
  /// Where a stat goes: null series for a stat we do not export.
  struct Target {
    SeriesPtr series;
    double scale = 1;
  };
  /// An exported stat: its position in the interface's stats list and its series.
  struct Export {
    size_t index = 0;
    Target target;
  };
  struct Interface {
    EthtoolStats stats;              // refilled in place by the source every poll
    std::vector<std::string> names;  // the name list `exports` was built for, by position
    std::vector<Export> exports;     // by increasing index: samples keep the NIC's order
    bool synced = false;             // `names` is what the last good read left in `stats`
    std::string errorKey, linesKey;
    uint64_t lastSeen = 0;
    bool noData = false;
  };

  // A CX-7 reports ~665 stats of which ~30 are exported; the list of 665 names only changes when
  // PFC is reconfigured or the driver is reloaded. So positions are mapped to series once per
  // change of the list, and a poll touches only the exported positions.
  void emit(const std::string& ifname, Interface& iface, CollectOutput& out) {
    // The file source vouches for an unchanged list; anything else is compared name by name.
    if (!(iface.synced && iface.stats.namesUnchanged) && !sameNames(iface)) remap(ifname, iface);
    iface.synced = true;
    const auto& stats = iface.stats.stats;
    for (const Export& e : iface.exports) {
      out.add(e.target.series, static_cast<double>(stats[e.index].second) * e.target.scale);
    }
  }

  static bool sameNames(const Interface& iface) {
    const auto& stats = iface.stats.stats;
    if (stats.size() != iface.names.size()) return false;
    for (size_t i = 0; i < stats.size(); ++i) {
      if (stats[i].first != iface.names[i]) return false;
    }
    return true;
  }

  // Rebuilds names/exports for the current list. Names seen before keep their series (and names
  // known to be unexported skip the table and the include regexes); names that vanished are
  // forgotten. A driver repeating a name: the first one counts.
  void remap(const std::string& ifname, Interface& iface) {
    StringMap<Target> known;
    known.reserve(iface.names.size());
    auto exp = iface.exports.begin();
    for (size_t i = 0; i < iface.names.size(); ++i) {
      Target t;
      if (exp != iface.exports.end() && exp->index == i) t = (exp++)->target;
      known.try_emplace(std::move(iface.names[i]), std::move(t));
    }

    const auto& stats = iface.stats.stats;
    std::vector<std::string> names;
    names.reserve(stats.size());
    std::vector<Export> exports;
    std::unordered_set<std::string_view> seen;
    seen.reserve(stats.size());
    for (size_t i = 0; i < stats.size(); ++i) {
      const std::string& stat = stats[i].first;
      names.push_back(stat);
      if (!seen.insert(stat).second) continue;
      auto it = known.find(std::string_view(stat));
      Target t = it != known.end() ? std::move(it->second) : makeTarget(ifname, stat);
      if (t.series) exports.push_back(Export{i, std::move(t)});
    }
    iface.names = std::move(names);
    iface.exports = std::move(exports);
  }

  Target makeTarget(const std::string& ifname, const std::string& stat) const {
    EthtoolStatMapping m = mapEthtoolStat(stat);
    if (m.family != nullptr) {
      Labels labels{{"interface", ifname}};
      labels.insert(labels.end(), m.labels.begin(), m.labels.end());
      return Target{makeSeries(*m.family, std::move(labels)), m.scale};
    }
    for (const auto& re : include_) {
      if (std::regex_match(stat, re)) {
        return Target{makeSeries(kEthtoolStat, {{"interface", ifname}, {"stat", stat}}), 1};
      }
    }
    return Target{};
  }

  std::shared_ptr<EthtoolSource> source_;
  std::vector<std::regex> include_;
  StringMap<Interface> interfaces_;
  uint64_t poll_ = 0;
};

}  // namespace

EthtoolStatMapping mapEthtoolStat(std::string_view name) {
  if (const Rule* r = find(kExact, name)) return fromRule(*r, {});
  // rx_prio<N>_<suffix> / tx_prio<N>_<suffix>, N a single digit 0-7 (IEEE 802.1Q priorities).
  constexpr std::string_view kRx = "rx_prio", kTx = "tx_prio";
  const bool rx = name.starts_with(kRx);
  if (!rx && !name.starts_with(kTx)) return {};
  const std::string_view rest = name.substr(kRx.size());
  if (rest.size() < 3 || rest[0] < '0' || rest[0] > '7' || rest[1] != '_') return {};
  const std::string_view suffix = rest.substr(2);
  const Rule* r = rx ? find(kRxPrio, suffix) : find(kTxPrio, suffix);
  if (r == nullptr) return {};
  return fromRule(*r, rest.substr(0, 1));
}

std::unique_ptr<Collector> makeEthtoolPfcCollector(const Sources& sources, const Config& config) {
  std::vector<std::regex> include;
  for (const std::string& pattern : config.ethtool.statsInclude) {
    try {
      include.emplace_back(pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      // Config validation should have caught it; a bad pattern must not take the collector down.
      spdlog::error("ethtool_pfc: ignoring ethtool.stats_include pattern \"{}\": {}", pattern,
                    e.what());
    }
  }
  return std::make_unique<EthtoolPfcCollector>(sources.ethtool, std::move(include));
}

}  // namespace fabricmon
