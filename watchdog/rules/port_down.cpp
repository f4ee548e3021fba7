// port_down: a port that was ACTIVE since fabricmon started (or is listed in expected_ports) and has
// not been ACTIVE for `hold` is critical; on a rail-optimised GPU node one dead port is one GPU's
// share of the fabric gone. link_flap only counts repeated downs and port_degraded only judges
// ports whose physical link is up, so a port that goes down once and stays down is this rule's.
// Ports never ACTIVE since start (an unused auxiliary port, a cable never plugged), ports taken down
// on purpose and excluded ports are not judged; they are listed in
// fabricmon_watchdog_port_ignored_info instead. On InfiniBand a port taken down on purpose
// (ibportstate disable) is the one whose physical state is Disabled; one that went down by itself
// keeps Polling. A RoCE driver has no physical state of its own: it reports Disabled whenever the
// netdev has no carrier (mlx5_query_port_roce, bnxt_re_query_port, irdma_query_port), so there a
// port taken down on purpose is one whose interface is administratively down (no IFF_UP), and a
// Disabled port whose interface is up has lost its link.
#include <algorithm>
#include <charconv>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "watchdog/rules/port_down.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon {

std::string PortDownRule::checkPortName(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || text.find('/', slash + 1) != std::string::npos) {
    return "expected \"<device>/<port>\" such as \"mlx5_0/1\", got \"" + text + "\"";
  }
  const std::string port = text.substr(slash + 1);
  unsigned n = 0;
  const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
  if (ec != std::errc() || ptr != port.data() + port.size() || n == 0) {
    return "the port of \"" + text + "\" must be a number from 1 (sysfs ports/<N>)";
  }
  return {};
}

}  // namespace fabricmon

namespace fabricmon::watchdog {

namespace {

/// The info series of the ports port_down does not judge.
const FamilyDef kPortIgnoredFamily{"fabricmon_watchdog_port_ignored_info",
                                   "1 for each RDMA port the port_down rule does not judge, and "
                                   "why: never_active (not ACTIVE since "
                                   "fabricmon started and not in expected_ports), disabled "
                                   "(down on purpose: physical state Disabled on InfiniBand, "
                                   "the interface administratively down on RoCE), "
                                   "excluded (port_down.exclude).",
                                   MetricType::kGauge, "1", "device,port,why"};
const FamilyDef* const kPortDownFamilies[] = {&kPortIgnoredFamily};

/// port_down's memory of one port ("device/port"); it outlives the port's series (a driver reload).
struct PortUpMemory {
  bool everActive = false;  ///< seen ACTIVE at least once since start
  std::string ignored;      ///< why the port is not judged now ("" = judged): never_active, disabled, excluded
  SeriesPtr ignoredSeries;  ///< fabricmon_watchdog_port_ignored_info while `ignored` stays the same
};

struct PortDownMemory : RuleState {
  std::map<std::string, PortUpMemory, std::less<>> ports;

