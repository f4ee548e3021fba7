#include "collectors/registry.hpp"

#include "collectors/dcb_config_collector.hpp"
#include "collectors/dcqcn_config_collector.hpp"
#include "collectors/ethtool_pfc_collector.hpp"
#include "collectors/fec_collector.hpp"
#include "collectors/hw_counter_collector.hpp"
#include "collectors/lldp_neighbor_collector.hpp"
#include "collectors/netdev_link_collector.hpp"
#include "collectors/pcie_aer_collector.hpp"
#include "collectors/nic_driver_log_collector.hpp"
#include "collectors/nic_temperature_collector.hpp"
#include "collectors/peer_port_collector.hpp"
#include "collectors/pma_counter_collector.hpp"
#include "collectors/port_topology_collector.hpp"
#include "collectors/rdma_port_collector.hpp"
#include "collectors/slurm_jobs_collector.hpp"
#include "collectors/transceiver_collector.hpp"

namespace fabricmon {

// Rows defined in their collector's own .cpp (docs/architecture.md, "Adding a collector").
extern const CollectorEntry kDevlinkHealthCollector;

Sources makeSources(const SourcesConfig& config, const Sources* previous) {
  Sources s;
  s.sysfs = std::make_shared<const SysfsRoot>(config.sysfsRoot);
  s.ethtool = config.ethtoolDir ? makeEthtoolFileSource(*config.ethtoolDir) : makeEthtoolIoctlSource();
  s.dcb = config.dcbDir ? makeDcbFileSource(*config.dcbDir) : makeDcbNetlinkSource();
  s.fec = config.fecDir ? makeFecFileSource(*config.fecDir) : makeFecNetlinkSource();
  s.mad = makeUmadSource(static_cast<unsigned>(config.madTimeout.count()), config.madRetries);
  s.moduleEeprom = config.moduleEepromDir ? makeModuleEepromFileSource(*config.moduleEepromDir)
                                          : makeModuleEepromKernelSource();
  s.lldp = config.lldpFile ? makeLldpFileSource(*config.lldpFile)
                           : makeLldpcliSource(config.lldpcli, config.lldpSocket, config.lldpTimeout);
  s.nicDriverLog = makeNicDriverLogState(config, previous != nullptr ? previous->nicDriverLog : nullptr);
  return s;
}

namespace {

// PMA counters cost a MAD per file on real hardware (each read is a PerfMgt MAD:
// drivers/infiniband/core/sysfs.c, get_perf_mad()) and configuration rarely changes: both run at
// poll.slow_interval. Everything that shows a storm runs fast.
const CollectorEntry kRegistry[] = {
    {"rdma_port", Cadence::kFast, {}, &makeRdmaPortCollector},
    {"pma_counters", Cadence::kSlow, {}, &makePmaCounterCollector},
    {"hw_counters", Cadence::kFast, {}, &makeHwCounterCollector},
    {"netdev_link", Cadence::kFast, {}, &makeNetdevLinkCollector},
    {"ethtool_pfc", Cadence::kFast, {}, &makeEthtoolPfcCollector},
    // FEC blocks, mode, lanes and speed (ethtool netlink): fast, like the corrected bits beside them.
    {"fec", Cadence::kFast, {}, &makeFecCollector},
    {"dcqcn_config", Cadence::kSlow, {}, &makeDcqcnConfigCollector},
    {"dcb_config", Cadence::kSlow, {}, &makeDcbConfigCollector},
    // MADs to the neighbour: slow like pma_counters (docs/metrics.md, "The far end of the cable").
    {"peer_port", Cadence::kSlow, {}, &makePeerPortCollector},
    // Where each port sits (PCI, NUMA, GPUs, role, rail): changes only with the hardware.
    {"port_topology", Cadence::kSlow, {}, &makePortTopologyCollector},
    // The switch port beyond each Ethernet cable, from lldpd (docs/architecture.md, "Where LLDP
    // neighbours come from"): a switch announces itself every 30 s by default.
    {"lldp_neighbors", Cadence::kSlow, {}, &makeLldpNeighborCollector},
    // PCIe AER counters of each NIC's function and the ports above it (docs/metrics.md, "PCIe AER
    // errors"): about 45 series per function, changed only by the kernel's AER handler; a few
    // seconds more to see an error cost nothing beside the minutes its rule judges over.
    {"pcie_aer", Cadence::kSlow, {}, &makePcieAerCollector},
    // The scheduler's jobs on this node, found locally (spool sockets, job cgroups, GPU job map).
    {"slurm_jobs", Cadence::kSlow, {}, &makeSlurmJobsCollector},
    // The kernel log, matched against the NIC driver message table: fast, so a fatal record is a
    // finding within one poll (docs/metrics.md, "NIC and driver health").
    {"nic_driver_log", Cadence::kFast, {}, &makeNicDriverLogCollector},
    // The NIC's own temperature sensors (hwmon): each read is a firmware command on mlx5, and a
    // NIC heats up over minutes (docs/metrics.md, "NIC temperature").
    {"nic_temperature", Cadence::kSlow, {}, &makeNicTemperatureCollector},
    // Module EEPROMs are read over I2C through the NIC's firmware (milliseconds per page; some
    // NICs stall or log errors when polled often), and optics drift over hours: a minute of its
    // own (docs/metrics.md, "Transceivers").
    {"transceiver", Cadence::kSlow, std::chrono::seconds(60), &makeTransceiverCollector},
};

}  // namespace

std::span<const CollectorEntry> collectorRegistry() {
  // Built at first use, so a row defined in another file is copied after static initialization.
  static const std::vector<CollectorEntry> kAll = [] {
    std::vector<CollectorEntry> all(std::begin(kRegistry), std::end(kRegistry));
    for (const CollectorEntry& row : {
             kDevlinkHealthCollector,
         }) {
      all.push_back(row);
    }
    return all;
  }();
  return kAll;
}

}  // namespace fabricmon
