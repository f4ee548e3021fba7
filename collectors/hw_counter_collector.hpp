#pragma once
// The hardware counter collector (collector name "hw_counters").

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// The ports/<p>/hw_counters/ files of any driver (seven fabricmon_roce_* names, every other file as
/// fabricmon_hw_stat_total; `lifespan` is a setting and left out) and the device-level
/// <dev>/hw_counters/ as fabricmon_device_hw_stat_total.
std::unique_ptr<Collector> makeHwCounterCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
