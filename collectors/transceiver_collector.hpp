#pragma once
// The transceiver collector: the pluggable module of each watched interface (RDMA netdevs and
// netdev.include), read from its EEPROM over ethtool netlink/ioctl or from image files, decoded
// by collectors/transceiver_decode.hpp into fabricmon_transceiver_* (docs/metrics.md,
// "Transceivers"). Its own slow interval (registry), only the pages holding monitored values read
// every run, the identity pages again only after a module change, and a per-port backoff.

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

std::unique_ptr<Collector> makeTransceiverCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
