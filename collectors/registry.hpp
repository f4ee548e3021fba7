#pragma once
// The collectors' registry. Each collector defines its own entry in its .cpp,
//   extern const CollectorEntry kXCollector{"x", Cadence::kSlow, {}, &makeXCollector, nullptr};
// and the one explicit list of them is FABRICMON_COLLECTORS in collectors/registry.cpp. Adding a
// collector touches that list (one line) and nothing else here.

#include <memory>
#include <span>
#include <string_view>

#include "collectors/collector.hpp"
#include "collectors/poll_demand.hpp"
#include "collectors/sources/dcb_source.hpp"
#include "collectors/sources/ethtool_source.hpp"
#include "collectors/sources/fec_source.hpp"
#include "collectors/sources/lldp_source.hpp"
#include "collectors/sources/mad_source.hpp"
#include "collectors/sources/module_eeprom_source.hpp"
#include "collectors/sources/sysfs.hpp"
#include "config/config.hpp"

namespace fabricmon {

struct NicDriverLogState;

/// The OS access every collector may use, built once from the config.
struct Sources {
  std::shared_ptr<const SysfsRoot> sysfs;
  std::shared_ptr<EthtoolSource> ethtool;
  std::shared_ptr<DcbSource> dcb;
  std::shared_ptr<FecSource> fec;  ///< ethtool netlink FEC, or sources.fec_dir files
  std::shared_ptr<MadSource> mad;  ///< opened lazily: nothing touches umad until peer_port runs
  std::shared_ptr<LldpSource> lldp;  ///< lldpcli, or a file of its output (sources.lldp_file)
  /// The kernel log and what nic_driver_log keeps across a reload (collectors/nic_driver_log_collector.hpp).
  std::shared_ptr<NicDriverLogState> nicDriverLog;
  /// Module EEPROMs: ethtool netlink/ioctl, or image files (sources.module_eeprom_dir).
  std::shared_ptr<ModuleEepromSource> moduleEeprom;
  /// Which series the node reads at every poll; the kept counter files of the others are read
  /// every poll.export_only_interval (collectors/poll_demand.hpp). Null: every file every poll.
  std::shared_ptr<const PollDemand> demand;
};

/// `previous`: the sources of the configuration being replaced; the kernel log's reader is kept
/// when it reads the same log, so a reload loses no record.
Sources makeSources(const SourcesConfig& config, const Sources* previous = nullptr);

enum class Cadence { kFast, kSlow };  ///< poll.interval or poll.slow_interval

/// One collector: defined by the collector's own .cpp (an `extern const` object,
/// constant-initialised: every member is a literal) and listed in registry.cpp.
struct CollectorEntry {
  std::string_view name;
  Cadence cadence;
  /// A default interval of the collector's own instead of its cadence's (0 = the cadence's);
  /// collectors.<name>.interval still overrides it (docs/architecture.md, "Threads").
  Duration ownInterval{};
  std::unique_ptr<Collector> (*factory)(const Sources& sources, const Config& config) = nullptr;
  /// Settings of the collector's own (and of a source only it uses), as `collectors.<name>.<key>`:
  /// `&bindCollectorSettings<Settings>` for a struct with defaults, a `bind(SettingsBinder&)` that
  /// declares its keys (as a rule's settings do) and ==; the factory reads them with
  /// `config.collectorSettings.get<Settings>()`. nullptr: none.
  void (*bindSettings)(SettingsBinder& binder, RuleSettingsSet& settings) = nullptr;

  /// The collector of this row, named `name`.
  std::unique_ptr<Collector> make(const Sources& sources, const Config& config) const {
    std::unique_ptr<Collector> c = factory(sources, config);
    if (c != nullptr) c->name_ = std::string(name);
    return c;
  }
};

template <class Settings>
void bindCollectorSettings(SettingsBinder& binder, RuleSettingsSet& settings) {
  settings.get<Settings>().bind(binder);
}

/// Every collector fabricmon has, in a stable order (registry.cpp's list).
std::span<const CollectorEntry* const> collectorRegistry();

/// The registry's entry named `name`; throws std::invalid_argument for a name it does not have.
/// Tests and tools reach a collector by its name: its factory is local to its .cpp.
const CollectorEntry& collectorEntry(std::string_view name);

/// collectorEntry(name).make(sources, config): the collector, named as the daemon names it.
std::unique_ptr<Collector> makeCollector(std::string_view name, const Sources& sources,
                                         const Config& config);

}  // namespace fabricmon
