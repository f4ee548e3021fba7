// pause_storm: the SONiC PFC watchdog's detector on the NIC's µs pause counters, the NIC's own
// storm-prevention events, and a lower-severity long-window pause fraction.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

constexpr std::string_view kRule = "pause_storm";
// A fraction above this comes from a bad delta (a reset that landed on a large value), not a pause.
constexpr double kMaxPlausibleFraction = 1.05;

struct Direction {
  bool judged = false;
  bool storming = false;
  bool quiet = true;
  double fraction = 0;
  double progress = -1;  ///< packets the paused side moved in the interval; -1 = unknown
  Nanos stamp = kNever;
  Nanos from = kNever;
};

// rx: we received pause frames, so our transmit on that priority is the paused side.
// tx: we sent them, so the peer's transmit (our receive) is the paused side.
Direction judge(const RuleContext& ctx, const Tracked* pause, Fam progressFam, bool linkDown) {
  Direction d;
  if (!ctx.ready(pause)) return d;
  d.stamp = pause->t;
  d.from = pause->prevT;
  double dt = pause->lastInterval();
  if (dt <= 0) return d;
  d.fraction = pause->lastDelta() / dt;
  if (d.fraction > kMaxPlausibleFraction) return d;
  d.judged = true;
  const Tracked* progress =
      ctx.history.find(progressFam, pause->label("interface"), pause->label("priority"));
  if (ctx.ready(progress) && progress->t == pause->t) d.progress = progress->lastDelta();
  const auto& rule = ctx.config.pauseStorm;
  // A link that is down pauses nothing: a storm that outlives its link is over.
  d.storming = !linkDown && d.fraction >= rule.pauseFraction && d.progress <= 0;
  d.quiet = linkDown || d.fraction < rule.clearFraction;
  return d;
}

void stormDetector(RuleContext& ctx, std::string_view interface, std::string_view priority) {
  const auto& rule = ctx.config.pauseStorm;
  bool linkDown = ctx.interfaceDown(interface);
  const Tracked* rxPause = ctx.history.find(Fam::kPauseSeconds, interface, priority, "rx");
  const Tracked* txPause = ctx.history.find(Fam::kPauseSeconds, interface, priority, "tx");
  Direction rx = judge(ctx, rxPause, Fam::kPrioTxPackets, linkDown);
  Direction tx = judge(ctx, txPause, Fam::kPrioRxPackets, linkDown);

  Verdict v;
  v.judged = rx.judged || tx.judged;
  v.stamp = std::max(rx.stamp, tx.stamp);
  v.fire = rx.storming || tx.storming;
  v.clear = (!rx.judged || rx.quiet) && (!tx.judged || tx.quiet);
  v.clearFrom = std::max(rx.from, tx.from);  // the quiet poll interval began at the previous sample
  v.evidence.add("rx_pause_fraction", rx.fraction);
  v.evidence.add("tx_pause_fraction", tx.fraction);
  v.evidence.add("transmit_packets_delta", rx.progress);
  v.evidence.add("receive_packets_delta", tx.progress);
  v.evidence.add("threshold", rule.pauseFraction);
  if (v.fire) {
    const Direction& d = rx.storming ? rx : tx;
    v.summary = fmt::format("{} priority {} {} {:.1f}% of the last {:.2f}s with no progress{}", interface, priority,
                            rx.storming ? "was paused by received PFC" : "sent PFC pause", d.fraction * 100,
                            rx.storming ? rxPause->lastInterval() : txPause->lastInterval(),
                            d.progress < 0 ? " (progress counter unavailable)" : "");
  }
  Policy p{rule.forSamples, 0, toNanos(rule.restoration)};
  ctx.tracker.observe(kRule, "storm", Severity::kCritical, Subject{{}, {}, interface, priority}, p, v);
}

void sustained(RuleContext& ctx, std::string_view interface, std::string_view priority) {
  const auto& rule = ctx.config.pauseStorm;
  const Nanos window = toNanos(rule.sustainedWindow);
  Verdict v;
  double worst = 0;
  std::string_view worstDir;
  for (std::string_view dir : {"rx", "tx"}) {
    const Tracked* s = ctx.history.find(Fam::kPauseSeconds, interface, priority, dir);
    if (!ctx.ready(s)) continue;
    auto w = s->over(window);
    // Judged only over a fully observed window: a few busy seconds after start-up are not 5 minutes.
    if (!w.full || w.seconds <= 0) continue;
    double fraction = w.increase / w.seconds;
    if (fraction > kMaxPlausibleFraction) continue;
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
  ctx.tracker.observe(kRule, "sustained_pause", Severity::kWarning, Subject{{}, {}, interface, priority}, Policy{},
                      v);
}

// mlx5 tx_pause_storm_{warning,error}_events: the NIC's stall prevention (COUNTERS.md).
void nicEvents(RuleContext& ctx, const Tracked* s, bool error) {
  const auto& rule = ctx.config.pauseStorm;
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
  ctx.tracker.observe(kRule, error ? "nic_storm_error" : "nic_storm_warning",
                      error ? Severity::kCritical : Severity::kWarning, Subject{{}, {}, interface, {}}, Policy{}, v);
}

}  // namespace

void evaluatePauseStorm(RuleContext& ctx) {
  std::set<std::pair<std::string_view, std::string_view>> pairs;
  for (const Tracked* s : ctx.history.family(Fam::kPauseSeconds)) pairs.emplace(s->label("interface"), s->label("priority"));
  for (const auto& [interface, priority] : pairs) {
    stormDetector(ctx, interface, priority);
    sustained(ctx, interface, priority);
  }
  for (const Tracked* s : ctx.history.family(Fam::kStormWarning)) nicEvents(ctx, s, false);
  for (const Tracked* s : ctx.history.family(Fam::kStormError)) nicEvents(ctx, s, true);
}

}  // namespace fabricmon::watchdog
