// lossless_class_shared: traffic other than RDMA on the lossless (RoCE) priority. PFC should protect
// RDMA only; bulk TCP classified onto the RoCE priority shares its buffers and turns it into a pause
// generator (TCP has its own loss recovery and never needed lossless service). Two signs:
//   non_rdma_bytes: the priority's bytes minus the RDMA bytes of the vport, over a window (mlx5:
//     rx|tx_prio<N>_bytes and rx|tx_vport_rdma_unicast_bytes, drivers/net/ethernet/mellanox/mlx5/
//     core/en_stats.c; docs/rules.md says which vendors expose both);
//   dscp_map: DSCP values other than the RoCE DSCP (and its class-selector group, where the mlx5
//     default trust-dscp map puts them) mapped to the lossless priority in the DCB APP table.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "watchdog/rules/lossless_class_shared.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

void nonRdmaBytes(RuleContext& ctx, const IfaceRef& in) {
  const std::string_view iface = in.name;
  const auto& rule = ctx.settings<LosslessClassSharedRule>();
  const Nanos window = toNanos(rule.window);
  Verdict v;
  double worst = 0;
  for (std::string_view dir : {"rx", "tx"}) {
    const Tracked* prio =
        in.in(dir == "rx" ? Fam::kPrioRxBytes : Fam::kPrioTxBytes, ctx.rocePriority);
    const Tracked* rdma = in.in(Fam::kRdmaVportBytes, dir);
    if (!ctx.rated(prio) || !ctx.rated(rdma)) continue;
    const auto wp = prio->over(window);
    const auto wr = rdma->over(window);
    // Both windows whole: a share of a part window would compare unequal spans.
    if (!wp.full || !wr.full || wp.seconds <= 0) continue;
    v.judged = true;
    v.stamp = std::max({v.stamp, prio->t, rdma->t});
    const double rate = wp.increase / wp.seconds;
    // The vport's RDMA bytes include RDMA on other priorities (CNPs on the CNP priority): the
    // difference can only under-count what is not RDMA, never invent it.
    const double share = rate >= rule.minBytesPerSecond ? std::max(0.0, wp.increase - wr.increase) / wp.increase : 0;
    v.evidence.add(dir == "rx" ? "rx_non_rdma_share" : "tx_non_rdma_share", share);
    v.evidence.add(dir == "rx" ? "rx_priority_bytes_per_second" : "tx_priority_bytes_per_second", rate);
    if (share > rule.maxNonRdmaShare && share > worst) worst = share;
  }
  v.fire = worst > 0;
  v.clear = !v.fire;
  v.evidence.add("threshold", rule.maxNonRdmaShare);
  if (v.fire) {
    v.summary = fmt::format("{} priority {}: {:.0f}% of the lossless priority's bytes over {:.0f}s are not RDMA "
                            "(other traffic classified onto the RoCE priority)",
                            iface, ctx.rocePriority, worst * 100, double(window) / kSecond);
  }
  ctx.observe("non_rdma_bytes", Severity::kWarning, Subject{{}, {}, iface, ctx.rocePriority}, Policy{},
                      v);
}

void dscpMap(RuleContext& ctx, const IfaceRef& in) {
  const std::string_view iface = in.name;
  const auto& rule = ctx.settings<LosslessClassSharedRule>();
  const Tracked* trust = in.in(Fam::kTrustDscp);
  // With trust pcp the DSCP map classifies nothing (dcqcn_misconfig's trust_not_dscp says so).
  if (trust != nullptr && trust->raw == 0) return;
  std::set<unsigned> allowed{ctx.qos.roceDscp};
  if (rule.allowedDscps) {
    allowed.insert(rule.allowedDscps->begin(), rule.allowedDscps->end());
  } else {
    for (unsigned d = ctx.qos.roceDscp & ~7u; d < (ctx.qos.roceDscp & ~7u) + 8; ++d) allowed.insert(d);
  }
  Verdict v;
  std::string others;
  double count = 0;
  double lowest = -1;
  for (const Tracked* s : in.inputs.all(Fam::kDscpPriority)) {
    if (!ctx.ready(s)) continue;
    v.judged = true;
    v.stamp = std::max(v.stamp, s->t);
    if (s->raw != ctx.qos.rocePriority) continue;
    unsigned dscp = 0;
    const std::string_view label = in.inputs.label(*s);
    for (char c : label) dscp = dscp * 10 + unsigned(c - '0');
    if (allowed.count(dscp)) continue;
    ++count;
    if (lowest < 0 || dscp < lowest) lowest = dscp;
    if (!others.empty()) others += ',';
    others += label;
  }
  v.fire = count > 0;
  v.clear = !v.fire;
  v.evidence.add("other_dscps", count);
  if (count > 0) v.evidence.add("lowest_other_dscp", lowest);
  if (v.fire) {
    v.summary = fmt::format("{}: DSCP {} mapped to lossless priority {} besides the RoCE DSCP {}", iface, others,
                            ctx.rocePriority, ctx.qos.roceDscp);
  }
  ctx.observe("dscp_map", Severity::kWarning, Subject{{}, {}, iface, ctx.rocePriority}, Policy{}, v);
}

}  // namespace

void evaluateLosslessClassShared(RuleContext& ctx, const LosslessClassSharedRule& /*rule*/) {
  for (const IfaceRef& in : ctx.subjects.interfaces()) {
    if (std::none_of(in.ports.begin(), in.ports.end(), [](const PortRef* p) { return p->roce(); })) continue;
    nonRdmaBytes(ctx, in);
    dscpMap(ctx, in);
  }
}

namespace {

void planLosslessClassShared(const LosslessClassSharedRule& rule, EnginePlan& plan) {
  needHistory(plan, {Fam::kPrioRxBytes, Fam::kPrioTxBytes, Fam::kRdmaVportBytes}, rule.window);
}

}  // namespace

const RuleDef kLosslessClassSharedRule =
    defineRule<LosslessClassSharedRule, planLosslessClassShared, evaluateLosslessClassShared>(
        "lossless_class_shared", "qos_config");

}  // namespace fabricmon::watchdog