  void appendSamples(SampleWriter& out) override;
  void disabled() override { ports.clear(); }
};

bool listed(const std::vector<std::string>& names, std::string_view key) {
  return std::find(names.begin(), names.end(), key) != names.end();
}

bool excluded(const std::vector<std::string>& patterns, const std::string& key) {
  for (const auto& p : patterns) {
    // Validated by the config loader; compiled per use: the list is short and ports are few.
    if (std::regex_match(key, std::regex(p, std::regex::ECMAScript))) return true;
  }
  return false;
}

/// PortPhysicalState names (IBTA 14.2.5.6; Documentation/ABI/stable/sysfs-class-infiniband).
std::string_view physName(double v) {
  switch (static_cast<int>(v)) {
    case 1: return "Sleep";
    case 2: return "Polling";
    case 3: return "Disabled";
    case 4: return "PortConfigurationTraining";
    case 5: return "LinkUp";
    case 6: return "LinkErrorRecovery";
    case 7: return "PhyTest";
    default: return "unknown";
  }
}


/// A RoCE port reported Disabled whose interface is administratively up: its link was lost (a
/// pulled cable, a dead optic or peer), not taken down. Without the interface's flags it stays a
/// port taken down on purpose, as before they were read.
bool lostWhileUp(const PortRef& p) {
  if (!p.roce()) return false;
  const Tracked* adminUp = p.ifaceIn(Fam::kNetdevAdminUp);
  return adminUp != nullptr && adminUp->raw == 1;
}

void evaluatePortDown(RuleContext& ctx, const PortDownRule& /*rule*/) {
  const auto& rule = ctx.settings<PortDownRule>();
  const Nanos hold = toNanos(rule.hold);
  auto& memory = ctx.remembered<PortDownMemory>();
  for (auto& [key, mem] : memory.ports) mem.ignored.clear();
  for (const PortRef& p : ctx.subjects.ports()) {
    const Tracked* state = p.in(Fam::kPortState);
    if (!ctx.ready(state)) continue;
    const Tracked* phys = p.in(Fam::kPortPhysState);
    const std::string key = fmt::format("{}/{}", p.device, p.port);
    PortUpMemory& mem = memory.ports[key];
    const bool active = state->raw == kPortActive;
    if (active) mem.everActive = true;

    Verdict v;
    v.judged = true;
    v.stamp = std::max(state->t, phys != nullptr ? phys->t : kNever);
    if (excluded(rule.exclude, key)) {
      mem.ignored = "excluded";
    } else if (!mem.everActive && !listed(rule.expectedPorts, key)) {
      mem.ignored = "never_active";
    } else if (!active && phys != nullptr && phys->raw == kPhysDisabled && !lostWhileUp(p)) {
      mem.ignored = "disabled";
    }
    if (mem.ignored.empty()) {
      v.fire = !active;
      v.evidence.add("state", state->raw);
      if (phys != nullptr) v.evidence.add("physical_state", phys->raw);
      v.evidence.add("hold_seconds", double(hold) / kSecond);
      v.evidence.add("expected", listed(rule.expectedPorts, key) ? 1 : 0);
      if (v.fire) {
        v.summary = fmt::format("{} port {}{}{}: not ACTIVE (state {:g}, physical state {}) for over {:.0f}s{}", p.device,
                                p.port, p.interface.empty() ? "" : " / ", p.interface, state->raw,
                                phys != nullptr ? physName(phys->raw) : "unknown", double(hold) / kSecond,
                                mem.everActive ? " after being ACTIVE" : ", and it is expected up");
      }
    }
    // An ignored port clears: a port taken down on purpose after the fault is no longer a fault.
    v.clear = !v.fire;
    ctx.observe({}, Severity::kCritical, Subject{p.device, p.port, p.interface, {}},
                        Policy{1, hold, 0}, v);
  }
  // Ports whose series vanished with their device are device_missing's: forget their info series
  // but keep `everActive`, so a port that comes back from a driver reload is judged again.
  for (auto& [key, mem] : memory.ports) {
    if (mem.ignored.empty()) mem.ignoredSeries.reset();
  }
}

void PortDownMemory::appendSamples(SampleWriter& out) {
  for (auto& [key, mem] : ports) {
    if (mem.ignored.empty()) continue;
    const std::string_view why = mem.ignored;
    if (!mem.ignoredSeries || mem.ignoredSeries->label("why") != why) {
      const auto slash = key.find('/');
      mem.ignoredSeries = makeSeries(kPortIgnoredFamily, {{"device", key.substr(0, slash)},
                                                          {"port", key.substr(slash + 1)},
                                                          {"why", std::string(why)}});
    }
    out.add(mem.ignoredSeries, 1);
  }
}

void planPortDown(const PortDownRule& /*rule*/, EnginePlan& /*plan*/) {
}

}  // namespace

const RuleDef kPortDownRule = withMemory<PortDownMemory>(
    defineRule<PortDownRule, planPortDown, evaluatePortDown>("port_down", "link"), kPortDownFamilies);

}  // namespace fabricmon::watchdog
