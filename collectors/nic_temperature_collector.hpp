#pragma once
// The nic_temperature collector: the NIC's own temperature sensors, from the hwmon device its
// driver registers under each RDMA device's PCI function (collectors/sources/hwmon_source.hpp;
// docs/metrics.md, "NIC temperature"). A NIC that runs hot throttles its links or shuts itself
// down; these are the numbers that say so before it does.

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// fabricmon_nic_temperature_celsius, _highest_celsius and _threshold_celsius for every hwmon
/// temperature channel of every watched RDMA device's PCI function; a function shared by several
/// devices is read once.
std::unique_ptr<Collector> makeNicTemperatureCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
