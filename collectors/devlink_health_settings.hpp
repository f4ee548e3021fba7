#pragma once
// `collectors.devlink_health.*`: the devlink_health collector's settings. A header of their own so
// that `fabricmon demo` can point the collector at its simulated node's file (daemon/demo_node.cpp).

#include <optional>
#include <string>

#include "config/config.hpp"

namespace fabricmon {

struct DevlinkHealthSettings {
  /// A file of `devlink -j -s health show` output to read instead of the kernel (tests, the
  /// simulator, a node where another agent captures it); unset = devlink netlink.
  std::optional<std::string> file;
  void bind(SettingsBinder& b) { b.optionalText("file", file, nullptr, nullptr); }
  bool operator==(const DevlinkHealthSettings&) const = default;
};

}  // namespace fabricmon
