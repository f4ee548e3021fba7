#pragma once
// The netdev link collector (collector name "netdev_link").

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// fabricmon_netdev_up and the carrier change counters of every interface in the topology.
std::unique_ptr<Collector> makeNetdevLinkCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
