#pragma once
// The one explicit list of collectors. Adding a collector touches this list and nothing else.

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "collectors/collector.hpp"
#include "collectors/sources/dcb_source.hpp"
#include "collectors/sources/ethtool_source.hpp"
#include "collectors/sources/fec_source.hpp"
#include "collectors/sources/lldp_source.hpp"
#include "collectors/sources/mad_source.hpp"
#include "collectors/sources/sysfs.hpp"
#include "config/config.hpp"

namespace fabricmon {

/// The OS access every collector may use, built once from the config.
struct Sources {
  std::shared_ptr<const SysfsRoot> sysfs;
  std::shared_ptr<EthtoolSource> ethtool;
  std::shared_ptr<DcbSource> dcb;
  std::shared_ptr<FecSource> fec;  ///< ethtool netlink FEC, or sources.fec_dir files
  std::shared_ptr<MadSource> mad;  ///< opened lazily: nothing touches umad until peer_port runs
  std::shared_ptr<LldpSource> lldp;  ///< lldpcli, or a file of its output (sources.lldp_file)
};

Sources makeSources(const SourcesConfig& config);

enum class Cadence { kFast, kSlow };  ///< poll.interval or poll.slow_interval

struct CollectorEntry {
  std::string_view name;
  Cadence cadence;
  std::unique_ptr<Collector> (*make)(const Sources& sources, const Config& config);
};

/// Every collector fabricmon has, in a stable order.
std::span<const CollectorEntry> collectorRegistry();

}  // namespace fabricmon
