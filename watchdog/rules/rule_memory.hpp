#pragma once
// What rules remember across evaluations beyond the History's series: which ports were ever ACTIVE
// (port_down) and when each RDMA device and port was last seen (device_missing). A series that
// vanishes takes its History entry with it; these outlive it, which is how a vanished device is
// noticed at all. Owned by the watchdog Engine, kept across SIGHUP.

#include <array>
#include <cstdint>
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

/// link_ber's memory of one interface: the pre-FEC BER baseline, kept in the state file (it takes
/// a day to learn; docs/rules.md "link_ber").
struct BerBaseline {
  static constexpr size_t kParts = 24;
  struct Part {
    int64_t index = INT64_MIN;  ///< wall-clock seconds / part width: which part of the day
    double errors = 0;          ///< corrected bits counted in it
    double bits = 0;            ///< bits received in it
  };
  std::array<Part, kParts> parts{};
  int64_t partSeconds = 0;      ///< the width the parts were cut with (a new width starts over)
  double lastErrors = -1;       ///< running totals (Tracked::total) at the last evaluation
  double lastBits = -1;
  Nanos lastT = kNever;
  bool live = false;            ///< judged in the latest evaluation: its gauges are exported
  SeriesPtr berGauge, baselineGauge, levelGauge;
  double ber = -1, baseline = -1, level = -1;  ///< the gauges' values (< 0: not exported)
};

struct RuleMemory {
  Nanos startedAt = kNever;  ///< time of the first evaluation
  std::map<std::string, PortUpMemory, std::less<>> ports;
  std::map<std::string, PresenceMemory, std::less<>> devices;       ///< by device name
  std::map<std::string, PresenceMemory, std::less<>> devicePorts;   ///< by "device/port"
  std::map<std::string, BerBaseline, std::less<>> berBaselines;     ///< link_ber, by interface
};

}  // namespace fabricmon::watchdog
