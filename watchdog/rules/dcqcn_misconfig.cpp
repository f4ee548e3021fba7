// dcqcn_misconfig: the node's QoS compared with the intent in `qos:` (config gauges), and the DCQCN
// counter signatures of NVIDIA's RoCE troubleshooting notes (docs/rules.md, dcqcn_misconfig).
#include <algorithm>
#include <vector>
#include <string>

#include <fmt/format.h>

#include "watchdog/rules/dcqcn_misconfig.hpp"
#include "watchdog/rules/pause_storm.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

/// Sum of one counter family's increase over the window across the ports behind an interface.
struct WindowSum {
  double increase = 0;
  bool judged = false;  ///< at least one series covered the whole window
  Nanos stamp = kNever;
};

WindowSum sumOver(const RuleContext& ctx, Fam fam, const std::vector<const PortRef*>& ports, Nanos window) {
  WindowSum out;
  for (const PortRef* p : ports) {
    const Tracked* s = p->in(fam);
    if (!ctx.ready(s)) continue;
    auto w = s->over(window);
    if (!w.full) continue;
    out.increase += w.increase;
    out.judged = true;
    out.stamp = std::max(out.stamp, s->t);
  }
  return out;
}

WindowSum seriesOver(const RuleContext& ctx, const Tracked* s, Nanos window) {
  WindowSum out;
  if (!ctx.ready(s)) return out;
  auto w = s->over(window);
  if (!w.full) return out;
  out.increase = w.increase;
  out.judged = true;
  out.stamp = s->t;
  return out;
}

void report(RuleContext& ctx, std::string_view reason, std::string_view interface, std::string_view priority,
            Verdict& v, unsigned forSamples = 1) {
  v.clear = !v.fire;
  ctx.observe(reason, Severity::kWarning, Subject{{}, {}, interface, priority},
                      Policy{forSamples, 0, 0}, v);
}

/// A 0/1 config gauge that should read 1.
void gaugeOff(const RuleContext& ctx, const Tracked* g, Verdict& v, std::string_view name) {
  if (!ctx.ready(g)) return;
  v.judged = true;
  v.stamp = std::max(v.stamp, g->t);
  v.evidence.add(name, g->raw);
  if (g->raw == 0) v.fire = true;
}

void npDisabled(RuleContext& ctx, const IfaceRef& in, Nanos window) {
  const std::string_view iface = in.name;
  const auto& ports = in.ports;
  Verdict v;
  gaugeOff(ctx, in.in(Fam::kNpEnabled, ctx.rocePriority), v, "np_enabled");
  bool configOff = v.fire;
  auto marks = sumOver(ctx, Fam::kRoceEcnMarked, ports, window);
  auto cnps = sumOver(ctx, Fam::kRoceCnpSent, ports, window);
  if (marks.judged && cnps.judged) {
    v.judged = true;
    v.stamp = std::max({v.stamp, marks.stamp, cnps.stamp});
    v.evidence.add("ecn_marked_packets", marks.increase);
    v.evidence.add("cnp_sent", cnps.increase);
    if (marks.increase >= ctx.settings<DcqcnMisconfigRule>().minSignaturePackets && cnps.increase == 0) v.fire = true;
  }
  if (v.fire) {
    v.summary = configOff ? fmt::format("{}: ECN notification point disabled on RoCE priority {}", iface,
                                        ctx.rocePriority)
                          : fmt::format("{}: {:.0f} ECN-marked packets arrived in {:.0f}s but no CNP was sent", iface,
                                        marks.increase, double(window) / kSecond);
  }
  report(ctx, "np_disabled", iface, ctx.rocePriority, v);
}

