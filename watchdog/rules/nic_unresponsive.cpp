// nic_unresponsive: a read of a NIC's kernel interface (a sysfs counter, an ethtool or netlink call)
// has waited longer than `wait_limit` (fabricmon_nic_read_wait_seconds, built by the pipeline from
// the collectors' read watches: daemon/read_waits.hpp). Such a read waits for the NIC's firmware to
// answer a command; a firmware that stopped answering hangs every job on the NIC from the same
// moment, while the driver logs the command's timeout only after its own (60 s on mlx5), and the
// collector that waits cannot report anything. Critical, one finding per collector (`reason`) and
// port; it clears `clear_after` after the last wait beyond the limit.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "watchdog/rules/nic_driver_error.hpp"
#include "watchdog/rules/nic_unresponsive.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {

namespace {

void judge(RuleContext& ctx, const Tracked& s, const Subject& subject, double limit, const Policy& policy) {
  Verdict v;
  v.judged = true;
  v.stamp = s.t;
  v.fire = s.raw >= limit;
  v.clear = !v.fire;
  v.evidence.add("wait_seconds", s.raw);
  v.evidence.add("wait_limit_seconds", limit);
  if (v.fire) {
    std::string where = std::string(subject.device);
    if (!subject.port.empty()) where += fmt::format(" port {}", subject.port);
    if (!subject.interface.empty()) {
      where += where.empty() ? std::string(subject.interface) : fmt::format(" ({})", subject.interface);
    }
    if (const std::string_view pci = s.label("pci_address"); !pci.empty()) {
      where += where.empty() ? std::string(pci) : fmt::format(" at {}", pci);
    }
    v.summary = fmt::format("collector {} has waited {:.0f} s for {} on {}: the NIC's firmware or driver is not "
                            "answering",
                            s.label("collector"), s.raw, s.note().empty() ? std::string("a read") : findingText(s.note()),
                            where.empty() ? "the node" : where);
  }
  ctx.observe(s.label("collector"), Severity::kCritical, subject, policy, v);
}

void evaluateNicUnresponsive(RuleContext& ctx, const NicUnresponsiveRule& rule) {
  const double limit = std::chrono::duration<double>(rule.waitLimit).count();
  Policy policy;
  policy.clearAfter = toNanos(rule.clearAfter);
  // One verdict per collector and subject, from its longest wait: a device-wide read (hwmon) of a
  // function with several ports is about each of them, and may meet a port's own series held at 0.
  struct Worst {
    const Tracked* s;
    Subject subject;
  };
  std::map<std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>, Worst> worst;
  for (const Tracked* s : ctx.history.family(Fam::kNicReadWait)) {
    ctx.forEachNicSubject(*s, [&](const Subject& subject) {
      auto [it, inserted] = worst.try_emplace({s->label("collector"), subject.device, subject.port, subject.interface},
                                              Worst{s, subject});
      if (!inserted && s->raw > it->second.s->raw) it->second = Worst{s, subject};
    });
  }
  for (const auto& [key, w] : worst) judge(ctx, *w.s, w.subject, limit, policy);
}

void planNicUnresponsive(const NicUnresponsiveRule& /*rule*/, EnginePlan& /*plan*/) {}

}  // namespace

const RuleDef kNicUnresponsiveRule =
    defineRule<NicUnresponsiveRule, planNicUnresponsive, evaluateNicUnresponsive>("nic_unresponsive", "nic_health");

}  // namespace fabricmon::watchdog
