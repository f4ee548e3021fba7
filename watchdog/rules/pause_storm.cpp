// pause_storm: the SONiC PFC watchdog's detector on the NIC's µs pause counters (or, on NICs that
// count pause frames but not pause time, its frame-count detector), the NIC's own storm-prevention
// events, and a lower-severity long-window pause fraction.
#include <algorithm>
#include <vector>
#include <tuple>

#include <fmt/format.h>

#include "watchdog/rules/pause_storm.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

struct Direction {
  bool judged = false;
  bool storming = false;
  bool quiet = true;
  bool undecided = false;  ///< just under the threshold with no progress: see kLatchSlack
  bool confirms = false;   ///< it read late what the undecided interval before it missed
  bool frames = false;     ///< judged from pause frame counts (no pause-time counter)
  double fraction = 0;     ///< pause time / interval, at most 1 (duration detector)
  double frameCount = 0;   ///< pause frames in the interval (frame detector)
  double progress = -1;    ///< packets the paused side moved in the interval; -1 = unknown
  double refresh = 0;      ///< seconds between the NIC's counter refreshes
  double seconds = 0;      ///< length of the judged interval
  Nanos stamp = kNever;
  Nanos from = kNever;
};

/// Packets the paused side moved within the pause counter's judged interval: the same NIC read,
/// whatever its refresh cadence. -1 when the node has no such counter.
double progressIn(const RuleContext& ctx, Fam fam, const IfaceRef& iface, std::string_view priority, Nanos from,
                  Nanos to) {
  const Tracked* p = iface.in(fam, priority);
  if (!ctx.ready(p)) return -1;
  if (!p->increasedIn(from, to)) return 0;
  return std::max({p->lastDelta(), p->judged().rateIncrease, 1.0});
}

void fill(Direction& d, const Tracked* s) {
  const RateJudgement& j = s->judged();
  d.judged = true;
  d.stamp = j.rateT;
  d.from = j.rateFromT;
  d.seconds = j.rateSeconds;
  d.refresh = double(j.refresh) / kSecond;
}

// A NIC latches its counters on its own clock (every 50 ms for fresh mlx5 ethtool stats, up to a
// refresh period for slow ones), so an interval of nothing but storm reads short by whatever the NIC
// latched late at its end, and the next one reads long by the same amount (History carries it). Up
// to this share under the threshold, with nothing moving on the paused side, an interval neither
// extends nor breaks a run of storm intervals; when the next one shows the missing part (the two
// together reach the threshold), both count. A true gap in the storm (traffic moved, or the pause
// stopped for longer than a latch lag) still breaks the run.
constexpr double kLatchSlack = 0.15;

void judgeIncomplete(const RuleContext& ctx, Direction& d, const IfaceRef& iface, std::string_view priority,
                     const Tracked* pause, Fam progressFam, bool linkDown, double threshold) {
  if (linkDown || d.progress > 0) return;
  const RateJudgement& j = pause->judged();
  if (!d.storming) {
    d.undecided = d.fraction >= threshold - kLatchSlack;
    return;
  }
  if (j.prevRateFromT == kNever || j.prevRateSeconds <= 0) return;
  const double before = j.prevRateIncrease / j.prevRateSeconds;
  if (before >= threshold || before < threshold - kLatchSlack) return;  // counted already, or a real gap
  const double both = (j.prevRateIncrease + j.rateIncrease + j.carry) /
                      (j.prevRateSeconds + j.rateSeconds);
  if (both < threshold) return;
  if (progressIn(ctx, progressFam, iface, priority, j.prevRateFromT, d.stamp) > 0) {
    return;
  }
  d.confirms = true;
}

