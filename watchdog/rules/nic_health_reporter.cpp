// nic_health_reporter: the NIC driver's own devlink health reporters (devlink_health). A reporter
// that stays in its error state is a fault the driver could not (or may not) recover from on its
// own: firmware fatal (the function is being reset), a TX queue that timed out and was not brought
// back, ... every queue pair on the NIC may be stuck behind it: critical. An error count that rose
// and recovered is a warning: the driver saw a fault (a TX timeout, an RX completion error) and
// repaired it, and the job may have stalled meanwhile. One finding per NIC and reason; the reporter
// is named (devlink/devlink-health.rst, Documentation/networking/).
#include "watchdog/rules/nic_health_reporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

struct Reporter {
  const Tracked* healthy = nullptr;
  const Tracked* errors = nullptr;
  /// The reporter can recover: the kernel reports auto_recover only for a reporter with a recover
  /// op (net/devlink/health.c, devlink_nl_health_reporter_fill()). One without (mlx5's fw, vnic)
  /// stays in its error state from its first error until the driver is reloaded, so its state says
  /// nothing about now; its new errors are judged (errors) instead.
  const Tracked* autoRecover = nullptr;
};

/// pci_address, devlink_port, reporter: one reporter, whichever devices share its function.
using ReporterKey = std::tuple<std::string_view, std::string_view, std::string_view>;

ReporterKey keyOf(const Tracked& s) {
  return {s.label("pci_address"), s.label("devlink_port"), s.label("reporter")};
}

/// "fw_fatal at 0000:17:00.0", "tx of devlink port 65535 at 0000:17:00.0".
std::string reporterName(const Tracked& s) {
  const std::string_view port = s.label("devlink_port");
  return port.empty() ? fmt::format("{} at {}", s.label("reporter"), s.label("pci_address"))
                      : fmt::format("{} of devlink port {} at {}", s.label("reporter"), port,
                                    s.label("pci_address"));
}

void errorState(RuleContext& ctx, const NicHealthReporterRule& rule, std::string_view device,
                const std::vector<const Reporter*>& reporters) {
  Verdict v;
  const Tracked* failing = nullptr;
  double inError = 0;
  for (const Reporter* r : reporters) {
    if (!ctx.ready(r->healthy) || r->autoRecover == nullptr) continue;
    v.judged = true;
    v.stamp = std::max(v.stamp, r->healthy->t);
    if (r->healthy->raw == 0) {
      ++inError;
      if (failing == nullptr) failing = r->healthy;
    }
  }
  v.fire = failing != nullptr;
  v.clear = !v.fire;
  v.evidence.add("reporters_in_error", inError);
  if (v.fire) {
    v.summary = fmt::format(
        "{}: devlink health reporter {} is in its error state{}", device, reporterName(*failing),
        inError > 1 ? fmt::format(" ({:.0f} reporters are)", inError) : std::string());
  }
  ctx.observe("error_state", Severity::kCritical, Subject{device, {}, {}, {}},
              Policy{rule.forReadings, 0, 0}, v);
}

void errorsRose(RuleContext& ctx, const NicHealthReporterRule& rule, std::string_view device,
                const std::vector<const Reporter*>& reporters) {
  Verdict v;
  const Nanos hold = toNanos(rule.clearAfter);
  const Tracked* worst = nullptr;
  double errors = 0;
  bool recent = false;
  for (const Reporter* r : reporters) {
    if (!ctx.ready(r->errors)) continue;
    v.judged = true;
    v.stamp = std::max(v.stamp, r->errors->t);
    const double d = r->errors->lastDelta();
    if (d > 0) {
      errors += d;
      if (worst == nullptr || d > worst->lastDelta()) worst = r->errors;
    }
    if (r->errors->increasedWithin(hold)) recent = true;
  }
  v.fire = worst != nullptr;
  v.clear = !recent;
  v.evidence.add("errors", errors);
  v.evidence.add("clear_after_seconds", double(hold) / kSecond);
  if (v.fire) {
    v.summary =
        fmt::format("{}: {:.0f} new error{} reported to devlink health reporter {} (total {:.0f})",
                    device, errors, errors == 1 ? "" : "s", reporterName(*worst), worst->raw);
  }
  ctx.observe("errors", Severity::kWarning, Subject{device, {}, {}, {}}, Policy{}, v);
}

void evaluateNicHealthReporter(RuleContext& ctx, const NicHealthReporterRule& rule) {
  std::map<ReporterKey, Reporter> reporters;
  for (const Tracked* s : ctx.history.family(Fam::kNicHealthReporterHealthy))
    reporters[keyOf(*s)].healthy = s;
  for (const Tracked* s : ctx.history.family(Fam::kNicHealthReporterErrors))
    reporters[keyOf(*s)].errors = s;
  for (const Tracked* s : ctx.history.family(Fam::kNicHealthReporterAutoRecover))
    reporters[keyOf(*s)].autoRecover = s;
  if (reporters.empty()) return;
  // Each NIC's reporters; a function shared by several devices is each one's. Management NICs are
  // not in the join (watchdog/management_ports.hpp) and are not judged.
  std::set<std::string_view> watched;
  for (const PortRef& p : ctx.subjects.ports()) watched.insert(p.device);
  std::map<std::string_view, std::vector<const Reporter*>> byDevice;
  for (const auto& [key, r] : reporters) {
    const Tracked* any = r.healthy != nullptr ? r.healthy : r.errors != nullptr ? r.errors : r.autoRecover;
    std::string_view devices = any->label("device");
    while (!devices.empty()) {
      const size_t comma = devices.find(',');
      const std::string_view d = devices.substr(0, comma);
      if (watched.count(d) != 0) byDevice[d].push_back(&r);
      devices = comma == std::string_view::npos ? std::string_view{} : devices.substr(comma + 1);
    }
  }
  for (const auto& [device, list] : byDevice) {
    errorState(ctx, rule, device, list);
    errorsRose(ctx, rule, device, list);
  }
}

void planNicHealthReporter(const NicHealthReporterRule& /*rule*/, EnginePlan& /*plan*/) {}

}  // namespace

const RuleDef kNicHealthReporterRule =
    defineRule<NicHealthReporterRule, planNicHealthReporter, evaluateNicHealthReporter>(
        "nic_health_reporter", "nic_health");

}  // namespace fabricmon::watchdog
