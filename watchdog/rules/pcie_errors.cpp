// pcie_errors: the PCIe AER counters (pcie_aer) of a port's PCI function and of the switch and root
// ports above it. Any uncorrectable error (non-fatal or fatal) is critical: the transaction was
// lost and the kernel ran error recovery on the device. Corrected errors above a rate are a
// warning: each one is a replayed TLP, and a link that keeps needing replays is degrading.
#include "watchdog/rules/pcie_errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

using PathSeries = std::vector<const Tracked*>;

/// "0000:17:00.0 (switch_port, shared by mlx5_0,mlx5_1)": where on the path the errors were seen.
std::string where(const Tracked& s) {
  const std::string_view devices = s.label("device");
  return fmt::format("{} ({}{}{})", s.label("pci_address"), s.label("position"),
                     devices.find(',') == std::string_view::npos ? "" : ", shared by ",
                     devices.find(',') == std::string_view::npos ? std::string_view{} : devices);
}

std::string portName(const Subject& subject) {
  return subject.interface.empty()
             ? fmt::format("{} port {}", subject.device, subject.port)
             : fmt::format("{} ({} port {})", subject.interface, subject.device, subject.port);
}

/// Any increase of the non-fatal (or fatal) total on the path: critical, until clear_after passes
/// without one.
void uncorrectable(RuleContext& ctx, const Subject& subject, const PathSeries& path,
                   std::string_view severity, Nanos hold) {
  Verdict v;
  double errors = 0;
  const Tracked* worst = nullptr;
  bool recent = false;
  for (const Tracked* s : path) {
    if (s->label("severity") != severity || !ctx.ready(s)) continue;
    v.judged = true;
    v.stamp = std::max(v.stamp, s->t);
    const double d = s->lastDelta();
    if (d > 0) {
      v.fire = true;
      errors += d;
      if (worst == nullptr || d > worst->lastDelta()) worst = s;
    }
    if (s->increasedWithin(hold)) recent = true;
  }
  v.clear = !recent;
  v.evidence.add("errors", errors);
  v.evidence.add("clear_after_seconds", double(hold) / kSecond);
  if (v.fire) {
    v.summary = fmt::format("{}: {:.0f} {} PCIe AER error{} at {}", portName(subject), errors,
                            severity == "fatal" ? "fatal" : "non-fatal", errors == 1 ? "" : "s",
                            where(*worst));
  }
  ctx.observe(severity, Severity::kCritical, subject, Policy{}, v);
}

/// Corrected errors over the window at the worst single function or port of the path above the
/// limit scaled to the window: a warning while it holds.
void correctable(RuleContext& ctx, const Subject& subject, const PathSeries& path,
                 const PcieErrorsRule& rule, Nanos window) {
  Verdict v;
  const double windowSeconds = double(window) / kSecond;
  const double limit = rule.correctablePerMinute * windowSeconds / 60;
  const Tracked* worst = nullptr;
  Tracked::Window worstWindow;
  for (const Tracked* s : path) {
    if (s->label("severity") != "correctable" || !ctx.ready(s)) continue;
    v.judged = true;
    v.stamp = std::max(v.stamp, s->t);
    const auto w = s->over(window);
    if (worst == nullptr || w.increase > worstWindow.increase) {
      worst = s;
      worstWindow = w;
    }
  }
  // A count above the limit is above it whatever part of the window was observed.
  v.fire = worst != nullptr && worstWindow.increase > limit;
  v.clear = !v.fire;
  v.evidence.add("errors", worstWindow.increase);
  v.evidence.add("observed_seconds", worstWindow.seconds);
  v.evidence.add("limit", limit);
  v.evidence.add("window_seconds", windowSeconds);
  if (v.fire) {
    v.summary = fmt::format(
        "{}: {:.0f} corrected PCIe AER errors in {:.0f}s at {} (limit {:g} per {:.0f}s)",
        portName(subject), worstWindow.increase, worstWindow.seconds, where(*worst), limit,
        windowSeconds);
  }
  ctx.observe("correctable", Severity::kWarning, subject, Policy{}, v);
}

void evaluatePcieErrors(RuleContext& ctx, const PcieErrorsRule& rule) {
  // The series on each device's path: a shared port's series names every device behind it.
  // Management ports are not in the join (watchdog/management_ports.hpp), so a port shared only by
  // management NICs is judged for no one.
  std::map<std::string_view, PathSeries, std::less<>> byDevice;
  for (const Tracked* s : ctx.history.family(Fam::kPcieAerErrors)) {
    std::string_view devices = s->label("device");
    while (!devices.empty()) {
      const size_t comma = devices.find(',');
      byDevice[devices.substr(0, comma)].push_back(s);
      devices = comma == std::string_view::npos ? std::string_view{} : devices.substr(comma + 1);
    }
  }
  if (byDevice.empty()) return;
  const Nanos window = toNanos(rule.window);
  const Nanos hold = toNanos(rule.clearAfter);
  for (const PortRef& p : ctx.subjects.ports()) {
    const auto it = byDevice.find(p.device);
    if (it == byDevice.end()) continue;
    const Subject subject{p.device, p.port, p.interface, {}};
    uncorrectable(ctx, subject, it->second, "nonfatal", hold);
    uncorrectable(ctx, subject, it->second, "fatal", hold);
    correctable(ctx, subject, it->second, rule, window);
  }
}

void planPcieErrors(const PcieErrorsRule& rule, EnginePlan& plan) {
  needHistory(plan, {Fam::kPcieAerErrors}, rule.window);
}

}  // namespace

const RuleDef kPcieErrorsRule =
    defineRule<PcieErrorsRule, planPcieErrors, evaluatePcieErrors>("pcie_errors", "nic_health");

}  // namespace fabricmon::watchdog
