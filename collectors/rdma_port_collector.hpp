#pragma once
// The RDMA port collector (collector name "rdma_port").

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// fabricmon_device_info, fabricmon_port_info, fabricmon_port_state, fabricmon_port_physical_state and
/// fabricmon_port_rate_bytes_per_second from the device and port files of class/infiniband.
std::unique_ptr<Collector> makeRdmaPortCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
