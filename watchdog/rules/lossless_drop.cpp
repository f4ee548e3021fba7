// lossless_drop: traffic on the lossless (RoCE) priority was dropped. With PFC working this never
// happens (Microsoft, SIGCOMM 2016: any drop of lossless traffic is a bug), so one drop is critical.
#include <algorithm>

#include <fmt/format.h>

#include "watchdog/rules/lossless_drop.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

void priorityDiscards(RuleContext& ctx, const IfaceRef& in) {
  const std::string_view iface = in.name;
  const Nanos hold = toNanos(ctx.settings<LosslessDropRule>().clearAfter);
  Verdict v;
  bool recent = false;
  double dropped = 0;
  for (std::string_view kind : {"discards", "buffer", "congestion"}) {
    const Tracked* s = in.in(Fam::kPrioDiscards, ctx.rocePriority, kind);
    if (!ctx.ready(s)) continue;
    v.judged = true;
    v.stamp = std::max(v.stamp, s->t);
    if (s->lastDelta() > 0) v.fire = true;
    if (s->increasedWithin(hold)) recent = true;
    dropped += s->lastDelta();
    v.evidence.add(kind, s->lastDelta());
  }
  v.clear = !recent;
  if (v.fire) {
    v.summary = fmt::format("{}: {:.0f} packets dropped on lossless priority {}", iface, dropped, ctx.rocePriority);
  }
  ctx.observe("priority_discards", Severity::kCritical, Subject{{}, {}, iface, ctx.rocePriority},
                      Policy{}, v);
}

void bufferOverrun(RuleContext& ctx, const PortRef& p) {
  const Nanos hold = toNanos(ctx.settings<LosslessDropRule>().clearAfter);
  const Tracked* s = p.in(Fam::kPortCounter, "excessive_buffer_overrun_errors");
  Verdict v;
  v.judged = ctx.ready(s);
  if (v.judged) {
    v.stamp = s->t;
    v.fire = s->lastDelta() > 0;
    v.clear = !s->increasedWithin(hold);
    v.evidence.add("excessive_buffer_overrun_errors", s->lastDelta());
    if (v.fire) {
      v.summary = fmt::format("{} port {}: {:.0f} excessive buffer overrun errors (receive buffer overflowed)",
                              p.device, p.port, s->lastDelta());
    }
  }
  ctx.observe("excessive_buffer_overrun", Severity::kCritical,
                      Subject{p.device, p.port, p.interface, {}}, Policy{}, v);
}

void evaluateLosslessDrop(RuleContext& ctx, const LosslessDropRule& /*rule*/) {
  // The lossless priority exists on RoCE interfaces and wherever PFC is on for it.
  for (const IfaceRef& in : ctx.subjects.interfaces()) {
    const Tracked* pfc = in.in(Fam::kPfcEnabled, ctx.rocePriority);
    if ((pfc != nullptr && pfc->raw != 0) ||
        std::any_of(in.ports.begin(), in.ports.end(), [](const PortRef* p) { return p->roce(); })) {
      priorityDiscards(ctx, in);
    }
  }
  for (const PortRef& p : ctx.subjects.ports()) bufferOverrun(ctx, p);
}

void planLosslessDrop(const LosslessDropRule& /*rule*/, EnginePlan& /*plan*/) {}

}  // namespace

const RuleDef kLosslessDropRule =
    defineRule<LosslessDropRule, planLosslessDrop, evaluateLosslessDrop>("lossless_drop",
                                                                         "roce_loss");

}  // namespace fabricmon::watchdog
