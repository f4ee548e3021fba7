// optics_degraded: a pluggable module reports that it is failing, before the link drops — Rx or
// Tx power at or below the module's own low warning threshold (plus power_margin_db), temperature
// or laser bias beyond a warning threshold, or a latched alarm flag. Judged per port from the
// transceiver collector's series (docs/metrics.md, "Transceivers"); the worst lane is named.
// A module without DOM has no values and no thresholds: the rule says nothing about it.
#include "watchdog/rules/optics_degraded.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

double dbFactor(double db) { return std::pow(10.0, db / 10.0); }

// A finding keeps the severity it started with (watchdog/finding_tracker.cpp): the value reasons
// are warnings (an alarm-level crossing is in the summary), and the module's latched alarm flags,
// set again at every reading while the value stays beyond the alarm threshold, are the critical
// finding.
struct Judged {
  Verdict v;
  Severity severity = Severity::kWarning;
};

// The threshold of `level` for the interface, when the module has one (absent = unsupported).
std::optional<double> threshold(const RuleContext& ctx, Fam fam, const IfaceRef& in, std::string_view level) {
  const Tracked* t = in.in(fam, level);
  if (t == nullptr || !ctx.ready(t)) return std::nullopt;
  return t->raw;
}

std::string_view what(const Subject& s) { return s.interface; }

// Rx or Tx power of every lane against the low warning (and alarm) threshold.
Judged judgePower(const RuleContext& ctx, const OpticsDegradedRule& rule, const IfaceRef& in, const Subject& subject,
                  std::span<const Tracked* const> lanes, Fam thresholdFam,
                  std::string_view name) {
  Judged j;
  const auto lowWarn = threshold(ctx, thresholdFam, in, "low_warning");
  const auto lowAlarm = threshold(ctx, thresholdFam, in, "low_alarm");
  if (!lowWarn || *lowWarn <= 0) return j;  // no threshold: nothing to judge against
  const double fireAt = *lowWarn * dbFactor(rule.powerMarginDb);
  const double clearAbove = fireAt * dbFactor(rule.clearHysteresisDb);
  const Tracked* worst = nullptr;
  bool allClear = true;
  for (const Tracked* s : lanes) {
    if (!ctx.ready(s)) continue;
    j.v.judged = true;
    j.v.stamp = std::max(j.v.stamp, s->t);
    if (worst == nullptr || s->raw < worst->raw) worst = s;
    if (s->raw <= clearAbove) allClear = false;
  }
  if (worst == nullptr) return j;
  j.v.fire = worst->raw <= fireAt;
  j.v.clear = allClear;
  const bool belowAlarm = lowAlarm && worst->raw <= *lowAlarm;
  const double lane = std::strtod(std::string(worst->label("lane")).c_str(), nullptr);
  j.v.evidence.add("lane", lane);
  j.v.evidence.add("power_dbm", worst->raw > 0 ? 10 * std::log10(worst->raw * 1000) : -99);
  j.v.evidence.add("power_watts", worst->raw);
  j.v.evidence.add("low_warning_dbm", 10 * std::log10(*lowWarn * 1000));
  if (lowAlarm && *lowAlarm > 0)
    j.v.evidence.add("low_alarm_dbm", 10 * std::log10(*lowAlarm * 1000));
  j.v.evidence.add("margin_db", rule.powerMarginDb);
  if (j.v.fire) {
    const double nowDbm = worst->raw > 0 ? 10 * std::log10(worst->raw * 1000) : -INFINITY;
    const double warnDbm = 10 * std::log10(*lowWarn * 1000);
    j.v.summary = fmt::format(
        "{}: {} power of lane {:.0f} is {:.2f} dBm, {} the module's low warning of {:.2f} dBm{}",
        what(subject), name, lane, nowDbm,
        worst->raw <= *lowWarn ? "at or below" : "within the margin above", warnDbm,
        belowAlarm ? " and at or below its low alarm" : "");
  }
  return j;
}

