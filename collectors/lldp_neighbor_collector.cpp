// The lldp_neighbors collector: the switch port at the other end of each watched Ethernet
// interface, as lldpd heard it (fabricmon_port_neighbor_info, source="lldp"; docs/metrics.md).

#include "collectors/labelled_series.hpp"
#include "collectors/registry.hpp"
#include "model/families/neighbor.hpp"

namespace fabricmon {
namespace {

using families::neighbor::kPortNeighborInfo;

class LldpNeighborCollector final : public Collector {
 public:
  explicit LldpNeighborCollector(std::shared_ptr<LldpSource> source) : source_(std::move(source)) {}

  std::span<const FamilyDef* const> families() const override { return families::neighbor::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (topology.netdevs.empty()) return CollectStatus::kNoData;
    auto neighbours = source_->neighbors();
    if (!neighbours) {
      if (neighbours.error().errnum == ENOENT) {
        out.fileOk("lldpd");
        series_.endRun();
        return CollectStatus::kNoData;  // no lldpd on this node: nothing to say, nothing wrong
      }
      out.fileError("lldpd", neighbours.error());
      return CollectStatus::kFailed;  // the last neighbours stay until poll.stale_after
    }
    out.fileOk("lldpd");
    // Only the interfaces fabricmon watches (behind RDMA ports, bond slaves of a RoCE LAG,
    // netdev.include): lldpd also hears the neighbours of NICs that are none of our business.
    for (const LldpNeighbor& n : *neighbours) {
      const Netdev* netdev = topology.netdev(n.interface);
      if (netdev == nullptr) continue;
      out.add(series_.get(kPortNeighborInfo,
                          {{"device", netdev->rdmaDevice},
                           {"port", netdev->rdmaDevice.empty() ? "" : std::to_string(netdev->rdmaPort)},
                           {"interface", n.interface},
                           {"chassis_name", n.chassisName},
                           {"chassis_id", n.chassisId},
                           {"port_id", n.portId},
                           {"port_description", n.portDescription},
                           {"source", "lldp"}}),
              1.0);
    }
    series_.endRun();  // a neighbour that changed (re-cabled, renamed) or went: its old series leaves
    return CollectStatus::kOk;
  }

 private:
  std::shared_ptr<LldpSource> source_;
  LabelledSeries series_;
};

std::unique_ptr<Collector> makeLldpNeighborCollector(const Sources& sources, const Config& /*config*/) {
  return std::make_unique<LldpNeighborCollector>(sources.lldp);
}

}  // namespace

// The switch port beyond each Ethernet cable, from lldpd (docs/architecture.md, "Where LLDP
// neighbours come from"): a switch announces itself every 30 s by default.
extern const CollectorEntry kLldpNeighborCollector{
    "lldp_neighbors", Cadence::kSlow, {}, &makeLldpNeighborCollector, nullptr};

}  // namespace fabricmon
