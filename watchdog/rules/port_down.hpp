#pragma once
// port_down: its settings (defaults and config keys, `watchdog.rules.port_down`) and its RuleDef.
// docs/rules.md gives the source of every default.

#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "model/sample.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct PortDownRule {
  bool enabled = true;
  /// A port that was ACTIVE (or is expected) and has not been ACTIVE this long is down. Longer than an
  /// InfiniBand port's LinkUp -> Active bring-up by the subnet manager and a RoCE link retrain.
  Duration hold = 60s;
  /// "device/port" of ports that must be ACTIVE even if never seen ACTIVE since start.
  std::vector<std::string> expectedPorts;
  /// Regexes on "device/port": ports never judged (an unused auxiliary port, a port kept down).
  std::vector<std::string> exclude;

  /// "mlx5_0/1": an RDMA device name (class/infiniband/<name>, no '/') and a port number >= 1.
  static std::string checkPortName(const std::string& text);

  void bind(SettingsBinder& b) {
    b.flag("enabled", enabled);
    b.window("hold", hold);
    b.stringList("expected_ports", expectedPorts, checkPortName);
    b.regexList("exclude", exclude);
  }

  bool operator==(const PortDownRule&) const = default;
};

namespace watchdog {
extern const RuleDef kPortDownRule;
}  // namespace watchdog

}  // namespace fabricmon
