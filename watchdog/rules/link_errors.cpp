// link_errors: physical-layer error counters above the per-hour limits of infiniband-diags'
// etc/error_thresholds, and an estimated post-FEC bit error rate above the 1e-12 target.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "watchdog/rules/link_errors.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

constexpr double kHour = 3600;

struct Count {
  bool judged = false;
  double errors = 0;
  double seconds = 0;
  bool full = false;
  Nanos stamp = kNever;
};

// Sources that count the same errors (PMA symbol_error, mlx5 rx_symbol_err_phy, and the symbol
// errors the FEC did not correct: mlx5 rx_pcs_symbol_err_phy, bnxt_en rx_pcs_symbol_err, the one
// such count a bnxt_en port has): the larger wins; of equal counts, the one observed longer (a
// counter that appeared late must not leave the BER unjudged).
Count countOver(const RuleContext& ctx, std::initializer_list<const Tracked*> sources, Nanos window) {
  Count c;
  for (const Tracked* s : sources) {
    if (!ctx.ready(s)) continue;
    auto w = s->over(window);
    c.judged = true;
    c.stamp = std::max(c.stamp, s->t);
    if (w.increase > c.errors || (w.increase == c.errors && w.seconds >= c.seconds)) {
      c.errors = w.increase;
      c.seconds = w.seconds;
      c.full = w.full;
    }
  }
  return c;
}

void limitCheck(RuleContext& ctx, const Subject& subject, std::string_view reason, double perHour, Count c,
                Nanos window) {
  Verdict v;
  const double limit = perHour * (double(window) / kSecond) / kHour;
  v.judged = c.judged;
  v.stamp = c.stamp;
  // A count above the limit is above it whatever part of the window was observed.
  v.fire = c.errors > limit;
  v.clear = !v.fire;
  v.evidence.add("errors", c.errors);
  v.evidence.add("observed_seconds", c.seconds);
  v.evidence.add("limit", limit);
  v.evidence.add("window_seconds", double(window) / kSecond);
  if (v.fire) {
    v.summary = fmt::format("{}{}{}: {:.0f} {} in {:.0f}s (limit {:g} per {:.0f}s)",
                            subject.interface.empty() ? subject.device : subject.interface,
                            subject.port.empty() ? "" : " port ", subject.port, c.errors, reason, c.seconds, limit,
                            double(window) / kSecond);
  }
  ctx.observe(reason, Severity::kWarning, subject, Policy{}, v);
}

void berCheck(RuleContext& ctx, const Subject& subject, Count c, const Tracked* rate) {
  const auto& rule = ctx.settings<LinkErrorsRule>();
  Verdict v;
  // Judged over a fully observed window only, at a known line rate.
  if (c.judged && c.full && ctx.ready(rate) && rate->raw > 0 && c.seconds > 0) {
    v.judged = true;
    v.stamp = std::max(c.stamp, rate->t);
    double bits = rate->raw * 8 * c.seconds;
    double ber = c.errors / bits;
    v.fire = ber > rule.berLimit;
    v.clear = !v.fire;
    v.evidence.add("ber", ber);
    v.evidence.add("errors", c.errors);
    v.evidence.add("bits", bits);
    v.evidence.add("limit", rule.berLimit);
    if (v.fire) {
      v.summary = fmt::format("{}{}{}: estimated post-FEC BER {:.2g} over {:.0f}s (limit {:g})",
                              subject.interface.empty() ? subject.device : subject.interface,
                              subject.port.empty() ? "" : " port ", subject.port, ber, c.seconds, rule.berLimit);
    }
  }
  ctx.observe("ber", Severity::kWarning, subject, Policy{}, v);
}

