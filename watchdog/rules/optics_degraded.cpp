// optics_degraded: a pluggable module reports that it is failing, before the link drops — Rx or
// Tx power at or below the module's own low warning threshold (plus power_margin_db), or sunk
// sink_db below the lane's own baseline of the last day (usually long before that); temperature or laser
// bias beyond a warning threshold, or a latched alarm flag. Judged per port from the transceiver
// collector's series (docs/metrics.md, "Transceivers"); the worst lane is named. A module without
// DOM has no values and no thresholds: the rule says nothing about it.
#include "watchdog/rules/optics_degraded.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "watchdog/day_baseline.hpp"
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
  bool noLimits = false;  ///< the module reports no usable threshold for the quantity: not judged
};

// The threshold of `level` for the interface, when the module has one (absent = unsupported).
std::optional<double> threshold(const RuleContext& ctx, Fam fam, const IfaceRef& in, std::string_view level) {
  const Tracked* t = in.in(fam, level);
  if (t == nullptr || !ctx.ready(t)) return std::nullopt;
  return t->raw;
}

std::string_view what(const Subject& s) { return s.interface; }

/// Power in dBm (-inf for none).
double toDbm(double watts) { return watts > 0 ? 10 * std::log10(watts * 1000) : -INFINITY; }

/// The series' lane number (0 for the module's own values). Read at every pass for every lane: no
/// string is made.
double laneOf(const Tracked& s) {
  const std::string_view lane = s.label("lane");
  unsigned n = 0;
  std::from_chars(lane.data(), lane.data() + lane.size(), n);
  return n;
}

/// Below this a lane has no light worth the name (-30 dBm; a DOM reads 0.1 µW steps, receivers need
/// ~-15 dBm). A lane without light in (Rx) or out (Tx) while the link is up is not a lane of this
/// link: the other port of a twin-port OSFP, a breakout leg, lanes a narrower mode leaves unused.
/// An InfiniBand link that lost a lane and trained narrower is port_degraded's (width_below_enabled).
constexpr double kDarkWatts = 1e-6;
/// A laser bias below this is a laser switched off: an operating VCSEL draws ~5-10 mA, a DFB or EML
/// laser tens of mA (the DOM's unit is 2 µA).
constexpr double kOffAmps = 1e-4;

/// The lanes of the module this link does not use, judged by none of the lane reasons.
struct UnusedLanes {
  uint32_t rx = 0, tx = 0;  ///< bit n: lane n
  static uint32_t darkOf(std::span<const Tracked* const> power) {
    uint32_t bits = 0;
    for (const Tracked* s : power) {
      const double lane = laneOf(*s);
      // From the first reading, as the flags are judged: the latest reading says the lane is dark.
      if (s->samples > 0 && !(s->raw >= kDarkWatts) && lane >= 1 && lane <= 31) bits |= 1u << unsigned(lane);
    }
    return bits;
  }
  /// The lanes whose laser is off, for a module without a Tx power monitor: no bias current, and no
  /// light coming in on the lane either. A used lane whose laser died still receives the far end's
  /// light, so it stays judged (tx_bias low).
  static uint32_t offWithoutTxMonitor(std::span<const Tracked* const> bias, uint32_t rxDark) {
    uint32_t bits = 0;
    for (const Tracked* s : bias) {
      const double lane = laneOf(*s);
      if (s->samples > 0 && !(s->raw >= kOffAmps) && lane >= 1 && lane <= 31) bits |= 1u << unsigned(lane);
    }
    return bits & rxDark;
  }
  /// Whether lane-level series `s` of `quantity` ("rx_power", "tx_power", "tx_bias") is of a lane not used.
  bool unused(const Tracked& s, std::string_view quantity) const {
    const double lane = laneOf(s);
    if (lane < 1 || lane > 31) return false;
    const uint32_t bit = 1u << unsigned(lane);
    return (quantity == "rx_power" ? rx : tx) & bit;
  }
};

/// A quantity of another module than the one whose limits were last seen, reporting no usable limit
/// (a swap to a module with flat memory, all-zero thresholds, an unreadable threshold page): judged
/// clear once a reading is there, so the finding of the module before does not hold for good.
Judged clearWithoutLimits(const RuleContext& ctx, std::span<const Tracked* const> values) {
  Judged j;
  for (const Tracked* s : values) {
    if (!ctx.ready(s)) continue;
    j.v.judged = true;
    j.v.clear = true;
    j.v.stamp = std::max(j.v.stamp, s->t);
  }
  return j;
}

