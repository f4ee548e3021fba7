// dcb_config: PFC, trust, DSCP->priority, DCBX mode and PFC storm prevention of every watched
// netdev from the DcbSource (rtnetlink or YAML files), plus the QoS the operator intends (config
// `qos`), so the watchdog can compare the two.

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "collectors/per_interface.hpp"
#include "collectors/registry.hpp"
#include "model/families/dcb.hpp"

namespace fabricmon {

namespace {

using namespace families::dcb;

class DcbConfigCollector final : public Collector {
 public:
  DcbConfigCollector(std::shared_ptr<DcbSource> source, const QosConfig& qos)
      : source_(std::move(source)),
        intent_(makeSeries(kIntent, {{"roce_priority", std::to_string(qos.rocePriority)},
                                     {"roce_dscp", std::to_string(qos.roceDscp)},
                                     {"cnp_priority", std::to_string(qos.cnpPriority)},
                                     {"cnp_dscp", std::to_string(qos.cnpDscp)},
                                     {"dcqcn", qos.dcqcnEnabled ? "on" : "off"}})) {}

  std::span<const FamilyDef* const> families() const override { return families::dcb::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    out.add(intent_, 1);
    if (!source_) return CollectStatus::kOk;
    return interfaces_.poll(topology, out, [&](const std::string& ifname) { return source_->read(ifname); },
                            [&](const DcbInfo& info, IfSeries& s) { emit(info, s, out); }, forEachSeries);
  }

 private:
  struct IfSeries {
    std::string name;
    std::string errorKey;  // "<if>/dcb"
    std::array<SeriesPtr, 8> pfcEnabled, requests, indications;
    SeriesPtr trust, dcbx, storm;
    std::map<unsigned, SeriesPtr> dscp;
  };

  /// Every series an interface's state holds (reported unread when its read fails).
  static void forEachSeries(const IfSeries& s, const std::function<void(const SeriesPtr&)>& fn) {
    for (const auto* slots : {&s.pfcEnabled, &s.requests, &s.indications}) {
      for (const SeriesPtr& series : *slots) fn(series);
    }
    for (const SeriesPtr* series : {&s.trust, &s.dcbx, &s.storm}) fn(*series);
    for (const auto& [code, series] : s.dscp) fn(series);
  }

  static SeriesPtr& perPriority(std::array<SeriesPtr, 8>& slots, unsigned p,
                                const FamilyDef& family, const std::string& ifname) {
    if (!slots[p])
      slots[p] = makeSeries(family, {{"interface", ifname}, {"priority", std::to_string(p)}});
    return slots[p];
  }

  static SeriesPtr& perInterface(SeriesPtr& slot, const FamilyDef& family,
                                 const std::string& ifname) {
    if (!slot) slot = makeSeries(family, {{"interface", ifname}});
    return slot;
  }

  void emit(const DcbInfo& info, IfSeries& s, CollectOutput& out) {
    const std::string& ifname = s.name;
    for (unsigned p = 0; p < 8; ++p) {
      out.add(perPriority(s.pfcEnabled, p, kPfcEnabled, ifname), info.pfcEnabled[p] ? 1 : 0);
    }
    if (info.trust)
      out.add(perInterface(s.trust, kTrustDscp, ifname), *info.trust == "dscp" ? 1 : 0);

    // The DSCP map rarely changes: its series are rebuilt only when the set of DSCP values does.
    const bool sameCodes =
        std::equal(info.dscpToPriority.begin(), info.dscpToPriority.end(), s.dscp.begin(),
                   s.dscp.end(), [](const auto& a, const auto& b) { return a.first == b.first; });
    if (!sameCodes) {
      std::map<unsigned, SeriesPtr> dscp;
      for (const auto& entry : info.dscpToPriority) {
        const unsigned code = entry.first;
        SeriesPtr series;
        if (auto it = s.dscp.find(code); it != s.dscp.end()) series = it->second;
        if (!series)
          series =
              makeSeries(kDscpPriority, {{"interface", ifname}, {"dscp", std::to_string(code)}});
        dscp.emplace(code, std::move(series));
      }
      s.dscp = std::move(dscp);
    }
    auto series = s.dscp.begin();
    for (const auto& entry : info.dscpToPriority) out.add((series++)->second, entry.second);

    if (info.pfcRequests) {
      for (unsigned p = 0; p < 8; ++p) {
        out.add(perPriority(s.requests, p, kPfcRequests, ifname),
                static_cast<double>((*info.pfcRequests)[p]));
      }
    }
    if (info.pfcIndications) {
      for (unsigned p = 0; p < 8; ++p) {
        out.add(perPriority(s.indications, p, kPfcIndications, ifname),
                static_cast<double>((*info.pfcIndications)[p]));
      }
    }
    if (info.dcbxMode) out.add(perInterface(s.dcbx, kDcbxMode, ifname), *info.dcbxMode);
    if (info.stormPreventionTimeoutMs) {
      out.add(perInterface(s.storm, kStormTimeout, ifname),
              *info.stormPreventionTimeoutMs / 1000.0);
    }
  }

  std::shared_ptr<DcbSource> source_;
  SeriesPtr intent_;
  PerInterface<IfSeries> interfaces_{"dcb"};  // label sets built once per series, not per poll
};

/// Emits fabricmon_pfc_enabled, fabricmon_dcb_trust_dscp, fabricmon_dcb_dscp_priority,
/// fabricmon_dcb_pfc_requests_total / _indications_total, fabricmon_dcb_dcbx_mode,
/// fabricmon_pfc_storm_prevention_timeout_seconds per interface (only what the source knows) and,
/// on every run, fabricmon_qos_intent_info from `config.qos`. An interface without DCB support has
/// no series; a source error is one skipped interface (CollectOutput::fileError), its series unread.
std::unique_ptr<Collector> makeDcbConfigCollector(const Sources& sources, const Config& config) {
  return std::make_unique<DcbConfigCollector>(sources.dcb, config.qos);
}

}  // namespace

// Configuration, which rarely changes: poll.slow_interval.
extern const CollectorEntry kDcbConfigCollector{
    "dcb_config", Cadence::kSlow, {}, &makeDcbConfigCollector, nullptr};

}  // namespace fabricmon