void rpDisabled(RuleContext& ctx, const IfaceRef& in, Nanos window) {
  const std::string_view iface = in.name;
  const auto& ports = in.ports;
  Verdict v;
  gaugeOff(ctx, in.in(Fam::kRpEnabled, ctx.rocePriority), v, "rp_enabled");
  bool configOff = v.fire;
  auto ignored = sumOver(ctx, Fam::kRoceCnpIgnored, ports, window);
  auto handled = sumOver(ctx, Fam::kRoceCnpHandled, ports, window);
  if (ignored.judged && handled.judged) {
    v.judged = true;
    v.stamp = std::max({v.stamp, ignored.stamp, handled.stamp});
    v.evidence.add("cnp_ignored", ignored.increase);
    v.evidence.add("cnp_handled", handled.increase);
    if (ignored.increase >= ctx.settings<DcqcnMisconfigRule>().minSignaturePackets && handled.increase == 0) v.fire = true;
  }
  if (v.fire) {
    v.summary = configOff ? fmt::format("{}: ECN reaction point disabled on RoCE priority {}", iface,
                                        ctx.rocePriority)
                          : fmt::format("{}: {:.0f} CNPs ignored and none handled in {:.0f}s", iface,
                                        ignored.increase, double(window) / kSecond);
  }
  report(ctx, "rp_disabled", iface, ctx.rocePriority, v);
}

void pfcWithoutEcn(RuleContext& ctx, const IfaceRef& in, Nanos window) {
  const std::string_view iface = in.name;
  const auto& ports = in.ports;
  const auto& rule = ctx.settings<DcqcnMisconfigRule>();
  Verdict v;
  double fraction = -1;
  for (std::string_view dir : {"rx", "tx"}) {
    const Tracked* s = in.in(Fam::kPauseSeconds, ctx.rocePriority, dir);
    if (!ctx.ready(s)) continue;
    auto w = s->over(window);
    if (!w.full || w.seconds <= 0) continue;
    // Storm intervals are pause_storm's finding: left out of the window, pause and time alike.
    const Nanos start = s->t - static_cast<Nanos>(w.seconds * kSecond);
    auto storm = ctx.storms.claimed(iface, ctx.rocePriority, dir, start, s->t);
    const double seconds = w.seconds - storm.seconds;
    if (seconds < w.seconds / 2) continue;  // mostly storm: nothing left to judge ECN by
    // Where a storm began and ended, one NIC refresh on either side is part storm and part not:
    // that much pause is the storm's too.
    const double edges =
        storm.seconds > 0 ? 2 * double(std::max(s->judged().refresh, s->judged().poll)) / kSecond : 0;
    fraction = std::max(fraction, std::clamp((w.increase - storm.pauseSeconds - edges) / seconds, 0.0, 1.0));
    v.stamp = std::max(v.stamp, s->t);
  }
  auto marks = sumOver(ctx, Fam::kRoceEcnMarked, ports, window);
  auto prioMarks = seriesOver(ctx, in.in(Fam::kPrioEcnMarked, ctx.rocePriority), window);
  auto sent = sumOver(ctx, Fam::kRoceCnpSent, ports, window);
  auto handled = sumOver(ctx, Fam::kRoceCnpHandled, ports, window);
  // "Not one ECN mark" needs an ECN counter that watched the whole window.
  bool ecnKnown = marks.judged || prioMarks.judged;
  if (fraction >= 0 && ecnKnown) {
    v.judged = true;
    double ecn = marks.increase + prioMarks.increase;
    double cnp = sent.increase + handled.increase;
    // A priority paused at the storm threshold carries no traffic to mark: that is pause_storm's
    // finding, not a sign of ECN thresholds above XOFF.
    const bool storm = fraction >= ctx.settings<PauseStormRule>().pauseFraction;
    v.fire = fraction > rule.pfcWithoutEcnPauseFraction && !storm && ecn == 0 && cnp == 0;
    v.evidence.add("pause_fraction", fraction);
    v.evidence.add("ecn_marked_packets", ecn);
    v.evidence.add("cnps", cnp);
    v.evidence.add("threshold", rule.pfcWithoutEcnPauseFraction);
    if (v.fire) {
      v.summary = fmt::format(
          "{} priority {}: paused {:.1f}% of {:.0f}s outside storms with no ECN mark and no CNP (switch ECN "
          "threshold above PFC XOFF?)",
          iface, ctx.rocePriority, std::min(fraction, 1.0) * 100, double(window) / kSecond);
    }
  }
  // A storm is recognised one or two NIC refreshes after it began; until then its first interval
  // is still counted here. Waiting that long keeps its onset from being reported as this.
  Nanos refresh = 0;
  for (std::string_view dir : {"rx", "tx"}) {
    if (const Tracked* s = in.in(Fam::kPauseSeconds, ctx.rocePriority, dir)) {
      refresh = std::max({refresh, s->judged().refresh, s->judged().poll});
    }
  }
  v.clear = !v.fire;
  ctx.observe("pfc_without_ecn", Severity::kWarning, Subject{{}, {}, iface, ctx.rocePriority},
                      Policy{1, std::max<Nanos>(3 * refresh, 2 * kSecond), 0}, v);
}

