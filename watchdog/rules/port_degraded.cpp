// port_degraded: a port that trained below what it should run at, or whose physical link is up
// while the logical state is not ACTIVE (no subnet manager, or a RoCE port stuck after a firmware
// event). "What it should run at" compares like with like: a node mixes NIC models and speeds (8 x
// 400G ConnectX-7, 2 x 200G BlueField-3, a 100G front-end NIC) and that is normal, not degraded.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "watchdog/rules/port_degraded.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

bool upAndActive(const PortRef& p) {
  const Tracked* state = p.in(Fam::kPortState);
  const Tracked* phys = p.in(Fam::kPortPhysState);
  return state != nullptr && state->raw == kPortActive && (phys == nullptr || phys->raw == kPhysLinkUp);
}

/// The NIC model a port belongs to: hca_type and board_id from fabricmon_device_info, else the
/// driver's device-name stem ("bnxt_re", "irdma", "mlx5"), the link layer, and the port's role
/// (fabricmon_port_topology_info): a storage port is not compared with the compute ports.
std::string modelOf(const PortRef& p) {
  std::string model;
  if (const Tracked* info = p.devIn(Fam::kDeviceInfo)) {
    std::string_view hca = info->label("hca_type"), board = info->label("board_id");
    if (!hca.empty() || !board.empty()) model = fmt::format("{}/{}", hca, board);
  }
  if (model.empty()) {
    std::string_view stem = p.device;
    while (!stem.empty() && (std::isdigit(static_cast<unsigned char>(stem.back())) || stem.back() == '_')) {
      stem.remove_suffix(1);
    }
    model = stem;
  }
  std::string_view role;
  if (const Tracked* t = p.in(Fam::kPortTopology)) role = t->label("role");
  return fmt::format("{}|{}|{}", model, p.linkLayer, role);
}

/// The PCIe link of the port's PCI function trained below the most it and the port above it
/// support (fabricmon_device_pcie_link_*; current vs max): a NIC at x8 instead of x16, or Gen4
/// instead of Gen5, moves at most half its line rate to and from host or GPU memory.
void pcieDowntrained(RuleContext& ctx, const PortDegradedRule& rule, const PortRef& p, const Subject& subject) {
  const Tracked* wc = p.devIn(Fam::kPcieWidth, "current");
  const Tracked* wm = p.devIn(Fam::kPcieWidth, "max");
  const Tracked* sc = p.devIn(Fam::kPcieSpeed, "current");
  const Tracked* sm = p.devIn(Fam::kPcieSpeed, "max");
  const bool width = ctx.ready(wc) && ctx.ready(wm) && wm->raw > 0;
  const bool speed = ctx.ready(sc) && ctx.ready(sm) && sm->raw > 0;
  Verdict v;
  if (width || speed) {
    v.judged = true;
    v.stamp = std::max(width ? std::max(wc->t, wm->t) : 0, speed ? std::max(sc->t, sm->t) : 0);
    const bool narrow = width && wc->raw < wm->raw, slow = speed && sc->raw < sm->raw;
    v.fire = narrow || slow;
    v.clear = !v.fire;
    if (width) {
      v.evidence.add("pcie_width_current", wc->raw);
      v.evidence.add("pcie_width_max", wm->raw);
    }
    if (speed) {
      v.evidence.add("pcie_speed_current_gts", sc->raw / 1e9);
      v.evidence.add("pcie_speed_max_gts", sm->raw / 1e9);
    }
    if (v.fire) {
      v.summary = fmt::format("{} port {}: PCIe link trained at {}{} (the slot and the NIC support {}{})", p.device,
                              p.port, width ? fmt::format("x{:g}", wc->raw) : "",
                              speed ? fmt::format(" {:g} GT/s", sc->raw / 1e9) : "",
                              width ? fmt::format("x{:g}", wm->raw) : "",
                              speed ? fmt::format(" {:g} GT/s", sm->raw / 1e9) : "");
    }
  }
  ctx.observe("pcie_downtrained", Severity::kWarning, subject, Policy{1, toNanos(rule.notActiveFor), 0}, v);
}

/// The most common rate of the up ports of each model; absent when there is no single one.
/// `models[i]`: modelOf(ports()[i]).
std::map<std::string, double> modelRates(const RuleContext& ctx, const std::vector<std::string>& models) {
  std::map<std::string, std::map<double, unsigned>> counts;
  const auto& ports = ctx.subjects.ports();
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortRef& p = ports[i];
    const Tracked* rate = p.in(Fam::kPortRate);
    if (rate == nullptr || rate->raw <= 0 || !upAndActive(p)) continue;
    ++counts[models[i]][rate->raw];
  }
  std::map<std::string, double> out;
  for (const auto& [model, byRate] : counts) {
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
    if (!tie) out[model] = mode;
  }
  return out;
}

void notActive(RuleContext& ctx, const PortRef& p, const Subject& subject) {
  const auto& rule = ctx.settings<PortDegradedRule>();
  const Tracked* state = p.in(Fam::kPortState);
  const Tracked* phys = p.in(Fam::kPortPhysState);
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
  ctx.observe("not_active", Severity::kCritical, subject,
                      Policy{1, toNanos(rule.notActiveFor), 0}, v);
}

