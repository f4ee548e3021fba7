#pragma once
// The peer_port collector: the far end of every InfiniBand cable, over MADs (docs/metrics.md,
// "The far end of the cable").

#include <memory>

#include "collectors/collector.hpp"
#include "collectors/name_filter.hpp"

namespace fabricmon {

class MadSource;

/// The peer_port collector over a given source (tests, over a fake or the demo's simulated fabric,
/// and the cost benchmark; the daemon's is its registry entry, in peer_port_collector.cpp);
/// `devices` selects local CAs by name.
std::unique_ptr<Collector> makePeerPortCollector(std::shared_ptr<MadSource> source, NameFilter devices = {});

}  // namespace fabricmon
