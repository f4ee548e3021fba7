#pragma once
// device_missing: its settings (defaults and config keys, `watchdog.rules.device_missing`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct DeviceMissingRule {
  bool enabled = true;
  /// A device (or port) absent this long is missing; a driver reload or firmware reset that empties
  /// class/infiniband for less than this raises nothing.
  Duration grace = 60s;
  std::vector<std::string> expectedDevices;     ///< RDMA device names that must be present
  std::optional<unsigned> expectedDeviceCount;  ///< at least this many RDMA devices
  std::optional<unsigned> expectedPortCount;    ///< at least this many RDMA ports, all devices together

  /// An RDMA device name as in /sys/class/infiniband ("mlx5_0"): no '/'.
  static std::string checkDeviceName(const std::string& text);

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.rescanWindow("grace", grace);
    b.stringList("expected_devices", expectedDevices, checkDeviceName);
    b.optionalCount("expected_device_count", expectedDeviceCount, 1, kMaxConfigCount);
    b.optionalCount("expected_port_count", expectedPortCount, 1, kMaxConfigCount);
  }

  bool operator==(const DeviceMissingRule&) const = default;
};

namespace watchdog {
extern const RuleDef kDeviceMissingRule;
}  // namespace watchdog

}  // namespace fabricmon