// Temperature (module) or bias (per lane) beyond either warning threshold.
Judged judgeRange(const RuleContext& ctx, const IfaceRef& in, const Subject& subject,
                  std::span<const Tracked* const> values, Fam thresholdFam,
                  std::string_view name, std::string_view unit, double display) {
  Judged j;
  const auto hw = threshold(ctx, thresholdFam, in, "high_warning");
  const auto lw = threshold(ctx, thresholdFam, in, "low_warning");
  const auto ha = threshold(ctx, thresholdFam, in, "high_alarm");
  const auto la = threshold(ctx, thresholdFam, in, "low_alarm");
  if (!hw && !lw) return j;
  const Tracked* worst = nullptr;
  double worstExcess = -INFINITY;  // how far beyond a warning threshold, in the value's unit
  for (const Tracked* s : values) {
    if (!ctx.ready(s)) continue;
    j.v.judged = true;
    j.v.stamp = std::max(j.v.stamp, s->t);
    double excess = -INFINITY;
    if (hw) excess = std::max(excess, s->raw - *hw);
    if (lw) excess = std::max(excess, *lw - s->raw);
    if (worst == nullptr || excess > worstExcess) worst = s, worstExcess = excess;
  }
  if (worst == nullptr) return j;
  j.v.fire = worstExcess >= 0;
  j.v.clear = worstExcess < 0;
  const bool beyondAlarm = (ha && worst->raw >= *ha) || (la && worst->raw <= *la);
  const std::string_view laneLabel = worst->label("lane");
  const double lane = laneLabel.empty() ? 0 : std::strtod(std::string(laneLabel).c_str(), nullptr);
  if (!laneLabel.empty()) j.v.evidence.add("lane", lane);
  j.v.evidence.add("value", worst->raw);
  if (hw) j.v.evidence.add("high_warning", *hw);
  if (lw) j.v.evidence.add("low_warning", *lw);
  if (j.v.fire) {
    const bool high = hw && worst->raw >= *hw;
    j.v.summary = fmt::format(
        "{}: {}{} is {:.1f} {}, beyond the module's {} warning of {:.1f} {}{}", what(subject), name,
        laneLabel.empty() ? "" : fmt::format(" of lane {}", laneLabel), worst->raw * display, unit,
        high ? "high" : "low", (high ? *hw : *lw) * display, unit,
        beyondAlarm ? " and beyond its alarm threshold" : "");
  }
  return j;
}

// Whether a flag's quantity is light or the laser that makes it: a dark port latches these alarms
// at every read (no light in: Rx power below its low alarm; a disabled laser: Tx power and bias
// below theirs), so they say nothing while the link is down.
bool lightFlag(const Tracked& flag) {
  const std::string_view q = flag.label("quantity");
  return q == "rx_power" || q == "tx_power" || q == "tx_bias";
}

/// Per interface: whether a light flag was set when its alarm flags were last judged with the link
/// up, the one cause a down link's alarm_flag finding holds on; and whether the latest flag reading
/// covers a time the port was dark.
struct OpticsMemory : RuleState {
  struct Light {
    bool set = false;
    uint64_t pass = 0;  ///< the evaluation that last saw the interface
    /// SFF-8636 and CMIS flags latch until read (SFF-8636 bytes 9-14, CMIS page 11h bytes 139-152):
    /// a reading whose interval (the reading before it, its own time] reaches into a dark time
    /// holds the alarms the dark time latched, so its light flags are not judged (`staleReading`).
    /// `darkUntil`: the sample time at which the latest dark time was seen over (the first
    /// observation of the link up again, or the carrier-down count's sample that showed a flap
    /// between two polls); kDarkNow while the link is down; kNever: never seen dark. Sample times,
    /// not the order of evaluation: a reading taken while dark may be judged after the link is up.
    Nanos darkUntil = kNever;
    bool staleReading = false;
    Nanos flagsT = kNever;     ///< sample time of the latest flag reading
    double carrierDowns = -1;  ///< the interface's carrier-down count at the last evaluation
  };
  static constexpr Nanos kDarkNow = INT64_MAX;
  std::map<std::string, Light, std::less<>> lightAlarm;
  uint64_t pass = 0;
  void disabled() override { lightAlarm.clear(); }
};

