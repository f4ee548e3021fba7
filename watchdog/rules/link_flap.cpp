// link_flap: repeated link-down events on one port, counted by whichever source sees them
// (carrier down count, PMA link_downed, mlx5 link_down_events_phy); they count the same events,
// so the largest count wins rather than the sum.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "watchdog/rules/link_flap.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

struct Source {
  const Tracked* series;
  std::string_view name;
  double perEvent;  ///< counter increments per down event
};

void judgeSubject(RuleContext& ctx, const Subject& subject, std::initializer_list<Source> sources) {
  const auto& rule = ctx.settings<LinkFlapRule>();
  const Nanos window = toNanos(rule.window);
  const Nanos quiet = toNanos(rule.quiet);
  Verdict v;
  double downs = 0;
  Nanos lastDown = kNever;
  Nanos latest = kNever;
  for (const Source& src : sources) {
    if (!ctx.ready(src.series)) continue;
    v.judged = true;
    latest = std::max(latest, src.series->t);
    auto w = src.series->over(window);
    double events = std::ceil(w.increase / src.perEvent);
    v.evidence.add(src.name, events);
    downs = std::max(downs, events);
    lastDown = std::max(lastDown, src.series->lastIncreaseT);
  }
  v.stamp = latest;
  v.fire = downs >= rule.downEvents;
  v.clear = lastDown == kNever || latest - lastDown >= quiet;
  v.evidence.add("down_events", downs);
  v.evidence.add("window_seconds", double(window) / kSecond);
  v.evidence.add("threshold", rule.downEvents);
  if (v.fire) {
    std::string_view what = !subject.interface.empty() ? subject.interface : subject.device;
    v.summary = fmt::format("{}{}{}: link went down {:.0f} times within {:.0f}s", what,
                            subject.port.empty() ? "" : " port ", subject.port, downs, double(window) / kSecond);
  }
  ctx.observe({}, Severity::kCritical, subject, Policy{}, v);
}

const Tracked* carrierDown(const IfaceRef* iface, double* perEvent) {
  *perEvent = 1;
  if (iface == nullptr) return nullptr;
  if (const Tracked* s = iface->in(Fam::kCarrierDownChanges)) return s;
  *perEvent = 2;  // carrier_changes counts both edges: one flap is a down and an up
  return iface->in(Fam::kCarrierChanges);
}

void evaluateLinkFlap(RuleContext& ctx, const LinkFlapRule& /*rule*/) {
  for (const PortRef& p : ctx.subjects.ports()) {
    double perEvent = 1;
    const Tracked* carrier = carrierDown(p.iface, &perEvent);
    const Tracked* phy = p.ifaceIn(Fam::kPhyLinkDown);
    const bool ib = p.infiniband();
    judgeSubject(ctx, Subject{p.device, p.port, p.interface, {}, ib ? "local" : ""},
                 {{p.in(Fam::kLinkDowned), "link_downed", 1},
                  {carrier, "carrier_down", perEvent},
                  {phy, "link_down_events_phy", 1},
                  {p.in(Fam::kLinkDownObserved), "down_observed", 1}});
    if (ib) {
      // The neighbour's port: its LinkDownedCounter, and the times the MAD poller lost it.
      judgeSubject(ctx, Subject{p.device, p.port, p.interface, {}, "peer"},
                   {{p.in(Fam::kPeerLinkDowned), "link_downed", 1},
                    {p.in(Fam::kPeerLinkDownObserved), "down_observed", 1}});
    }
  }
  // Interfaces without an RDMA port (netdev.include).
  for (const IfaceRef& iface : ctx.subjects.interfaces()) {
    if (iface.port != nullptr) continue;
    const Tracked* phy = iface.in(Fam::kPhyLinkDown);
    if (phy == nullptr && iface.in(Fam::kCarrierChanges) == nullptr && iface.in(Fam::kCarrierDownChanges) == nullptr) {
      continue;
    }
    double perEvent = 1;
    const Tracked* carrier = carrierDown(&iface, &perEvent);
    judgeSubject(ctx, Subject{{}, {}, iface.name, {}},
                 {{carrier, "carrier_down", perEvent}, {phy, "link_down_events_phy", 1}});
  }
}

void planLinkFlap(const LinkFlapRule& rule, EnginePlan& plan) {
  needHistory(plan,
              {Fam::kLinkDowned, Fam::kCarrierChanges, Fam::kCarrierDownChanges, Fam::kPhyLinkDown,
               Fam::kPeerLinkDowned, Fam::kLinkDownObserved, Fam::kPeerLinkDownObserved},
              rule.window);
}

}  // namespace

const RuleDef kLinkFlapRule =
    defineRule<LinkFlapRule, planLinkFlap, evaluateLinkFlap>("link_flap", "link");

}  // namespace fabricmon::watchdog