const Tracked* parameter(const IfaceRef& in, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (const Tracked* s = in.in(Fam::kDcqcnParameter, "np", name)) return s;
  }
  return nullptr;
}

void cnpPriorityMismatch(RuleContext& ctx, const IfaceRef& in, bool trustDscp) {
  const std::string_view iface = in.name;
  const auto& qos = ctx.qos;
  Verdict v;
  auto check = [&](const Tracked* s, double want, std::string_view name) {
    if (!ctx.ready(s)) return;
    v.judged = true;
    v.stamp = std::max(v.stamp, s->t);
    v.evidence.add(name, s->raw);
    if (s->raw != want) v.fire = true;
  };
  check(parameter(in, {"cnp_802p_prio", "np_cnp_prio"}), qos.cnpPriority, "cnp_priority");
  check(parameter(in, {"cnp_dscp", "np_cnp_dscp"}), qos.cnpDscp, "cnp_dscp");
  if (trustDscp) {
    check(in.in(Fam::kDscpPriority, fmt::format_int(qos.cnpDscp).c_str()), qos.cnpPriority, "cnp_dscp_priority");
  }
  if (v.fire) {
    v.summary = fmt::format("{}: CNPs are not sent as intended (DSCP {} on priority {})", iface, qos.cnpDscp,
                            qos.cnpPriority);
  }
  report(ctx, "cnp_priority_mismatch", iface, ctx.cnpPriority, v);
}

void pfcPriorityMismatch(RuleContext& ctx, const IfaceRef& in, bool trustDscp, Nanos window) {
  const std::string_view iface = in.name;
  const auto& qos = ctx.qos;
  Verdict v;
  double mask = 0;
  bool any = false;
  static constexpr std::string_view kPriorities[] = {"0", "1", "2", "3", "4", "5", "6", "7"};
  for (unsigned p = 0; p < 8; ++p) {
    const Tracked* s = in.in(Fam::kPfcEnabled, kPriorities[p]);
    if (!ctx.ready(s)) continue;
    any = true;
    v.stamp = std::max(v.stamp, s->t);
    if (s->raw != 0) mask += double(1u << p);
    if ((s->raw != 0) != (p == qos.rocePriority)) v.fire = true;
  }
  if (any) {
    v.judged = true;
    v.evidence.add("pfc_enabled_mask", mask);
    v.evidence.add("expected_mask", double(1u << qos.rocePriority));
  }
  if (trustDscp) {
    const Tracked* m = in.in(Fam::kDscpPriority, fmt::format_int(qos.roceDscp).c_str());
    if (ctx.ready(m)) {
      v.judged = true;
      v.stamp = std::max(v.stamp, m->t);
      v.evidence.add("roce_dscp_priority", m->raw);
      if (m->raw != qos.rocePriority) v.fire = true;
    }
  }
  if (v.fire) {
    v.summary = fmt::format("{}: PFC is not enabled on exactly the RoCE priority {} (or DSCP {} maps elsewhere)",
                            iface, qos.rocePriority, qos.roceDscp);
  }
  report(ctx, "pfc_priority_mismatch", iface, ctx.rocePriority, v);

  // Pause on a priority that should carry none: the traffic is classified onto the wrong priority.
  std::vector<std::string_view> others;
  for (const Tracked* s : in.inputs.all(Fam::kPauseSeconds)) {
    const std::string_view prio = in.inputs.label(*s);
    if (prio != ctx.rocePriority && (others.empty() || others.back() != prio)) others.push_back(prio);
  }
  for (std::string_view prio : others) {
    Verdict w;
    for (std::string_view dir : {"rx", "tx"}) {
      const Tracked* s = in.in(Fam::kPauseSeconds, prio, dir);
      if (!ctx.ready(s)) continue;
      w.judged = true;
      w.stamp = std::max(w.stamp, s->t);
      if (s->lastDelta() > 0) w.fire = true;
      w.evidence.add(dir == "rx" ? "rx_pause_seconds" : "tx_pause_seconds", s->lastDelta());
    }
    if (w.fire) {
      w.summary = fmt::format("{}: PFC pause on priority {}, which should carry none (RoCE is on {})", iface, prio,
                              qos.rocePriority);
    }
    bool quiet = true;
    for (std::string_view dir : {"rx", "tx"}) {
      const Tracked* s = in.in(Fam::kPauseSeconds, prio, dir);
      if (s != nullptr && s->increasedWithin(window)) quiet = false;
    }
    w.clear = quiet;
    ctx.observe("pfc_priority_mismatch", Severity::kWarning, Subject{{}, {}, iface, prio}, Policy{},
                        w);
  }
}

