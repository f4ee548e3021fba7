// roce_packet_loss: the RoCE transport's own loss signals (mlx5 Q-counters): sequence-error NAKs,
// local ACK timeouts and adaptive retransmissions. Out-of-sequence packets alone are reordering, not
// loss: with adaptive routing (InfiniBand NDR, Spectrum-X and other modern RoCE fabrics spray one
// flow's packets over several paths) they arrive out of order and are put back in order by the
// NIC; only a NAK, a timeout or a retransmission says a packet was lost. Fabrics without adaptive
// routing can count them as loss again (out_of_sequence_alone_is_loss).
#include <algorithm>

#include <fmt/format.h>

#include "watchdog/rules/roce_packet_loss.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

/// Since when the port has been up: loss counted while it was down, or while it came back, belongs
/// to link_flap. kNever when the port state is unknown.
Nanos upSince(const PortRef& p) {
  const Tracked* state = p.in(Fam::kPortState);
  if (state == nullptr) return kNever;
  return state->changedT;
}

void retransmissions(RuleContext& ctx, const PortRef& p, const Subject& subject, Nanos settledAt) {
  const auto& rule = ctx.settings<RocePacketLossRule>();
  const Nanos window = toNanos(rule.window);
  struct Src {
    const Tracked* s;
    std::string_view name;
  };
  const Tracked* outOfSequence = p.in(Fam::kRoceOutOfSequence);
  const Src sources[] = {
      {outOfSequence, "out_of_sequence"},
      {p.in(Fam::kRoceSeqErrors), "packet_seq_err"},
      {p.in(Fam::kRoceLocalAckTimeouts), "local_ack_timeout_err"},
      {p.in(Fam::kHwCounter, "roce_adp_retrans"), "roce_adp_retrans"},
  };
  Verdict v;
  bool rising = false;
  for (const auto& src : sources) {
    if (!ctx.ready(src.s)) continue;
    v.judged = true;
    v.stamp = std::max(v.stamp, src.s->t);
    auto w = src.s->over(window);
    v.evidence.add(src.name, w.increase);
    const bool reorderOnly = src.s == outOfSequence && !rule.outOfSequenceAloneIsLoss;
    if (!reorderOnly && src.s->increasedWithin(window) && src.s->lastIncreaseT > settledAt) rising = true;
  }
  if (ctx.portDown(p)) rising = false;
  v.fire = rising;
  v.clear = !rising;
  v.evidence.add("window_seconds", double(window) / kSecond);
  if (v.fire) {
    v.summary = fmt::format("{} port {}: RoCE loss counters (sequence-error NAKs, ACK timeouts or retransmissions) "
                            "rising within the last {:.0f}s",
                            p.device, p.port, double(window) / kSecond);
  }
  ctx.observe("retransmissions", Severity::kWarning, subject, Policy{}, v);
}

void ackTimeouts(RuleContext& ctx, const PortRef& p, const Subject& subject, Nanos upAt) {
  const auto& rule = ctx.settings<RocePacketLossRule>();
  const Nanos window = toNanos(rule.criticalWindow);
  const Tracked* s = p.in(Fam::kRoceLocalAckTimeouts);
  Verdict v;
  if (ctx.ready(s)) {
    auto w = s->over(window);
    // The whole measured span must lie after the port came up.
    bool settled = upAt == kNever || s->t - Nanos(w.seconds * kSecond) >= upAt;
    if (w.full && w.seconds > 0 && settled && !ctx.portDown(p)) {
      v.judged = true;
      v.stamp = s->t;
      double rate = w.increase / w.seconds;
      v.fire = rate > rule.localAckTimeoutCriticalPerSecond;
      v.clear = !v.fire;
      v.evidence.add("local_ack_timeouts_per_second", rate);
      v.evidence.add("window_seconds", w.seconds);
      v.evidence.add("threshold", rule.localAckTimeoutCriticalPerSecond);
      if (v.fire) {
        v.summary = fmt::format("{} port {}: {:.1f} local ACK timeouts/s over {:.0f}s (limit {:g}/s)", p.device,
                                p.port, rate, w.seconds, rule.localAckTimeoutCriticalPerSecond);
      }
    } else if (ctx.portDown(p)) {
      v.judged = true;
      v.stamp = s->t;
      v.clear = true;
    }
  }
  ctx.observe("local_ack_timeouts", Severity::kCritical, subject, Policy{}, v);
}

void evaluateRocePacketLoss(RuleContext& ctx, const RocePacketLossRule& rule) {
  const Nanos settle = toNanos(rule.criticalWindow);
  for (const PortRef& p : ctx.subjects.ports()) {
    Subject subject{p.device, p.port, p.interface, {}};
    Nanos upAt = upSince(p);
    retransmissions(ctx, p, subject, upAt == kNever ? kNever : upAt + settle);
    ackTimeouts(ctx, p, subject, upAt);
  }
}

void planRocePacketLoss(const RocePacketLossRule& rule, EnginePlan& plan) {
  needHistory(plan, {Fam::kRoceOutOfSequence, Fam::kRoceSeqErrors, Fam::kRoceLocalAckTimeouts, Fam::kHwCounter},
              rule.window);
  needHistory(plan, {Fam::kRoceLocalAckTimeouts}, rule.criticalWindow);
}

}  // namespace

const RuleDef kRocePacketLossRule =
    defineRule<RocePacketLossRule, planRocePacketLoss, evaluateRocePacketLoss>("roce_packet_loss",
                                                                               "roce_loss");

}  // namespace fabricmon::watchdog