// rx: we received pause, so our transmit on that priority is the paused side.
// tx: we sent it, so the peer's transmit (our receive) is the paused side.
Direction byDuration(const RuleContext& ctx, const IfaceRef& iface, std::string_view priority, const Tracked* pause,
                     Fam progressFam, bool linkDown) {
  Direction d;
  if (!ctx.rated(pause)) return d;
  const RateJudgement& j = pause->judged();
  fill(d, pause);
  // The history spreads a batched jump over the NIC's refresh interval: above 1 only by rounding.
  d.fraction = std::clamp(j.rate(), 0.0, 1.0);
  // A source that refreshes about once per poll shows one refresh period's worth in a poll that
  // came a little late: judged over the poll it would read short by the lateness.
  const double refresh = double(j.refresh) / kSecond;
  if (refresh > 0 && j.rateSeconds > refresh && j.rateSeconds < 1.5 * refresh) {
    d.fraction = std::clamp(j.rateIncrease / refresh, 0.0, 1.0);
  }
  d.progress = progressIn(ctx, progressFam, iface, priority, d.from, d.stamp);
  const auto& rule = ctx.settings<PauseStormRule>();
  // A link that is down pauses nothing: a storm that outlives its link is over.
  d.storming = !linkDown && d.fraction >= rule.pauseFraction && d.progress <= 0;
  d.quiet = linkDown || d.fraction < rule.clearFraction;
  judgeIncomplete(ctx, d, iface, priority, pause, progressFam, linkDown, rule.pauseFraction);
  return d;
}

// Where a NIC counts no packets per priority (ice), the paused side's progress is read from the
// whole port's transmitted bytes: a port whose peer keeps pausing it and that sends under 1 % of
// its line rate is stalled (PFC pause is only sent to a port that fills the switch's buffer, so a
// paused port with little to send is not what makes pause frames keep coming). -1 when unknown.
constexpr double kStalledLineShare = 0.01;

double portProgress(const RuleContext& ctx, const IfaceRef& iface, Nanos from, Nanos to) {
  const Tracked* bytes = iface.in(Fam::kPhyTxBytes);
  const Tracked* rate = iface.port != nullptr ? iface.port->in(Fam::kPortRate) : nullptr;
  if (!ctx.rated(bytes) || !ctx.ready(rate) || rate->raw <= 0) return -1;
  if (!bytes->increasedIn(from, to)) return 0;
  return bytes->judged().rate() >= kStalledLineShare * rate->raw ? bytes->judged().rateIncrease : 0;
}

// SONiC's detector for NICs without pause-time counters: pause frames keep arriving at every
// counter refresh while the paused side moves nothing. Needs a progress counter: frames alone
// are what a busy, healthy lossless port sees too.
Direction byFrames(const RuleContext& ctx, const IfaceRef& iface, std::string_view priority, const Tracked* frames,
                   Fam progressFam, bool linkDown) {
  Direction d;
  if (!ctx.rated(frames)) return d;
  fill(d, frames);
  d.frames = true;
  d.frameCount = frames->judged().rateIncrease;
  d.progress = progressIn(ctx, progressFam, iface, priority, d.from, d.stamp);
  // Our own transmit is the paused side of received pause: the port's bytes can stand in for it.
  if (d.progress < 0 && progressFam == Fam::kPrioTxPackets) {
    d.progress = portProgress(ctx, iface, d.from, d.stamp);
  }
  const bool rising = frames->judged().rateIncrease > 0;
  d.storming = !linkDown && rising && d.progress == 0;
  d.quiet = linkDown || !rising;
  return d;
}

/// The pause-time counter decides where there is one; otherwise the frame counters (ethtool, or
/// the vendor-neutral DCB ieee_pfc counts).
Direction judge(const RuleContext& ctx, const IfaceRef& iface, std::string_view priority, std::string_view dir,
                bool linkDown) {
  const bool rx = dir == "rx";
  const Fam progressFam = rx ? Fam::kPrioTxPackets : Fam::kPrioRxPackets;
  if (const Tracked* pause = iface.in(Fam::kPauseSeconds, priority, dir)) {
    return byDuration(ctx, iface, priority, pause, progressFam, linkDown);
  }
  const Tracked* frames = iface.in(rx ? Fam::kPfcFramesRx : Fam::kPfcFramesTx, priority);
  if (frames == nullptr) frames = iface.in(rx ? Fam::kDcbPfcIndications : Fam::kDcbPfcRequests, priority);
  if (frames == nullptr) return {};
  return byFrames(ctx, iface, priority, frames, progressFam, linkDown);
}