void trustNotDscp(RuleContext& ctx, const IfaceRef& in) {
  const std::string_view iface = in.name;
  Verdict v;
  const Tracked* t = in.in(Fam::kTrustDscp);
  if (ctx.ready(t)) {
    v.judged = true;
    v.stamp = t->t;
    v.fire = t->raw == 0;
    v.evidence.add("trust_dscp", t->raw);
    if (v.fire) v.summary = fmt::format("{}: trust mode is pcp; RoCE QoS relies on DSCP", iface);
  }
  report(ctx, "trust_not_dscp", iface, {}, v);
}

void evaluateDcqcnMisconfig(RuleContext& ctx, const DcqcnMisconfigRule& rule) {
  const Nanos window = toNanos(rule.window);
  // Only interfaces that carry RoCE: a management NIC's QoS is none of this rule's business.
  for (const IfaceRef& in : ctx.subjects.interfaces()) {
    if (std::none_of(in.ports.begin(), in.ports.end(), [](const PortRef* p) { return p->roce(); })) continue;
    const Tracked* trust = in.in(Fam::kTrustDscp);
    // The DSCP map only matters when the NIC classifies by DSCP; unknown trust is taken as dscp.
    bool trustDscp = trust == nullptr || trust->raw != 0;
    if (ctx.qos.dcqcnEnabled) {
      npDisabled(ctx, in, window);
      rpDisabled(ctx, in, window);
      pfcWithoutEcn(ctx, in, window);
      cnpPriorityMismatch(ctx, in, trustDscp);
    }
    pfcPriorityMismatch(ctx, in, trustDscp, window);
    trustNotDscp(ctx, in);
  }
}

void planDcqcnMisconfig(const DcqcnMisconfigRule& rule, EnginePlan& plan) {
  needHistory(plan,
              {Fam::kPauseSeconds, Fam::kRoceEcnMarked, Fam::kRoceCnpSent, Fam::kRoceCnpHandled, Fam::kRoceCnpIgnored,
               Fam::kPrioEcnMarked},
              rule.window);
  plan.stormWindow = std::max(plan.stormWindow, toNanos(rule.window));
}

}  // namespace

const RuleDef kDcqcnMisconfigRule =
    defineRule<DcqcnMisconfigRule, planDcqcnMisconfig, evaluateDcqcnMisconfig>("dcqcn_misconfig",
                                                                               "qos_config");

}  // namespace fabricmon::watchdog
