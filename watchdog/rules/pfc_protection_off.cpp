// pfc_protection_off: PFC is enabled on an interface while the NIC's PFC storm prevention (the
// pfc-prevention-tout ethtool tunable, fabricmon_pfc_storm_prevention_timeout_seconds) is 0. Without
// it a NIC whose receive path stalls (a hung host, a PCIe stall) sends pause for ever, and the
// pause spreads upstream through the fabric; with it the NIC stops honouring and sending pause after
// the timeout and drops instead (mlx5: drivers/net/ethernet/mellanox/mlx5/core/en_ethtool.c,
// ETHTOOL_PFC_PREVENTION_TOUT; include/uapi/linux/ethtool.h). A separate rule rather than a reason
// of dcqcn_misconfig: it is about the pause machinery, whether or not DCQCN is meant to run.
#include <fmt/format.h>

#include "watchdog/rules/pfc_protection_off.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

}  // namespace

void evaluatePfcProtectionOff(RuleContext& ctx, const PfcProtectionOffRule& /*rule*/) {
  const auto& rule = ctx.settings<PfcProtectionOffRule>();
  // Interfaces with PFC on any priority, and the mask of those priorities.
  for (const IfaceRef& in : ctx.subjects.interfaces()) {
    double mask = 0;
    Nanos stamp = 0;
    bool any = false;
    for (const Tracked* s : in.inputs.all(Fam::kPfcEnabled)) {
      if (!ctx.ready(s)) continue;
      any = true;
      stamp = std::max(stamp, s->t);
      unsigned prio = 0;
      for (char c : in.inputs.label(*s)) prio = prio * 10 + unsigned(c - '0');
      if (s->raw != 0 && prio < 8) mask += double(1u << prio);
    }
    if (!any) continue;
    const std::string_view iface = in.name;
    const Tracked* timeout = in.in(Fam::kPfcStormTimeout);
    Verdict v;
    std::string_view reason = "timeout_off";
    if (ctx.ready(timeout)) {
      v.judged = true;
      v.stamp = std::max(stamp, timeout->t);
      v.fire = mask != 0 && timeout->raw == 0;
      v.evidence.add("storm_prevention_timeout_seconds", timeout->raw);
    } else if (timeout == nullptr && rule.requireSupport) {
      // The source read the interface's DCB state but the NIC reports no storm prevention at all.
      reason = "unsupported";
      v.judged = true;
      v.stamp = stamp;
      v.fire = mask != 0;
    }
    v.evidence.add("pfc_enabled_mask", mask);
    v.clear = !v.fire;
    if (v.fire) {
      v.summary = reason == "unsupported"
                      ? fmt::format("{}: PFC enabled (priority mask {:#x}) but the NIC reports no PFC storm prevention",
                                    iface, unsigned(mask))
                      : fmt::format("{}: PFC enabled (priority mask {:#x}) with storm prevention off "
                                    "(pfc-prevention-tout 0): a stalled receiver would pause the fabric indefinitely",
                                    iface, unsigned(mask));
    }
    ctx.observe(reason, Severity::kWarning, Subject{{}, {}, iface, {}}, Policy{}, v);
  }
}

namespace {

void planPfcProtectionOff(const PfcProtectionOffRule& /*rule*/, EnginePlan& /*plan*/) {
}

}  // namespace

const RuleDef kPfcProtectionOffRule =
    defineRule<PfcProtectionOffRule, planPfcProtectionOff, evaluatePfcProtectionOff>(
        "pfc_protection_off", "qos_config");

}  // namespace fabricmon::watchdog
