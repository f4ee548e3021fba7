// port_degraded: a port that trained below its expected rate, or whose physical link is up while
// the logical state is not ACTIVE (no subnet manager, or a RoCE port stuck after a firmware event).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

constexpr std::string_view kRule = "port_degraded";

bool upAndActive(const RuleContext& ctx, const PortRef& p) {
  const Tracked* state = ctx.history.find(Fam::kPortState, p.device, p.port);
  const Tracked* phys = ctx.history.find(Fam::kPortPhysState, p.device, p.port);
  return state != nullptr && state->raw == kPortActive && (phys == nullptr || phys->raw == kPhysLinkUp);
}

/// The most common rate of the node's up ports per link layer; absent when there is no single one.
std::map<std::string_view, double> peerRates(const RuleContext& ctx) {
  std::map<std::string_view, std::map<double, unsigned>> counts;
  for (const PortRef& p : ctx.join.ports()) {
    const Tracked* rate = ctx.history.find(Fam::kPortRate, p.device, p.port);
    if (rate == nullptr || rate->raw <= 0 || !upAndActive(ctx, p)) continue;
    ++counts[p.linkLayer][rate->raw];
  }
  std::map<std::string_view, double> out;
  for (const auto& [layer, byRate] : counts) {
    unsigned best = 0;
    bool tie = false;
    double mode = 0;
    for (const auto& [rate, n] : byRate) {
      if (n > best) {
        best = n;
        mode = rate;
        tie = false;
      } else if (n == best) {
        tie = true;
      }
    }
    if (!tie) out[layer] = mode;
  }
  return out;
}

void notActive(RuleContext& ctx, const PortRef& p, const Subject& subject) {
  const auto& rule = ctx.config.portDegraded;
  const Tracked* state = ctx.history.find(Fam::kPortState, p.device, p.port);
  const Tracked* phys = ctx.history.find(Fam::kPortPhysState, p.device, p.port);
  Verdict v;
  if (ctx.ready(state) && ctx.ready(phys)) {
    v.judged = true;
    v.stamp = std::max(state->t, phys->t);
    v.fire = phys->raw == kPhysLinkUp && state->raw != kPortActive;
    v.clear = !v.fire;
    v.evidence.add("state", state->raw);
    v.evidence.add("physical_state", phys->raw);
    v.evidence.add("for_seconds", double(toNanos(rule.notActiveFor)) / kSecond);
    if (v.fire) {
      v.summary = fmt::format("{} port {}: physical link up but logical state {} (not ACTIVE) for over {:.0f}s",
                              p.device, p.port, state->raw, double(toNanos(rule.notActiveFor)) / kSecond);
    }
  }
  ctx.tracker.observe(kRule, "not_active", Severity::kCritical, subject,
                      Policy{1, toNanos(rule.notActiveFor), 0}, v);
}

void rate(RuleContext& ctx, const PortRef& p, const Subject& subject, const std::map<std::string_view, double>& peers) {
  const auto& rule = ctx.config.portDegraded;
  const Tracked* rate = ctx.history.find(Fam::kPortRate, p.device, p.port);
  Verdict v;
  std::string_view reason = rule.expectedRateGbps ? "rate_below_expected" : "rate_below_peers";
  double expected = 0;
  if (rule.expectedRateGbps) {
    expected = *rule.expectedRateGbps * 1e9 / 8;
  } else if (auto it = peers.find(p.linkLayer); it != peers.end()) {
    expected = it->second;
  }
  // The rate of a port that is down means nothing: that is link_flap's business, not this rule's.
  if (ctx.ready(rate) && upAndActive(ctx, p)) {
    v.judged = true;
    v.stamp = rate->t;
    v.fire = expected > 0 && rate->raw < expected;
    v.clear = !v.fire;
    v.evidence.add("rate_bytes_per_second", rate->raw);
    v.evidence.add("expected_bytes_per_second", expected);
    if (v.fire) {
      v.summary = fmt::format("{} port {}: link rate {:g} Gb/s below the {} {:g} Gb/s", p.device, p.port,
                              rate->raw * 8 / 1e9, rule.expectedRateGbps ? "expected" : "node's usual",
                              expected * 8 / 1e9);
    }
  } else if (rate != nullptr) {
    v.judged = true;
    v.stamp = rate->t;
    v.clear = true;
  }
  ctx.tracker.observe(kRule, reason, Severity::kWarning, subject, Policy{1, toNanos(rule.notActiveFor), 0}, v);
}

}  // namespace

void evaluatePortDegraded(RuleContext& ctx) {
  auto peers = peerRates(ctx);
  for (const PortRef& p : ctx.join.ports()) {
    Subject subject{p.device, p.port, p.interface, {}};
    notActive(ctx, p, subject);
    rate(ctx, p, subject, peers);
  }
}

}  // namespace fabricmon::watchdog
