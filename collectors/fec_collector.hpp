#pragma once
// The FEC collector (collector name "fec").

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// Per interface of the topology: corrected and uncorrectable FEC codewords (total and per lane
/// where the driver counts per lane), the active FEC mode and the code it implies, and the link's
/// lanes and speed, from the FEC source (ethtool netlink or sources.fec_dir files). The corrected
/// bit counts are the ethtool group's (docs/metrics.md, "Physical layer").
std::unique_ptr<Collector> makeFecCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
