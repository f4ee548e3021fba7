#include "collectors/dcb_config_collector.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

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
    followTopology(topology);
    size_t failures = 0;
    for (IfSeries& state : interfaces_) {
      auto info = source_->read(state.name);
      if (!info) {
        ++failures;
        out.fileError(state.errorKey, info.error());
      } else {
        out.fileOk(state.errorKey);
        if (info->has_value()) emit(**info, state, out);
      }
    }
    // Every interface failing (netlink unusable, dcb_dir unreadable) is a failed run, not bad
    // files.
    return !topology.netdevs.empty() && failures == topology.netdevs.size() ? CollectStatus::kFailed
                                                                            : CollectStatus::kOk;
  }

 private:
  struct IfSeries {
    std::string name;
    std::string errorKey;  // "<if>/dcb"
    std::array<SeriesPtr, 8> pfcEnabled, requests, indications;
    SeriesPtr trust, dcbx, storm;
    std::map<unsigned, SeriesPtr> dscp;
  };

  // One state per netdev in topology order, kept while the netdev stays; one that left the
  // topology frees its series.
  void followTopology(const Topology& topology) {
    const auto& nds = topology.netdevs;
    if (nds.size() == interfaces_.size() &&
        std::equal(nds.begin(), nds.end(), interfaces_.begin(),
                   [](const Netdev& n, const IfSeries& s) { return n.name == s.name; })) {
      return;
    }
    std::vector<IfSeries> next;
    next.reserve(nds.size());
    for (const Netdev& nd : nds) {
      auto it = std::find_if(interfaces_.begin(), interfaces_.end(),
                             [&](const IfSeries& s) { return s.name == nd.name; });
      if (it != interfaces_.end()) {
        next.push_back(std::move(*it));
      } else {
        next.emplace_back();
        next.back().name = nd.name;
        next.back().errorKey = nd.name + "/dcb";
      }
    }
    interfaces_ = std::move(next);
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
  std::vector<IfSeries> interfaces_;  // label sets built once per series, not per poll
};

}  // namespace

std::unique_ptr<Collector> makeDcbConfigCollector(const Sources& sources, const Config& config) {
  return std::make_unique<DcbConfigCollector>(sources.dcb, config.qos);
}

}  // namespace fabricmon