// Latched alarm flags: the module's own verdict that a value crossed an alarm threshold since the
// previous read. While the link is down, and for the first reading after it was (`skipLight`), the
// light flags are not judged, as the power and bias values are not while it is down: the other
// flags (temperature, supply voltage) still fire and clear, and a finding a light flag raised
// (`lightHolds`: one was set at the last judgement of them) keeps its state until they are judged
// again (docs/rules.md, "optics_degraded"). When they are judged, `lightSet` gets whether one is set.
Judged judgeAlarmFlags(const Subject& subject, std::span<const Tracked* const> flags, bool skipLight,
                       bool lightHolds, bool& lightSet) {
  Judged j;
  j.severity = Severity::kCritical;
  const Tracked* first = nullptr;
  bool held = false;  // a light flag left unjudged while down, holding the finding it raised
  lightSet = false;
  for (const Tracked* s : flags) {
    if (s->samples == 0) continue;  // a latched flag is judged from its first reading
    if (lightFlag(*s)) {
      if (skipLight) {
        held = held || lightHolds;
        continue;
      }
      lightSet = lightSet || s->raw >= 1;
    }
    j.v.judged = true;
    j.v.stamp = std::max(j.v.stamp, s->t);
    if (s->raw >= 1 && first == nullptr) first = s;
  }
  j.v.fire = first != nullptr;
  j.v.clear = first == nullptr && !held;
  if (first != nullptr) {
    const std::string_view lane = first->label("lane");
    if (!lane.empty()) j.v.evidence.add("lane", std::strtod(std::string(lane).c_str(), nullptr));
    j.v.evidence.add("flag", 1);
    j.v.summary = fmt::format("{}: the module latched its {} {} alarm{}", what(subject),
                              first->label("quantity"),
                              first->label("level") == "high_alarm" ? "high" : "low",
                              lane.empty() ? "" : fmt::format(" on lane {}", lane));
  }
  return j;
}

/// Keeps `l.darkUntil` (OpticsMemory::Light) from the interface's link state and carrier count.
void trackDarkness(const IfaceRef& in, bool down, OpticsMemory::Light& l) {
  // When the link was seen: the interface's operstate sample, else its port's state.
  const Tracked* seen = in.in(Fam::kNetdevUp);
  if (seen == nullptr && in.port != nullptr) seen = in.port->in(Fam::kPortState);
  if (down) {
    l.darkUntil = OpticsMemory::kDarkNow;
  } else if (l.darkUntil == OpticsMemory::kDarkNow) {
    // Without a sample time to go by, the next reading is the first after the dark time.
    l.darkUntil = seen != nullptr ? seen->t : std::max<Nanos>(l.flagsT, 0) + 1;
  }
  // A flap between two polls shows only in the carrier-down count, at its sample's time.
  const Tracked* carrier = in.in(Fam::kCarrierDownChanges);
  if (carrier == nullptr) carrier = in.in(Fam::kCarrierChanges);
  if (carrier != nullptr) {
    if (l.carrierDowns >= 0 && carrier->raw != l.carrierDowns && l.darkUntil != OpticsMemory::kDarkNow) {
      l.darkUntil = std::max(l.darkUntil, carrier->t);
    }
    l.carrierDowns = carrier->raw;
  }
}