void stormDetector(RuleContext& ctx, const IfaceRef& iface, std::string_view priority) {
  const auto& rule = ctx.settings<PauseStormRule>();
  const std::string_view interface = iface.name;
  const bool linkDown = RuleContext::interfaceDown(iface);
  const Direction rx = judge(ctx, iface, priority, "rx", linkDown);
  const Direction tx = judge(ctx, iface, priority, "tx", linkDown);
  const Subject subject{{}, {}, interface, priority};

  Verdict v;
  v.judged = rx.judged || tx.judged;
  v.stamp = std::max(rx.stamp, tx.stamp);
  v.fire = rx.storming || tx.storming;
  v.undecided = !v.fire && (rx.undecided || tx.undecided);
  v.confirmsUndecided = (rx.storming && rx.confirms) || (tx.storming && tx.confirms);
  v.clear = (!rx.judged || rx.quiet) && (!tx.judged || tx.quiet);
  // The quiet interval began where the judged interval began.
  v.clearFrom = std::max(rx.judged ? rx.from : kNever, tx.judged ? tx.from : kNever);
  const Direction& d = rx.storming || !tx.storming ? rx : tx;
  v.evidence.add("rx_pause_fraction", rx.fraction);
  v.evidence.add("tx_pause_fraction", tx.fraction);
  v.evidence.add("transmit_packets_delta", rx.progress);
  v.evidence.add("receive_packets_delta", tx.progress);
  v.evidence.add("threshold", rule.pauseFraction);
  v.evidence.add("interval_seconds", d.seconds);
  v.evidence.add("refresh_seconds", d.refresh);
  v.evidence.add("frame_detector", d.frames ? 1 : 0);
  if (d.frames) v.evidence.add("pause_frames", d.frameCount);
  if (v.fire) {
    const char* what = &d == &rx ? "was paused by received PFC" : "sent PFC pause";
    if (d.frames) {
      v.summary = fmt::format("{} priority {} {} ({:.0f} pause frames) for the last {:.2f}s with no progress "
                              "(frame-count detector: this NIC has no pause-time counter)",
                              interface, priority, what, d.frameCount, d.seconds);
    } else {
      v.summary = fmt::format("{} priority {} {} {:.1f}% of the last {:.2f}s with no progress{}", interface,
                              priority, what, std::min(d.fraction, 1.0) * 100, d.seconds,
                              d.progress < 0 ? " (progress counter unavailable)" : "");
    }
  }
  Policy p{rule.forSamples, 0, toNanos(rule.restoration)};
  ctx.observe("storm", Severity::kCritical, subject, p, v);

  // What the storm claims is no evidence for any other rule (pfc_without_ecn).
  const bool active = ctx.isActive("storm", subject);
  auto claim = [&](std::string_view dir, const Direction& dd) {
    const Tracked* pause = iface.in(Fam::kPauseSeconds, priority, dir);
    if (!dd.judged || dd.frames || pause == nullptr) return;
    ctx.storms.record(interface, priority, dir, dd.from, dd.stamp, pause->judged().rateIncrease, dd.storming || active);
  };
  claim("rx", rx);
  claim("tx", tx);
}

