// ib_congestion: the share of time an InfiniBand port had data to send and no credits, from
// PortXmitWait: Δticks × port time per tick / Δt. On our port (side=local) the fabric is slow to
// take our data; on the neighbour's port towards us (side=peer) we are the slow receiver — host,
// PCIe or GPU-memory back-pressure. docs/rules.md gives the tick length and its sources.
#include <algorithm>

#include <fmt/format.h>

#include "watchdog/rules/ib_congestion.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

void judge(RuleContext& ctx, const IbCongestionRule& rule, const PortRef& p, std::string_view side,
           const Tracked* wait) {
  const Tracked* rate = p.in(Fam::kPortRate);
  Subject subject{p.device, p.port, p.interface, {}, side};
  Verdict v;
  // A saturated counter has no rate (docs/metrics.md); a port without a rate has no time base.
  if (ctx.ready(wait) && !wait->saturated && ctx.ready(rate) && rate->raw > 0 && !ctx.portDown(p)) {
    const auto w = wait->over(toNanos(rule.window));
    if (w.seconds > 0) {
      const double fraction = std::clamp(w.increase * rule.bytesPerTick / (rate->raw * w.seconds), 0.0, 1.0);
      v.judged = true;
      v.stamp = std::max(wait->t, rate->t);
      v.fire = fraction > rule.fraction;
      v.clear = fraction < rule.clearFraction;
      v.evidence.add("wait_fraction", fraction);
      v.evidence.add("wait_ticks", w.increase);
      v.evidence.add("observed_seconds", w.seconds);
      v.evidence.add("bytes_per_tick", rule.bytesPerTick);
      v.evidence.add("rate_bytes_per_second", rate->raw);
      v.evidence.add("threshold", rule.fraction);
      if (v.fire) {
        v.summary = side == "peer"
                        ? fmt::format("{} port {}: the switch port towards us waited for credits {:.0f}% of the last "
                                      "{:.0f}s (this host is a slow receiver)",
                                      p.device, p.port, fraction * 100, w.seconds)
                        : fmt::format("{} port {}: waited for credits {:.0f}% of the last {:.0f}s (the fabric is slow "
                                      "to take our data)",
                                      p.device, p.port, fraction * 100, w.seconds);
      }
    }
  }
  ctx.observe({}, Severity::kWarning, subject, Policy{rule.forSamples, 0, 0}, v);
}

void evaluateIbCongestion(RuleContext& ctx, const IbCongestionRule& rule) {
  for (const PortRef& p : ctx.subjects.ports()) {
    if (p.linkLayer != "InfiniBand") continue;  // RoCE congestion is pause_storm's and DCQCN's business
    judge(ctx, rule, p, "local", p.in(Fam::kXmitWait));
    judge(ctx, rule, p, "peer", p.in(Fam::kPeerXmitWait));
  }
}

void planIbCongestion(const IbCongestionRule& rule, EnginePlan& plan) {
  needHistory(plan, {Fam::kXmitWait, Fam::kPeerXmitWait}, rule.window);
}

}  // namespace

const RuleDef kIbCongestionRule =
    defineRule<IbCongestionRule, planIbCongestion, evaluateIbCongestion>("ib_congestion",
                                                                         "ib_congestion");

}  // namespace fabricmon::watchdog