/// Drops the warnings that are no limits. Warnings that are no range (low at or above high: both
/// left at 0) are both dropped; then each side on its own, against the alarms while those are a
/// range: a warning outside its alarm, or on the far side of the other alarm, is dropped.
void usableWarnings(std::optional<double>& lw, std::optional<double>& hw, std::optional<double> la,
                    std::optional<double> ha) {
  if (lw && hw && !(*lw < *hw)) lw.reset(), hw.reset();
  if (la && ha && !(*la < *ha)) return;  // the alarms say nothing (not programmed: both 0)
  if (lw && ((la && *la > *lw) || (ha && *lw >= *ha))) lw.reset();
  if (hw && ((ha && *hw > *ha) || (la && *hw <= *la))) hw.reset();
}

// Rx or Tx power of every lane against the low warning (and alarm) threshold.
Judged judgePower(const RuleContext& ctx, const OpticsDegradedRule& rule, const IfaceRef& in, const Subject& subject,
                  std::span<const Tracked* const> lanes, Fam thresholdFam,
                  std::string_view name, const UnusedLanes& unused, std::string_view quantity) {
  Judged j;
  const auto lowWarn = threshold(ctx, thresholdFam, in, "low_warning");
  const auto lowAlarm = threshold(ctx, thresholdFam, in, "low_alarm");
  if (!lowWarn || *lowWarn <= 0) {
    j.noLimits = true;
    return j;
  }
  const double fireAt = *lowWarn * dbFactor(rule.powerMarginDb);
  const double clearAbove = fireAt * dbFactor(rule.clearHysteresisDb);
  const Tracked* worst = nullptr;
  bool allClear = true;
  for (const Tracked* s : lanes) {
    if (!ctx.ready(s)) continue;
    j.v.judged = true;
    j.v.stamp = std::max(j.v.stamp, s->t);
    if (unused.unused(*s, quantity)) continue;
    if (worst == nullptr || s->raw < worst->raw) worst = s;
    if (s->raw <= clearAbove) allClear = false;
  }
  j.v.clear = allClear;
  if (worst == nullptr) return j;
  j.v.fire = worst->raw <= fireAt;
  const bool belowAlarm = lowAlarm && worst->raw <= *lowAlarm;
  const double lane = laneOf(*worst);
  j.v.evidence.add("lane", lane);
  j.v.evidence.add("power_dbm", worst->raw > 0 ? toDbm(worst->raw) : -99);
  j.v.evidence.add("power_watts", worst->raw);
  j.v.evidence.add("low_warning_dbm", toDbm(*lowWarn));
  if (lowAlarm && *lowAlarm > 0) j.v.evidence.add("low_alarm_dbm", toDbm(*lowAlarm));
  j.v.evidence.add("margin_db", rule.powerMarginDb);
  if (j.v.fire) {
    j.v.summary = fmt::format(
        "{}: {} power of lane {:.0f} is {:.2f} dBm, {} the module's low warning of {:.2f} dBm{}",
        what(subject), name, lane, toDbm(worst->raw),
        worst->raw <= *lowWarn ? "at or below" : "within the margin above", toDbm(*lowWarn),
        belowAlarm ? " and at or below its low alarm" : "");
  }
  return j;
}