void sustained(RuleContext& ctx, const IfaceRef& iface, std::string_view priority) {
  const std::string_view interface = iface.name;
  const auto& rule = ctx.settings<PauseStormRule>();
  const Nanos window = toNanos(rule.sustainedWindow);
  Verdict v;
  double worst = 0;
  std::string_view worstDir;
  for (std::string_view dir : {"rx", "tx"}) {
    const Tracked* s = iface.in(Fam::kPauseSeconds, priority, dir);
    if (!ctx.ready(s)) continue;
    auto w = s->over(window);
    // Judged only over a fully observed window: a few busy seconds after start-up are not 5 minutes.
    if (!w.full || w.seconds <= 0) continue;
    // A NIC that latches late can put a little more than the window into it: never above 1.
    double fraction = std::min(w.increase / w.seconds, 1.0);
    v.judged = true;
    v.stamp = std::max(v.stamp, s->t);
    v.evidence.add(dir == "rx" ? "rx_pause_fraction" : "tx_pause_fraction", fraction);
    if (fraction > worst) {
      worst = fraction;
      worstDir = dir;
    }
  }
  v.fire = worst > rule.sustainedFraction;
  v.clear = !v.fire;
  v.evidence.add("window_seconds", double(window) / kSecond);
  v.evidence.add("threshold", rule.sustainedFraction);
  if (v.fire) {
    v.summary = fmt::format("{} priority {} {} pause {:.1f}% of the last {:.0f}s (limit {:.0f}%)", interface, priority,
                            worstDir, worst * 100, double(window) / kSecond, rule.sustainedFraction * 100);
  }
  ctx.observe("sustained_pause", Severity::kWarning, Subject{{}, {}, interface, priority}, Policy{},
                      v);
}

// mlx5 tx_pause_storm_{warning,error}_events: the NIC's own stall prevention (docs/metrics.md).
void nicEvents(RuleContext& ctx, const Tracked* s, bool error) {
  const auto& rule = ctx.settings<PauseStormRule>();
  Verdict v;
  v.judged = ctx.ready(s);
  v.stamp = s->t;
  v.fire = s->lastDelta() > 0;
  Nanos hold = std::max(toNanos(rule.eventHold), toNanos(rule.restoration));
  v.clear = !s->increasedWithin(hold);
  v.evidence.add(error ? "storm_error_events" : "storm_warning_events", s->lastDelta());
  v.evidence.add("events_total", s->raw);
  std::string_view interface = s->label("interface");
  if (v.fire) {
    v.summary = fmt::format("{}: the NIC reported {} pause-storm {} event(s){}", interface, s->lastDelta(),
                            error ? "error" : "warning",
                            error ? " and stopped sending PFC pause (its receive side is stuck)" : "");
  }
  ctx.observe(error ? "nic_storm_error" : "nic_storm_warning",
                      error ? Severity::kCritical : Severity::kWarning, Subject{{}, {}, interface, {}}, Policy{}, v);
}

void evaluatePauseStorm(RuleContext& ctx, const PauseStormRule& /*rule*/) {
  std::vector<std::string_view> priorities;
  for (const IfaceRef& iface : ctx.subjects.interfaces()) {
    // The priorities with a pause counter of any kind, in order.
    priorities.clear();
    for (Fam fam : {Fam::kPauseSeconds, Fam::kPfcFramesRx, Fam::kPfcFramesTx, Fam::kDcbPfcIndications,
                    Fam::kDcbPfcRequests}) {
      for (const Tracked* s : iface.inputs.all(fam)) {
        priorities.push_back(iface.inputs.label(*s));
      }
    }
    std::sort(priorities.begin(), priorities.end());
    priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
    for (std::string_view priority : priorities) {
      stormDetector(ctx, iface, priority);
      sustained(ctx, iface, priority);
    }
  }
  ctx.storms.sweep();
  for (const IfaceRef& iface : ctx.subjects.interfaces()) {
    if (const Tracked* s = iface.in(Fam::kStormWarning)) nicEvents(ctx, s, false);
  }
  for (const IfaceRef& iface : ctx.subjects.interfaces()) {
    if (const Tracked* s = iface.in(Fam::kStormError)) nicEvents(ctx, s, true);
  }
}

void planPauseStorm(const PauseStormRule& rule, EnginePlan& plan) {
  needHistory(plan, {Fam::kPauseSeconds}, rule.sustainedWindow);
}

}  // namespace

const RuleDef kPauseStormRule =
    defineRule<PauseStormRule, planPauseStorm, evaluatePauseStorm>("pause_storm", "pfc_pause");

}  // namespace fabricmon::watchdog