void evaluateOpticsDegraded(RuleContext& ctx, const OpticsDegradedRule& rule) {
  const Policy values{rule.forReadings, 0, toNanos(rule.clearAfter)};
  const Policy flags{1, 0, toNanos(rule.clearAfter)};
  auto& memory = ctx.remembered<OpticsMemory>();
  ++memory.pass;
  for (const IfaceRef& in : ctx.subjects.interfaces()) {
    const std::string_view iface = in.name;
    // A link that is down receives no light by definition: port_down and link_flap say so; the
    // power findings, and an alarm_flag finding a light flag holds, keep their state until the
    // link is back.
    const bool down = RuleContext::interfaceDown(in);
    // The dark times of every interface, optics or not yet: a module swapped in while the link is
    // down latches its power-up alarms too.
    auto light = memory.lightAlarm.find(iface);
    if (light == memory.lightAlarm.end()) light = memory.lightAlarm.emplace(std::string(iface), OpticsMemory::Light{}).first;
    OpticsMemory::Light& l = light->second;
    l.pass = memory.pass;
    trackDarkness(in, down, l);
    const auto rx = in.inputs.all(Fam::kXcvrRxPower), tx = in.inputs.all(Fam::kXcvrTxPower),
               bias = in.inputs.all(Fam::kXcvrTxBias), temperature = in.inputs.all(Fam::kXcvrTemperature),
               alarms = in.inputs.all(Fam::kXcvrFlag);
    if (rx.empty() && tx.empty() && bias.empty() && temperature.empty() && alarms.empty()) continue;
    const PortRef* port = in.port;
    const Subject subject{port ? std::string_view(port->device) : std::string_view{},
                          port ? std::string_view(port->port) : std::string_view{},
                          iface,
                          {}};
    // Always observed, judged or not: an unjudged verdict holds an active finding (a subject not
    // observed at all would count as vanished and clear it).
    auto report = [&](std::string_view reason, Judged j, const Policy& policy) {
      ctx.observe(reason, j.severity, subject, policy, j.v);
    };
    if (down) {
      for (const char* reason : {"rx_power_low", "tx_power_low", "tx_bias"})
        report(reason, Judged{}, values);
    } else {
      report("rx_power_low", judgePower(ctx, rule, in, subject, rx, Fam::kXcvrRxPowerThreshold, "Rx"),
             values);
      report("tx_power_low", judgePower(ctx, rule, in, subject, tx, Fam::kXcvrTxPowerThreshold, "Tx"),
             values);
      report("tx_bias",
             judgeRange(ctx, in, subject, bias, Fam::kXcvrTxBiasThreshold, "laser bias", "mA", 1000),
             values);
    }
    report("temperature",
           judgeRange(ctx, in, subject, temperature, Fam::kXcvrTemperatureThreshold,
                      "module temperature", "°C", 1),
           values);
    Nanos flagsT = kNever;
    for (const Tracked* s : alarms) {
      if (s->samples > 0 && lightFlag(*s)) flagsT = std::max(flagsT, s->t);
    }
    if (flagsT != l.flagsT) {  // a new reading: it covers (the reading before, flagsT]
      l.staleReading = l.darkUntil != kNever && l.darkUntil > l.flagsT;
      l.flagsT = flagsT;
    }
    const bool skipLight = down || l.staleReading;
    bool lightSet = false;
    report("alarm_flag", judgeAlarmFlags(subject, alarms, skipLight, l.set, lightSet), flags);
    if (!skipLight) l.set = lightSet;
  }
  std::erase_if(memory.lightAlarm, [&](const auto& kv) { return kv.second.pass != memory.pass; });
}

void planOpticsDegraded(const OpticsDegradedRule& /*rule*/, EnginePlan& /*plan*/) {}

}  // namespace

const RuleDef kOpticsDegradedRule = withMemory<OpticsMemory>(
    defineRule<OpticsDegradedRule, planOpticsDegraded, evaluateOpticsDegraded>("optics_degraded",
                                                                               "physical"));

}  // namespace fabricmon::watchdog
