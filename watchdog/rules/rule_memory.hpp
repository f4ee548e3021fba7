#pragma once
// What rules remember across evaluations beyond the History's series: which ports were ever ACTIVE
// (port_down) and when each RDMA device and port was last seen (device_missing). A series that
// vanishes takes its History entry with it; these outlive it, which is how a vanished device is
// noticed at all. Owned by the watchdog Engine, kept across SIGHUP.

#include <map>
#include <string>

#include "model/sample.hpp"
#include "watchdog/history.hpp"

namespace fabricmon::watchdog {

/// port_down's memory of one port ("device/port").
struct PortUpMemory {
  bool everActive = false;  ///< seen ACTIVE at least once since start
  std::string ignored;      ///< why the port is not judged now ("" = judged): never_active, disabled, excluded
  SeriesPtr ignoredSeries;  ///< fabricmon_watchdog_port_ignored_info while `ignored` stays the same
};

/// device_missing's memory of one device or port.
struct PresenceMemory {
  Nanos lastSeen = kNever;
  bool present = false;
};

struct RuleMemory {
  Nanos startedAt = kNever;  ///< time of the first evaluation
  std::map<std::string, PortUpMemory, std::less<>> ports;
  std::map<std::string, PresenceMemory, std::less<>> devices;       ///< by device name
  std::map<std::string, PresenceMemory, std::less<>> devicePorts;   ///< by "device/port"
};

}  // namespace fabricmon::watchdog
