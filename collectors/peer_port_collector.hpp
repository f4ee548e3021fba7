#pragma once
// The peer_port collector: the far end of every InfiniBand cable, over MADs (docs/metrics.md,
// "The far end of the cable").

#include <memory>

#include "collectors/collector.hpp"
#include "collectors/name_filter.hpp"

namespace fabricmon {

struct Sources;
struct Config;
class MadSource;

/// For each local InfiniBand port: the neighbour's identity (SMP NodeInfo/NodeDescription by
/// directed route), its port's state, width and speed (PortInfo), and its PMA counters by LID, as
/// fabricmon_peer_* series labelled with the local device and port; the local port's own width,
/// speed and PMA counters where sysfs has none. RoCE ports are skipped; no InfiniBand port = no data.
/// `devices.include` / `devices.exclude` select the local devices, as for every other collector.
std::unique_ptr<Collector> makePeerPortCollector(const Sources& sources, const Config& config);
/// The same over a given source (tests and the cost benchmark); `devices` selects local CAs by name.
std::unique_ptr<Collector> makePeerPortCollector(std::shared_ptr<MadSource> source, NameFilter devices = {});

}  // namespace fabricmon
