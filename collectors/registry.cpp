#include "collectors/registry.hpp"

#include "collectors/dcb_config_collector.hpp"
#include "collectors/dcqcn_config_collector.hpp"
#include "collectors/ethtool_pfc_collector.hpp"
#include "collectors/fec_collector.hpp"
#include "collectors/hw_counter_collector.hpp"
#include "collectors/lldp_neighbor_collector.hpp"
#include "collectors/netdev_link_collector.hpp"
#include "collectors/peer_port_collector.hpp"
#include "collectors/pma_counter_collector.hpp"
#include "collectors/port_topology_collector.hpp"
#include "collectors/rdma_port_collector.hpp"

namespace fabricmon {

Sources makeSources(const SourcesConfig& config) {
  Sources s;
  s.sysfs = std::make_shared<const SysfsRoot>(config.sysfsRoot);
  s.ethtool = config.ethtoolDir ? makeEthtoolFileSource(*config.ethtoolDir) : makeEthtoolIoctlSource();
  s.dcb = config.dcbDir ? makeDcbFileSource(*config.dcbDir) : makeDcbNetlinkSource();
  s.fec = config.fecDir ? makeFecFileSource(*config.fecDir) : makeFecNetlinkSource();
  s.mad = makeUmadSource(static_cast<unsigned>(config.madTimeout.count()), config.madRetries);
  s.lldp = config.lldpFile ? makeLldpFileSource(*config.lldpFile)
                           : makeLldpcliSource(config.lldpcli, config.lldpSocket, config.lldpTimeout);
  return s;
}

namespace {

// PMA counters cost a MAD per file on real hardware (each read is a PerfMgt MAD:
// drivers/infiniband/core/sysfs.c, get_perf_mad()) and configuration rarely changes: both run at
// poll.slow_interval. Everything that shows a storm runs fast.
const CollectorEntry kRegistry[] = {
    {"rdma_port", Cadence::kFast, &makeRdmaPortCollector},
    {"pma_counters", Cadence::kSlow, &makePmaCounterCollector},
    {"hw_counters", Cadence::kFast, &makeHwCounterCollector},
    {"netdev_link", Cadence::kFast, &makeNetdevLinkCollector},
    {"ethtool_pfc", Cadence::kFast, &makeEthtoolPfcCollector},
    // FEC blocks, mode, lanes and speed (ethtool netlink): fast, like the corrected bits beside them.
    {"fec", Cadence::kFast, &makeFecCollector},
    {"dcqcn_config", Cadence::kSlow, &makeDcqcnConfigCollector},
    {"dcb_config", Cadence::kSlow, &makeDcbConfigCollector},
    // MADs to the neighbour: slow like pma_counters (docs/metrics.md, "The far end of the cable").
    {"peer_port", Cadence::kSlow, &makePeerPortCollector},
    // Where each port sits (PCI, NUMA, GPUs, role, rail): changes only with the hardware.
    {"port_topology", Cadence::kSlow, &makePortTopologyCollector},
    // The switch port beyond each Ethernet cable, from lldpd (docs/architecture.md, "Where LLDP
    // neighbours come from"): a switch announces itself every 30 s by default.
    {"lldp_neighbors", Cadence::kSlow, &makeLldpNeighborCollector},
};

}  // namespace

std::span<const CollectorEntry> collectorRegistry() { return kRegistry; }

}  // namespace fabricmon
