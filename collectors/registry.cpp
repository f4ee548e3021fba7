#include "collectors/registry.hpp"

#include <stdexcept>
#include <string>

#include "collectors/nic_driver_log_collector.hpp"

namespace fabricmon {

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

// Every collector, one line each: its entry is defined in its own .cpp, beside its factory, with
// the reason for its cadence (what costs a MAD or firmware command per read, or changes only with
// configuration or hardware, runs at poll.slow_interval; everything that shows a storm runs fast).
// The order is observable (the daemon starts the collectors in it): a new one goes at the end.
#define FABRICMON_COLLECTORS(X) \
  X(kRdmaPortCollector)         \
  X(kPmaCounterCollector)       \
  X(kHwCounterCollector)        \
  X(kNetdevLinkCollector)       \
  X(kEthtoolPfcCollector)       \
  X(kFecCollector)              \
  X(kDcqcnConfigCollector)      \
  X(kDcbConfigCollector)        \
  X(kPeerPortCollector)         \
  X(kPortTopologyCollector)     \
  X(kLldpNeighborCollector)     \
  X(kPcieAerCollector)          \
  X(kSlurmJobsCollector)        \
  X(kNicDriverLogCollector)     \
  X(kNicTemperatureCollector)   \
  X(kTransceiverCollector)      \
  X(kDevlinkHealthCollector)    \
  /* a new collector: its line above this one */

#define FABRICMON_DECLARE_ENTRY(entry) extern const CollectorEntry entry;
FABRICMON_COLLECTORS(FABRICMON_DECLARE_ENTRY)
#undef FABRICMON_DECLARE_ENTRY

namespace {

// Addresses of the entries, not copies: an array of addresses is constant-initialised, so it is
// complete before any dynamic initialiser of another file could read it, whatever the link order.
// Naming every entry here also keeps each collector's object file in the link (a static library
// member nothing references would be dropped).
#define FABRICMON_ENTRY_ADDRESS(entry) &entry,
constexpr const CollectorEntry* kRegistry[] = {FABRICMON_COLLECTORS(FABRICMON_ENTRY_ADDRESS)};
#undef FABRICMON_ENTRY_ADDRESS

}  // namespace

std::span<const CollectorEntry* const> collectorRegistry() { return kRegistry; }

const CollectorEntry& collectorEntry(std::string_view name) {
  for (const CollectorEntry* entry : kRegistry) {
    if (entry->name == name) return *entry;
  }
  throw std::invalid_argument("no collector named \"" + std::string(name) + "\" in the registry");
}

std::unique_ptr<Collector> makeCollector(std::string_view name, const Sources& sources,
                                         const Config& config) {
  return collectorEntry(name).make(sources, config);
}

}  // namespace fabricmon
