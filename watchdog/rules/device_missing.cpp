// device_missing: an RDMA device or port that is not there. A node that boots with seven of its
// eight NICs (a PCIe link that did not train, a driver reset that never came back) otherwise looks
// healthy: the missing NIC's findings simply end. Judged from presence in the collected series:
// a device is present while its fabricmon_device_info (or any port of it) is, a port while its
// fabricmon_port_state is. Absence only counts after `grace`, so a driver reload or firmware reset
// that empties /sys/class/infiniband for a few seconds raises nothing.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "watchdog/rules/device_missing.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon {

std::string DeviceMissingRule::checkDeviceName(const std::string& text) {
  if (text.find('/') != std::string::npos || text == "." || text == "..") {
    return "expected an RDMA device name as in /sys/class/infiniband (\"mlx5_0\"), got \"" + text + "\"";
  }
  return {};
}

}  // namespace fabricmon

namespace fabricmon::watchdog {
namespace {

/// When one device or port was last seen.
struct PresenceMemory {
  Nanos lastSeen = kNever;
  bool present = false;
};

/// What outlives the series of a vanished device: how it is noticed at all.
struct DeviceMissingMemory : RuleState {
  Nanos startedAt = kNever;  ///< time of the first evaluation
  std::map<std::string, PresenceMemory, std::less<>> devices;      ///< by device name
  std::map<std::string, PresenceMemory, std::less<>> devicePorts;  ///< by "device/port"
};

/// One device or port: present now, or absent since `since`.
void judgePresence(RuleContext& ctx, std::string_view reason, const Subject& subject, bool present, Nanos since,
                   bool expected) {
  const Nanos grace = toNanos(ctx.settings<DeviceMissingRule>().grace);
  Verdict v;
  v.judged = true;
  v.stamp = ctx.now;
  const double absent = present ? 0 : double(ctx.now - since) / kSecond;
  v.fire = !present && ctx.now - since >= grace;
  v.clear = present;
  v.evidence.add("absent_seconds", absent);
  v.evidence.add("grace_seconds", double(grace) / kSecond);
  v.evidence.add("expected", expected ? 1 : 0);
  if (v.fire) {
    std::string what = subject.port.empty() ? fmt::format("RDMA device {}", subject.device)
                                            : fmt::format("{} port {}", subject.device, subject.port);
    v.summary = reason == "never_seen"
                    ? fmt::format("{} is expected but has not been present for {:.0f}s", what, absent)
                    : fmt::format("{} vanished {:.0f}s ago and has not come back (driver reset, PCIe link loss?)",
                                  what, absent);
  }
  ctx.observe(reason, Severity::kCritical, subject, Policy{}, v);
}

void judgeCount(RuleContext& ctx, std::string_view reason, size_t present, std::optional<unsigned> expected,
                std::string_view what) {
  if (!expected) return;
  const Nanos grace = toNanos(ctx.settings<DeviceMissingRule>().grace);
  Verdict v;
  v.judged = true;
  v.stamp = ctx.now;
  v.fire = present < *expected;
  v.clear = !v.fire;
  v.evidence.add("present", double(present));
  v.evidence.add("expected", *expected);
  if (v.fire) v.summary = fmt::format("{} {} present, {} expected", present, what, *expected);
  // The count is below expectation for at least `grace` before it counts (the start-up scan and a
  // driver reload both take a moment).
  ctx.observe(reason, Severity::kCritical, Subject{}, Policy{1, grace, 0}, v);
}

}  // namespace

void evaluateDeviceMissing(RuleContext& ctx, const DeviceMissingRule& /*rule*/) {
  const auto& rule = ctx.settings<DeviceMissingRule>();
  auto& mem = ctx.remembered<DeviceMissingMemory>();
  if (mem.startedAt == kNever) mem.startedAt = ctx.now;

  std::set<std::string_view> devices;
  std::set<std::pair<std::string_view, std::string_view>> ports;
  for (const Tracked* s : ctx.history.family(Fam::kDeviceInfo)) devices.insert(s->label("device"));
  for (const Tracked* s : ctx.history.family(Fam::kPortState)) {
    devices.insert(s->label("device"));
    ports.emplace(s->label("device"), s->label("port"));
  }

  // Management ports are no rule's input (watchdog/management_ports.hpp) but are on the node: the
  // latest topology info vouches for them, so they count as present, and once it stops naming one
  // (the NIC is gone) it is absent like any other.
  if (const ManagementPorts* management = ctx.history.leftAlone()) {
    for (const auto& d : management->devices()) devices.insert(d);
    for (const auto& [d, p] : management->ports()) {
      devices.insert(d);
      ports.emplace(d, p);
    }
  }
  for (auto& [name, m] : mem.devices) m.present = false;
  for (auto& [name, m] : mem.devicePorts) m.present = false;
  for (std::string_view d : devices) {
    auto& m = mem.devices[std::string(d)];
    m.present = true;
    m.lastSeen = ctx.now;
  }
  for (const auto& [d, p] : ports) {
    auto& m = mem.devicePorts[fmt::format("{}/{}", d, p)];
    m.present = true;
    m.lastSeen = ctx.now;
  }

  // Devices seen since start, and expected ones (never seen: absent since start).
  for (const std::string& name : rule.expectedDevices) {
    if (!mem.devices.count(name)) {
      judgePresence(ctx, "never_seen", Subject{name, {}, {}, {}}, false, mem.startedAt, true);
    }
  }
  for (const auto& [name, m] : mem.devices) {
    const bool expected = std::find(rule.expectedDevices.begin(), rule.expectedDevices.end(), name) !=
                          rule.expectedDevices.end();
    judgePresence(ctx, "vanished", Subject{name, {}, {}, {}}, m.present, m.lastSeen, expected);
  }
  // A port gone while its device stays (ports/ unlistable, a port removed by firmware). Ports of a
  // vanished device are covered by the device's finding.
  for (const auto& [key, m] : mem.devicePorts) {
    const auto slash = key.find('/');
    const std::string_view device = std::string_view(key).substr(0, slash);
    auto dev = mem.devices.find(device);
    if (dev == mem.devices.end() || !dev->second.present) continue;
    judgePresence(ctx, "port_vanished", Subject{device, std::string_view(key).substr(slash + 1), {}, {}}, m.present,
                  m.lastSeen, false);
  }
  judgeCount(ctx, "too_few_devices", devices.size(), rule.expectedDeviceCount, "RDMA devices");
  judgeCount(ctx, "too_few_ports", ports.size(), rule.expectedPortCount, "RDMA ports");
}

namespace {

void planDeviceMissing(const DeviceMissingRule& /*rule*/, EnginePlan& /*plan*/) {
}

}  // namespace

const RuleDef kDeviceMissingRule = withMemory<DeviceMissingMemory>(
    defineRule<DeviceMissingRule, planDeviceMissing, evaluateDeviceMissing>("device_missing", "link"));

}  // namespace fabricmon::watchdog