// Temperature (module) or bias (per lane) beyond either warning threshold.
Judged judgeRange(const RuleContext& ctx, const IfaceRef& in, const Subject& subject,
                  std::span<const Tracked* const> values, Fam thresholdFam,
                  std::string_view name, std::string_view unit, double display,
                  const UnusedLanes& unused = {}) {
  Judged j;
  auto hw = threshold(ctx, thresholdFam, in, "high_warning");
  auto lw = threshold(ctx, thresholdFam, in, "low_warning");
  const auto ha = threshold(ctx, thresholdFam, in, "high_alarm");
  const auto la = threshold(ctx, thresholdFam, in, "low_alarm");
  // Warnings that are not a range are not limits: a module that programs its alarms and leaves its
  // warnings at 0 would otherwise be "beyond its high warning of 0 °C" at every reading. Usable
  // warnings are ordered low alarm <= low warning < high warning <= high alarm (SFF-8472 9.7,
  // SFF-8636 6.2.6, CMIS 8.3: each warning lies inside its alarm).
  usableWarnings(lw, hw, la, ha);
  if (!hw && !lw) {
    j.noLimits = true;
    return j;
  }
  const Tracked* worst = nullptr;
  double worstExcess = -INFINITY;  // how far beyond a warning threshold, in the value's unit
  for (const Tracked* s : values) {
    if (!ctx.ready(s)) continue;
    j.v.judged = true;
    j.v.stamp = std::max(j.v.stamp, s->t);
    if (unused.unused(*s, "tx_bias")) continue;  // a laser this link does not use is off
    double excess = -INFINITY;
    if (hw) excess = std::max(excess, s->raw - *hw);
    if (lw) excess = std::max(excess, *lw - s->raw);
    if (worst == nullptr || excess > worstExcess) worst = s, worstExcess = excess;
  }
  if (worst == nullptr) {
    j.v.clear = j.v.judged;  // every lane judged is one this link does not use
    return j;
  }
  j.v.fire = worstExcess > 0;
  j.v.clear = worstExcess <= 0;
  const bool beyondAlarm = (ha && worst->raw >= *ha) || (la && worst->raw <= *la);
  const std::string_view laneLabel = worst->label("lane");
  if (!laneLabel.empty()) j.v.evidence.add("lane", laneOf(*worst));
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

/// One module's lanes' power baselines ("rx/1", "tx/3"): the mean power of each part of the day,
/// kept in the state file. Another module (vendor, part number, serial number) is another laser and
/// another link budget, so its lanes start over.
struct ModuleBaselines {
  struct Lane {
    DayBaseline parts;     ///< power readings (watts) over their count, per part of the day
    Nanos lastT = kNever;  ///< the reading learned last (a reading is learned once)
    /// The baseline the latest judgement of the lane's direction held it against; -1: none (not
    /// learned yet, dark, or not judged then). Exported as the lane's baseline gauge.
    double baseline = -1;
    SeriesPtr gauge;  ///< made with the lane's first baseline
  };
  std::string module;  ///< "vendor/part number/serial number"; empty: not known yet
  std::map<std::string, Lane, std::less<>> lanes;
  Nanos judgedT[2] = {kNever, kNever};  ///< Rx, Tx: the newest reading judged
  uint64_t pass = 0;                    ///< the evaluation that last saw the interface
};

/// The most light a DOM can report (SFF-8472 / SFF-8636 / CMIS: an unsigned 16-bit count of 0.1 µW).
constexpr double kMaxDomWatts = 65535 * 1e-7;

// What the sinking reasons compare each lane with, for the dashboards' power charts and for
// whoever reads a finding: a lane's own normal beside its reading and the module's thresholds.
const FamilyDef kRxPowerBaseline{"fabricmon_transceiver_rx_power_baseline_watts",
                                 "A lane's own Rx power baseline, which optics_degraded's rx_power_sinking judges "
                                 "the lane against: the median of the mean power of the parts of the last "
                                 "baseline_window (a day) before the current part, or of the day before the lane "
                                 "sank while a sinking finding holds it; kept across restarts in the state file.",
                                 MetricType::kGauge, "watts", "interface,lane"};
const FamilyDef kTxPowerBaseline{"fabricmon_transceiver_tx_power_baseline_watts",
                                 "A lane's own Tx power baseline, which optics_degraded's tx_power_sinking judges "
                                 "the lane against: the median of the mean power of the parts of the last "
                                 "baseline_window (a day) before the current part, or of the day before the lane "
                                 "sank while a sinking finding holds it; kept across restarts in the state file.",
                                 MetricType::kGauge, "watts", "interface,lane"};
const FamilyDef* const kOpticsDegradedFamilies[] = {&kRxPowerBaseline, &kTxPowerBaseline};

// Rx or Tx power of every lane against the lane's own baseline: each new reading is learned into
// its part of the day, and the lane that sank furthest below the median of the parts before the
// current one is judged, whether or not it is above the module's thresholds. Light that sinks slowly
// enough for the median to follow (less than sink_db in about half a day) is left to the thresholds;
// a lane that sank sink_db below it holds its baseline (DayBaseline::judged) for baseline_hold, so
// the sunk light is not learned as its normal, until it is back within sink_db less the hysteresis.
// Judged only when a lane has a new reading (every ~60 s, not at every pass); with new readings and
// no lane's baseline known (a new module, a new baseline_window), the verdict is "clear", so a
// finding of the module before does not hold for the half day the new one needs to learn.
Judged judgeSinking(const RuleContext& ctx, const OpticsDegradedRule& rule, const IfaceRef& in,
                    const Subject& subject, std::span<const Tracked* const> lanes, Fam thresholdFam,
                    std::string_view name, std::string_view quantity, const UnusedLanes& unused,
                    ModuleBaselines& module) {
  Judged j;
  const bool isRx = quantity == "rx_power";
  Nanos& judgedT = module.judgedT[isRx ? 0 : 1];
  Nanos newest = kNever;
  for (const Tracked* s : lanes) {
    if (ctx.ready(s)) newest = std::max(newest, s->t);
  }
  if (newest == judgedT && newest != kNever) return j;  // nothing new since the last judgement
  judgedT = newest;
  // A lane not judged now (dark, unused, or no reading at all) exports no baseline.
  const std::string_view prefix = isRx ? "rx/" : "tx/";
  for (auto& [key, l] : module.lanes) {
    if (key.starts_with(prefix)) l.baseline = -1;
  }
  if (newest == kNever) return j;
  const int64_t width = DayBaseline::partSecondsFor(rule.baselineWindow);
  const int64_t now = DayBaseline::wallSeconds(ctx.wallNow);
  const Tracked* worst = nullptr;
  double worstDrop = -INFINITY, worstBaseline = 0;
  bool allClear = true;
  for (const Tracked* s : lanes) {
    if (!ctx.ready(s) || unused.unused(*s, quantity)) continue;
    char buf[32];
    const auto end = fmt::format_to_n(buf, sizeof buf, "{}/{}", isRx ? "rx" : "tx", s->label("lane"));
    const std::string_view key(buf, std::min(end.size, sizeof buf));
    auto lane = module.lanes.find(key);
    if (lane == module.lanes.end()) lane = module.lanes.emplace(std::string(key), ModuleBaselines::Lane{}).first;
    ModuleBaselines::Lane& l = lane->second;
    l.parts.cut(width);
    l.parts.limitHold(rule.baselineHold, now);
    const bool fresh = s->t != l.lastT;
    l.lastT = s->t;
    // Judged before it is learned: a reading that sank holds the baseline first.
    const double baseline = l.parts.median(now, 1, rule.baselineMinParts);
    if (baseline < kDarkWatts) {
      if (fresh) l.parts.add(width, now, s->raw, 1);
      continue;
    }
    l.baseline = baseline;
    if (!l.gauge) {
      l.gauge = makeSeries(isRx ? kRxPowerBaseline : kTxPowerBaseline,
                           {{"interface", std::string(in.name)}, {"lane", std::string(s->label("lane"))}});
    }
    const double drop = 10 * std::log10(baseline / s->raw);
    l.parts.judged(drop >= rule.sinkDb, drop <= rule.sinkDb - rule.clearHysteresisDb, now, rule.baselineHold);
    if (fresh) l.parts.add(width, now, s->raw, 1);  // nothing while the hold stands
    if (drop > rule.sinkDb - rule.clearHysteresisDb) allClear = false;
    if (worst == nullptr || drop > worstDrop) worst = s, worstDrop = drop, worstBaseline = baseline;
  }
  j.v.judged = true;
  j.v.stamp = newest;
  j.v.clear = allClear;
  if (worst == nullptr) return j;
  j.v.fire = worstDrop >= rule.sinkDb;
  const double lane = laneOf(*worst);
  const auto lowWarn = threshold(ctx, thresholdFam, in, "low_warning");
  j.v.evidence.add("lane", lane);
  j.v.evidence.add("power_dbm", toDbm(worst->raw));
  j.v.evidence.add("baseline_dbm", toDbm(worstBaseline));
  j.v.evidence.add("drop_db", worstDrop);
  j.v.evidence.add("sink_db", rule.sinkDb);
  if (lowWarn && *lowWarn > 0) j.v.evidence.add("low_warning_dbm", toDbm(*lowWarn));
  if (j.v.fire) {
    j.v.summary = fmt::format(
        "{}: {} power of lane {:.0f} is {:.2f} dBm, {:.1f} dB below the lane's own baseline of {:.2f} dBm{}",
        what(subject), name, lane, toDbm(worst->raw), worstDrop, toDbm(worstBaseline),
        lowWarn && *lowWarn > 0 ? fmt::format(" (the module's low warning is {:.2f} dBm)", toDbm(*lowWarn)) : "");
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
    /// The module (moduleIdentity) whose thresholds were last seen, per quantity judged against
    /// them: Rx power, Tx power, bias, temperature.
    std::array<std::string, 4> limitsModule;
  };
  static constexpr Nanos kDarkNow = INT64_MAX;
  std::map<std::string, Light, std::less<>> lightAlarm;
  /// Every interface's module's lane baselines, by interface: kept while the interface is away
  /// (a driver reload) until every part is older than the baseline window.
  std::map<std::string, ModuleBaselines, std::less<>> baselines;
  uint64_t pass = 0;
  void disabled() override { lightAlarm.clear(); }
  bool save(nlohmann::json& out) const override;
  void restore(const nlohmann::json& in) override;
  void appendSamples(SampleWriter& out) override;
};

// Latched alarm flags: the module's own verdict that a value crossed an alarm threshold since the
// previous read. While the link is down, and for the first reading after it was (`skipLight`), the
// light flags are not judged, as the power and bias values are not while it is down: the other
// flags (temperature, supply voltage) still fire and clear, and a finding a light flag raised
// (`lightHolds`: one was set at the last judgement of them) keeps its state until they are judged
// again (docs/rules.md, "optics_degraded"). When they are judged, `lightSet` gets whether one is set.
Judged judgeAlarmFlags(const Subject& subject, std::span<const Tracked* const> flags, bool skipLight,
                       bool lightHolds, bool& lightSet, const UnusedLanes& unused) {
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
      // A dark lane this link does not use latches its light alarms at every read.
      if (unused.unused(*s, s->label("quantity"))) continue;
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

/// The interface's module's baselines. Another module than the one they were learned from starts
/// over; an identity not known ("", RuleContext::moduleIdentity) changes nothing.
ModuleBaselines& baselinesOf(OpticsMemory& memory, const IfaceRef& in, const std::string& identity) {
  auto it = memory.baselines.find(in.name);
  if (it == memory.baselines.end()) it = memory.baselines.emplace(std::string(in.name), ModuleBaselines{}).first;
  ModuleBaselines& module = it->second;
  module.pass = memory.pass;
  if (identity.empty()) return module;
  if (identity != module.module) {
    if (!module.module.empty()) {
      module.lanes.clear();
      module.judgedT[0] = module.judgedT[1] = kNever;
    }
    module.module = identity;
  }
  return module;
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
    // A quantity without usable limits holds its finding (the module's threshold page not read this
    // time, a value out of its domain) unless the module is another one than the one whose limits
    // were last seen: then the finding was the module's before.
    const std::string identity = RuleContext::moduleIdentity(in);
    auto againstLimits = [&](size_t quantity, Judged j, std::span<const Tracked* const> values) {
      std::string& seen = l.limitsModule[quantity];
      if (!j.noLimits) {
        if (!identity.empty() && seen != identity) seen = identity;
        return j;
      }
      if (!identity.empty() && !seen.empty() && identity != seen) return clearWithoutLimits(ctx, values);
      return j;
    };
    // While the link is down every lane is dark: none is told apart as unused then.
    UnusedLanes unused;
    if (!down) {
      const uint32_t rxDark = UnusedLanes::darkOf(rx);
      unused = UnusedLanes{rxDark, tx.empty() ? UnusedLanes::offWithoutTxMonitor(bias, rxDark) : UnusedLanes::darkOf(tx)};
    }
    if (down) {
      for (const char* reason : {"rx_power_low", "tx_power_low", "tx_bias", "rx_power_sinking", "tx_power_sinking"})
        report(reason, Judged{}, values);
    } else {
      if (!rx.empty() || !tx.empty()) {
        ModuleBaselines& module = baselinesOf(memory, in, identity);
        report("rx_power_sinking",
               judgeSinking(ctx, rule, in, subject, rx, Fam::kXcvrRxPowerThreshold, "Rx", "rx_power", unused, module),
               values);
        report("tx_power_sinking",
               judgeSinking(ctx, rule, in, subject, tx, Fam::kXcvrTxPowerThreshold, "Tx", "tx_power", unused, module),
               values);
      }
      report("rx_power_low",
             againstLimits(0, judgePower(ctx, rule, in, subject, rx, Fam::kXcvrRxPowerThreshold, "Rx", unused, "rx_power"), rx),
             values);
      report("tx_power_low",
             againstLimits(1, judgePower(ctx, rule, in, subject, tx, Fam::kXcvrTxPowerThreshold, "Tx", unused, "tx_power"), tx),
             values);
      report("tx_bias",
             againstLimits(2, judgeRange(ctx, in, subject, bias, Fam::kXcvrTxBiasThreshold, "laser bias", "mA", 1000, unused), bias),
             values);
    }
    report("temperature",
           againstLimits(3, judgeRange(ctx, in, subject, temperature, Fam::kXcvrTemperatureThreshold,
                                       "module temperature", "°C", 1), temperature),
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
    report("alarm_flag", judgeAlarmFlags(subject, alarms, skipLight, l.set, lightSet, unused), flags);
    if (!skipLight) l.set = lightSet;
  }
  std::erase_if(memory.lightAlarm, [&](const auto& kv) { return kv.second.pass != memory.pass; });
  // A module not seen in this evaluation whose every lane's parts are older than the window has
  // nothing left to say (one seen keeps its entry: it is learning).
  const int64_t now = DayBaseline::wallSeconds(ctx.wallNow);
  std::erase_if(memory.baselines, [&](const auto& kv) {
    return kv.second.pass != memory.pass &&
           std::all_of(kv.second.lanes.begin(), kv.second.lanes.end(),
                       [&](const auto& lane) { return lane.second.parts.expired(now); });
  });
}

void planOpticsDegraded(const OpticsDegradedRule& /*rule*/, EnginePlan& /*plan*/) {}

// ---- the state file: each interface's module and its lanes' parts ----

bool OpticsMemory::save(nlohmann::json& out) const {
  out = nlohmann::json::object();
  for (const auto& [iface, module] : baselines) {
    nlohmann::json lanes = nlohmann::json::object();
    for (const auto& [lane, l] : module.lanes) {
      if (!l.parts.empty()) l.parts.save(lanes[lane]);
    }
    if (!lanes.empty()) out[iface] = {{"module", module.module}, {"lanes", std::move(lanes)}};
  }
  return true;
}

/// "rx/1" .. "tx/8": the only lane keys judgeSinking makes (CMIS has up to 8 lanes).
bool laneKey(std::string_view key) {
  return key.size() == 4 && (key.starts_with("rx/") || key.starts_with("tx/")) && key[3] >= '1' && key[3] <= '8';
}

void OpticsMemory::restore(const nlohmann::json& in) {
  // More interfaces than any node has are a file that is not ours to believe (one per cage).
  constexpr size_t kMaxInterfaces = 4096;
  if (!in.is_object()) return;
  for (const auto& [iface, doc] : in.items()) {
    if (baselines.size() >= kMaxInterfaces) break;
    if (!doc.is_object() || !doc.contains("lanes") || !doc["lanes"].is_object()) continue;
    ModuleBaselines module;
    if (doc.contains("module") && doc["module"].is_string()) module.module = doc["module"];
    for (const auto& [lane, l] : doc["lanes"].items()) {
      ModuleBaselines::Lane restored;
      if (laneKey(lane) && restored.parts.restore(l, kMaxDomWatts)) module.lanes.emplace(lane, std::move(restored));
    }
    if (!module.lanes.empty()) baselines[iface] = std::move(module);
  }
}

// Each lane's baseline while its interface's link is up (the evaluation saw the module's lanes),
// as the latest judgement of its direction held it.
void OpticsMemory::appendSamples(SampleWriter& out) {
  for (const auto& [iface, module] : baselines) {
    if (module.pass != pass) continue;
    for (const auto& [key, lane] : module.lanes) {
      if (lane.baseline >= 0 && lane.gauge) out.add(lane.gauge, lane.baseline);
    }
  }
}

}  // namespace

const RuleDef kOpticsDegradedRule = withMemory<OpticsMemory>(
    defineRule<OpticsDegradedRule, planOpticsDegraded, evaluateOpticsDegraded>("optics_degraded", "physical"),
    kOpticsDegradedFamilies);

}  // namespace fabricmon::watchdog
