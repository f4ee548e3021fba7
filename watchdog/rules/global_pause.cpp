// global_pause: IEEE 802.3x (link-level) pause frames on a port that runs PFC. 802.3x pause stops
// every class at once, lossless or not, so a peer (or this NIC) sending it on a PFC port turns one
// congested receiver into a stall of all traffic; PFC and 802.3x are meant to be exclusive (IEEE
// 802.1Q-2018 clause 36.1.3: a port with PFC enabled shall not use PAUSE). Judged on the frames in
// a window, not one poll, so a NIC that refreshes its counters slowly is judged the same.
#include <algorithm>

#include <fmt/format.h>

#include "watchdog/rules/global_pause.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

}  // namespace

void evaluateGlobalPause(RuleContext& ctx, const GlobalPauseRule& /*rule*/) {
  const auto& rule = ctx.settings<GlobalPauseRule>();
  const Nanos window = toNanos(rule.window);
  for (const IfaceRef& in : ctx.subjects.interfaces()) {
    const auto pfc = in.inputs.all(Fam::kPfcEnabled);
    if (std::none_of(pfc.begin(), pfc.end(), [&](const Tracked* s) { return ctx.ready(s) && s->raw != 0; })) continue;
    const std::string_view iface = in.name;
    Verdict v;
    double frames = 0;
    bool recent = false;
    for (auto [fam, name] : {std::pair{Fam::kGlobalPauseRx, std::string_view("rx_frames")},
                             std::pair{Fam::kGlobalPauseTx, std::string_view("tx_frames")}}) {
      const Tracked* s = in.in(fam);
      if (!ctx.ready(s)) continue;
      v.judged = true;
      v.stamp = std::max(v.stamp, s->t);
      const auto w = s->over(window);
      frames += w.increase;
      v.evidence.add(name, w.increase);
      if (s->increasedWithin(window)) recent = true;
    }
    if (!v.judged) continue;
    v.evidence.add("window_seconds", double(window) / kSecond);
    v.fire = recent && frames >= rule.minFrames;
    v.clear = !recent;
    if (v.fire) {
      v.summary = fmt::format("{}: {:.0f} IEEE 802.3x global pause frames within {:.0f}s on a port that runs PFC "
                              "(global pause stalls every priority)",
                              iface, frames, double(window) / kSecond);
    }
    ctx.observe({}, Severity::kWarning, Subject{{}, {}, iface, {}}, Policy{}, v);
  }
}

namespace {

void planGlobalPause(const GlobalPauseRule& rule, EnginePlan& plan) {
  needHistory(plan, {Fam::kGlobalPauseRx, Fam::kGlobalPauseTx}, rule.window);
}

}  // namespace

const RuleDef kGlobalPauseRule =
    defineRule<GlobalPauseRule, planGlobalPause, evaluateGlobalPause>("global_pause", "pfc_pause");

}  // namespace fabricmon::watchdog