/// One comparison: the port's rate against `expected` (0 = nothing to compare with).
void below(RuleContext& ctx, const PortRef& p, const Subject& subject, std::string_view reason, double expected,
           std::string_view against) {
  const auto& rule = ctx.settings<PortDegradedRule>();
  const Tracked* rate = p.in(Fam::kPortRate);
  Verdict v;
  // The rate of a port that is down means nothing: that is link_flap's business, not this rule's.
  if (ctx.ready(rate) && upAndActive(p)) {
    v.judged = true;
    v.stamp = rate->t;
    v.fire = expected > 0 && rate->raw < expected;
    v.clear = !v.fire;
    v.evidence.add("rate_bytes_per_second", rate->raw);
    v.evidence.add("expected_bytes_per_second", expected);
    if (v.fire) {
      v.summary = fmt::format("{} port {}: link rate {:g} Gb/s below {} {:g} Gb/s", p.device, p.port,
                              rate->raw * 8 / 1e9, against, expected * 8 / 1e9);
    }
  } else if (rate != nullptr) {
    v.judged = true;
    v.stamp = rate->t;
    v.clear = true;
  }
  ctx.observe(reason, Severity::kWarning, subject, Policy{1, toNanos(rule.notActiveFor), 0}, v);
}

/// InfiniBand: the width or per-lane speed the link trained to, against the most both ends enable
/// (PortInfo over MADs, peer_port): 4X → 2X or 1X after a lane fails, NDR → HDR after a bad
/// negotiation. The ends negotiate the best both enable (IBA 14.2.5.6), so less is degraded.
void belowEnabled(RuleContext& ctx, const PortDegradedRule& rule, const PortRef& p, const Subject& subject,
                  std::string_view reason, Fam active, Fam localEnabled, Fam peerEnabled, std::string_view what) {
  const Tracked* a = p.in(active);
  const Tracked* le = p.in(localEnabled);
  const Tracked* pe = p.in(peerEnabled);
  Verdict v;
  if (ctx.ready(a) && ctx.ready(le) && ctx.ready(pe) && upAndActive(p) && le->raw > 0 && pe->raw > 0) {
    const double expected = std::min(le->raw, pe->raw);
    v.judged = true;
    v.stamp = std::max({a->t, le->t, pe->t});
    v.fire = a->raw < expected;
    v.clear = !v.fire;
    v.evidence.add("active", a->raw);
    v.evidence.add("local_enabled", le->raw);
    v.evidence.add("peer_enabled", pe->raw);
    if (v.fire) {
      v.summary = fmt::format("{} port {}: link {} {:g} below the {:g} both ends enable", p.device, p.port, what,
                              a->raw, expected);
    }
  }
  ctx.observe(reason, Severity::kWarning, subject, Policy{1, toNanos(rule.notActiveFor), 0}, v);
}

/// The best rate each port ("device/port") ran at while up, since start.
struct PortDegradedMemory : RuleState {
  std::map<std::string, double, std::less<>> bestRate;
};

void evaluatePortDegraded(RuleContext& ctx, const PortDegradedRule& rule) {
  auto& memory = ctx.remembered<PortDegradedMemory>();
  // Each port's model once per pass: it reads labels out of two series' keys and formats a string.
  const auto& ports = ctx.subjects.ports();
  std::vector<std::string> modelOfPort;
  modelOfPort.reserve(ports.size());
  for (const PortRef& p : ports) modelOfPort.push_back(modelOf(p));
  const auto models = modelRates(ctx, modelOfPort);
  std::map<std::string, double, std::less<>> best;
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortRef& p = ports[i];
    Subject subject{p.device, p.port, p.interface, {}};
    notActive(ctx, p, subject);

    // The best rate the port itself ran at since fabricmon started: a link that came back from a
    // flap at 2X instead of 4X, or HDR instead of NDR, is below it.
    const std::string key = fmt::format("{}/{}", p.device, p.port);
    double own = 0;
    if (auto it = memory.bestRate.find(key); it != memory.bestRate.end()) own = it->second;
    const Tracked* rate = p.in(Fam::kPortRate);
    if (rate != nullptr && upAndActive(p) && rate->raw > own) own = rate->raw;
    best[key] = own;

    if (rule.expectedRateGbps) {
      below(ctx, p, subject, "rate_below_expected", *rule.expectedRateGbps * 1e9 / 8, "the expected");
    } else {
      auto it = models.find(modelOfPort[i]);
      below(ctx, p, subject, "rate_below_peers", it == models.end() ? 0 : it->second,
            "the usual rate of this node's ports of the same model");
    }
    below(ctx, p, subject, "rate_below_own_best", own, "its own best since start");
    pcieDowntrained(ctx, rule, p, subject);
    if (p.linkLayer == "InfiniBand") {
      belowEnabled(ctx, rule, p, subject, "width_below_enabled", Fam::kWidthActive, Fam::kWidthEnabled,
                   Fam::kPeerWidthEnabled, "width (lanes)");
      belowEnabled(ctx, rule, p, subject, "speed_below_enabled", Fam::kSpeedActive, Fam::kSpeedEnabled,
                   Fam::kPeerSpeedEnabled, "lane speed (bytes/s)");
    }
  }
  memory.bestRate = std::move(best);
}

void planPortDegraded(const PortDegradedRule& /*rule*/, EnginePlan& /*plan*/) {}

}  // namespace

const RuleDef kPortDegradedRule = withMemory<PortDegradedMemory>(
    defineRule<PortDegradedRule, planPortDegraded, evaluatePortDegraded>("port_degraded", "link"));

}  // namespace fabricmon::watchdog