/// The same limits on the neighbour's port facing us (its counters over MADs, peer_port): errors
/// it receives are errors of what we send, on our lanes or on the cable.
void peerSide(RuleContext& ctx, const LinkErrorsRule& rule, const PortRef& p, const Subject& subject, Nanos window,
              Nanos berWindow) {
  Subject peer = subject;
  peer.side = "peer";
  const Tracked* symbol = p.in(Fam::kPeerSymbolErrors);
  limitCheck(ctx, peer, "symbol_errors", rule.symbolErrorsPerHour, countOver(ctx, {symbol}, window), window);
  limitCheck(ctx, peer, "link_error_recovery", rule.linkErrorRecoveryPerHour,
             countOver(ctx, {p.in(Fam::kPeerLinkErrorRecovery)}, window), window);
  limitCheck(ctx, peer, "receive_errors", rule.receiveErrorsPerHour,
             countOver(ctx, {p.in(Fam::kPeerReceiveErrors)}, window), window);
  limitCheck(ctx, peer, "local_link_integrity_errors", rule.localLinkIntegrityErrorsPerHour,
             countOver(ctx, {p.in(Fam::kPeerPortCounter, "local_link_integrity_errors")}, window),
             window);
  berCheck(ctx, peer, countOver(ctx, {symbol}, berWindow), p.in(Fam::kPortRate));
}

void evaluateLinkErrors(RuleContext& ctx, const LinkErrorsRule& rule) {
  const Nanos window = toNanos(rule.window);
  const Nanos berWindow = toNanos(rule.berWindow);
  for (const PortRef& p : ctx.subjects.ports()) {
    // On InfiniBand either end of the cable can see the errors: the finding says which.
    Subject subject{p.device, p.port, p.interface, {}, p.linkLayer == "InfiniBand" ? "local" : ""};
    const Tracked* pmaSymbol = p.in(Fam::kSymbolErrors);
    const Tracked* phySymbol = p.ifaceIn(Fam::kPhySymbolErrors);
    const Tracked* pcsSymbol = p.ifaceIn(Fam::kPhyPcsSymbolErrors);
    limitCheck(ctx, subject, "symbol_errors", rule.symbolErrorsPerHour,
               countOver(ctx, {pmaSymbol, phySymbol, pcsSymbol}, window), window);
    limitCheck(ctx, subject, "link_error_recovery", rule.linkErrorRecoveryPerHour,
               countOver(ctx, {p.in(Fam::kLinkErrorRecovery)}, window), window);
    limitCheck(ctx, subject, "receive_errors", rule.receiveErrorsPerHour,
               countOver(ctx, {p.in(Fam::kReceiveErrors)}, window), window);
    limitCheck(ctx, subject, "local_link_integrity_errors", rule.localLinkIntegrityErrorsPerHour,
               countOver(ctx, {p.in(Fam::kPortCounter, "local_link_integrity_errors")}, window),
               window);
    berCheck(ctx, subject, countOver(ctx, {pmaSymbol, phySymbol, pcsSymbol}, berWindow), p.in(Fam::kPortRate));
    if (p.linkLayer == "InfiniBand") peerSide(ctx, rule, p, subject, window, berWindow);
  }
  // Interfaces without an RDMA port: only the PHY counters, and no line rate for a BER.
  for (const IfaceRef& iface : ctx.subjects.interfaces()) {
    const Tracked* phy = iface.in(Fam::kPhySymbolErrors);
    const Tracked* pcs = iface.in(Fam::kPhyPcsSymbolErrors);
    if ((phy == nullptr && pcs == nullptr) || iface.port != nullptr) continue;
    limitCheck(ctx, Subject{{}, {}, iface.name, {}}, "symbol_errors", rule.symbolErrorsPerHour,
               countOver(ctx, {phy, pcs}, window), window);
  }
}

void planLinkErrors(const LinkErrorsRule& rule, EnginePlan& plan) {
  needHistory(plan,
              {Fam::kSymbolErrors, Fam::kPhySymbolErrors, Fam::kPhyPcsSymbolErrors, Fam::kLinkErrorRecovery,
               Fam::kReceiveErrors,
               Fam::kPortCounter, Fam::kPeerSymbolErrors, Fam::kPeerLinkErrorRecovery, Fam::kPeerReceiveErrors,
               Fam::kPeerPortCounter},
              rule.window);
  needHistory(plan, {Fam::kSymbolErrors, Fam::kPhySymbolErrors, Fam::kPhyPcsSymbolErrors, Fam::kPeerSymbolErrors},
              rule.berWindow);
}

}  // namespace

const RuleDef kLinkErrorsRule =
    defineRule<LinkErrorsRule, planLinkErrors, evaluateLinkErrors>("link_errors", "link");

}  // namespace fabricmon::watchdog
