// link_ber: the physical layer before it fails. The pre-FEC bit error rate (corrected bits over
// received bits, both over one window) against the margin its FEC leaves, uncorrectable FEC
// codewords (post-FEC errors: frames lost), and the BER climbing against the port's own baseline
// of the last day; of every Ethernet interface, and of both ends of every InfiniBand link (side
// local and peer, over MADs). docs/rules.md ("link_ber") argues every default.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "watchdog/day_baseline.hpp"
#include "watchdog/rules/link_ber.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon::watchdog {
namespace {

/// link_ber's memory of one end of a link: the pre-FEC BER baseline, kept in the state file (it
/// takes a day to learn; docs/rules.md "link_ber").
struct BerBaseline {
  DayBaseline parts;            ///< corrected bits over bits received, per part of the day
  double lastErrors = -1;       ///< running totals (Tracked::total) at the last evaluation
  double lastBits = -1;
  Nanos lastT = kNever;
  /// When the link was first seen up since it was last down (or since start): a BER window that
  /// reaches back before it holds the time before the outage, which takes no hold.
  Nanos upSince = kNever;
  /// The module the parts were learned with (RuleContext::moduleIdentity; "" not known): another
  /// module is another normal, as for optics_degraded's light.
  std::string module;
  /// The module changed and its baseline is not learned yet: `degrading` is judged clear meanwhile,
  /// so the finding of the module before does not hold through the half day the new one learns.
  bool newModule = false;
  bool live = false;            ///< judged in the latest evaluation: its gauges are exported
  /// The next interval is not learned (the link was down, the counter stopped): it starts anew.
  void restartInterval() {
    lastErrors = -1;
    lastBits = -1;
    lastT = kNever;
  }
  SeriesPtr berGauge, baselineGauge, levelGauge;
  double ber = -1, baseline = -1, level = -1;  ///< the gauges' values (< 0: not exported)
};

/// Whether link_ber judges an RDMA port's pre-FEC margin, and if not why
/// (fabricmon_watchdog_link_ber_unjudged_info).
struct PortCoverage {
  std::string interface;     ///< the interface the port named when firstSeen was set
  Nanos firstSeen = kNever;  ///< the settle time counts from here (the port, or its interface, new)
  bool seen = false;         ///< seen in the latest evaluation
  std::string_view why;      ///< "" = judged (or not settled yet); else a static reason (Ber::why)
  SeriesPtr series;          ///< the info series while `why` and the interface stay the same
};

/// Every link end's baseline, by LinkEnd::key; every port's coverage, by "device/port".
struct LinkBerMemory : RuleState {
  std::map<std::string, BerBaseline, std::less<>> berBaselines;
  std::map<std::string, PortCoverage, std::less<>> coverage;

  bool save(nlohmann::json& out) const override;
  void restore(const nlohmann::json& in) override;
  void appendSamples(SampleWriter& out) override;
  void disabled() override { coverage.clear(); }
};

constexpr double kBitsPerByte = 8;

/// Why a margin is not judged. A reason the node will not outgrow (a counter the NIC does not report)
/// is listed; a passing one (a window not yet full, a link down) holds what was listed before.
namespace unjudged {
constexpr std::string_view kJudged;
constexpr std::string_view kNoFecCounters = "no_fec_counters";
constexpr std::string_view kNoCorrectedCounts = "no_corrected_counts";
constexpr std::string_view kFecOff = "fec_off";
constexpr std::string_view kNoBitCount = "no_bit_count";
constexpr std::string_view kCounterSaturated = "counter_saturated";
}  // namespace unjudged
using Coverage = std::optional<std::string_view>;  ///< nullopt: passing, hold what was listed
constexpr Coverage kHold = std::nullopt;

struct Ber {
  bool judged = false;
  Coverage why = kHold;       ///< when not judged
  double ber = 0;
  double errors = 0;
  double bits = 0;
  double seconds = 0;
  bool approximated = false;  ///< from corrected codewords or RS symbols, not corrected bits
  Nanos stamp = kNever;
};

/// The FEC the port runs and what it can take.
struct Fec {
  std::string code;      ///< "RS(544,514)", ...; "assumed ..." when inferred
  double limit = 0;      ///< correction limit (0: no FEC, nothing to judge)
  double lanes = 0;      ///< 0 = unknown
  double bitsPerSecond = 0;
};

double limitFor(const LinkBerRule& rule, std::string_view code) {
  if (code.starts_with("RS(544")) return rule.rs544CorrectionLimit;
  if (code.starts_with("RS(528")) return rule.rs528CorrectionLimit;
  // Ethernet's LLRS is RS(272,257+1), InfiniBand's Low-Latency RS-FEC RS(271,257): the same code
  // family with the same 7-symbol correction (IBA vol. 2, the Consortium's LLRS specification).
  if (code.starts_with("RS(272") || code.starts_with("RS(271")) return rule.llrsCorrectionLimit;
  if (code.starts_with("BaseR")) return rule.baserCorrectionLimit;
  return 0;
}

/// One end of one link as link_ber reads it: an Ethernet interface (the ethtool and fec
/// collectors) or either end of an InfiniBand port's link (peer_port, over MADs).
struct LinkEnd {
  std::string key;       ///< its baseline's: the interface, or "<device>/<port>/<side>" (never an interface name)
  Subject subject;
  const PortRef* port = nullptr;  ///< the RDMA port (its role and rail name it in a summary)
  bool down = false;
  bool infiniband = false;
  const Inputs* inputs = nullptr;  ///< the lane series' subject
  const Tracked* correctedBits = nullptr;   ///< bit errors corrected (Ethernet PHY counters)
  const Tracked* correctedSymbols = nullptr;///< RS symbols corrected (InfiniBand RS-FEC)
  const Tracked* correctedBlocks = nullptr;
  const Tracked* uncorrectable = nullptr;
  const Tracked* received = nullptr;        ///< bytes the PHY received (Ethernet)
  std::array<Fam, 2> laneFams{};            ///< per-lane corrected counts, the finer first
  const Tracked* lanes = nullptr;
  const Tracked* speed = nullptr;           ///< the link's bytes/s (Ethernet link modes)
  const Tracked* rate = nullptr;            ///< the RDMA port's bytes/s
  const Tracked* fecInfo = nullptr;
  std::string module;  ///< the interface's module (RuleContext::moduleIdentity); "" not known
  bool hasFecCounters() const { return correctedBits || correctedSymbols || correctedBlocks || uncorrectable; }
  /// An InfiniBand end that runs no FEC (PortInfoExtended): judged as `fec_off`, without counters.
  bool fecOff() const { return fecInfo != nullptr && fecInfo->samples > 0 && fecInfo->label("code") == "none"; }
  /// How a summary names it (built only for a summary).
  std::string where() const;
};

Fec fecOf(const LinkBerRule& rule, const LinkEnd& in) {
  Fec f;
  if (in.lanes && in.lanes->samples > 0) f.lanes = in.lanes->raw;
  if (in.speed && in.speed->samples > 0) {
    f.bitsPerSecond = in.speed->raw * kBitsPerByte;
  } else if (in.rate && in.rate->samples > 0) {
    f.bitsPerSecond = in.rate->raw * kBitsPerByte;
  }
  std::string_view code;
  if (in.fecInfo && in.fecInfo->samples > 0) code = in.fecInfo->label("code");
  if (code == "none") return f;  // FEC off: pre-FEC is post-FEC, link_errors judges it
  if (!code.empty() && code != "RS" && code != "unknown") {
    f.code = std::string(code);
  } else {
    // The FEC is not reported (no ethtool netlink): every IEEE PHY of 50G and 100G lanes runs
    // RS(544,514); anything slower is taken as RS(528,514), the stricter of the two.
    const double lane = f.lanes > 0 ? f.bitsPerSecond / f.lanes : (f.bitsPerSecond >= 200e9 ? 50e9 : 0);
    f.code = lane >= 40e9 ? "RS(544,514)" : "RS(528,514)";
  }
  f.limit = limitFor(rule, f.code);
  return f;
}

/// The count of corrected errors a BER is made of: bits where the NIC counts them, else RS symbols
/// (each holds at least one bit error), else codewords. `approximated` when not bits.
const Tracked* correctedErrors(const RuleContext& ctx, const LinkEnd& in, bool* approximated) {
  *approximated = false;
  if (ctx.ready(in.correctedBits)) return in.correctedBits;
  *approximated = true;
  if (ctx.ready(in.correctedSymbols)) return in.correctedSymbols;
  return in.correctedBlocks;
}

/// Corrected bits over received bits, both over the same `window`. Without a received-bit counter,
/// the line rate times the time; without corrected bits, corrected codewords x 1 bit (a lower bound:
/// a corrected codeword holds at least one bit error, and rarely more while the BER is low).
Ber berOver(const RuleContext& ctx, const LinkEnd& in, const Fec& fec, Nanos window) {
  Ber b;
  const Tracked* errors = correctedErrors(ctx, in, &b.approximated);
  if (!ctx.ready(errors)) {
    // Neither count exists (uncorrectable codewords only); one that exists is not ready yet.
    if (!in.correctedBits && !in.correctedSymbols && !in.correctedBlocks) b.why = unjudged::kNoCorrectedCounts;
    return b;
  }
  // A 32-bit PMA counter at its maximum stopped counting: its increase says nothing of the BER (a
  // FireCode total is held there once one of its lanes is: collectors/sources/mad_fields.hpp).
  if (errors->saturated) {
    b.why = unjudged::kCounterSaturated;
    return b;
  }
  const auto e = errors->over(window);
  if (e.seconds <= 0) return b;
  const Tracked* received = in.received;
  double bits = 0;
  Nanos stamp = errors->t;
  if (ctx.ready(received) && received->t == errors->t) {
    const auto r = received->over(window);
    // Both counters come from one NIC read: the same samples bound both windows. A window cut at
    // other samples (one series is younger) is not a ratio of the same time.
    if (std::abs(r.seconds - e.seconds) > 1e-3 * e.seconds) return b;
    bits = r.increase * kBitsPerByte;
  } else if (fec.bitsPerSecond > 0) {
    bits = fec.bitsPerSecond * e.seconds;
  } else {
    b.why = unjudged::kNoBitCount;  // no received-bit count read with the errors, and no line rate
  }
  if (bits <= 0) return b;
  b.judged = true;
  b.errors = e.increase;
  b.bits = bits;
  b.seconds = e.seconds;
  b.ber = e.increase / bits;
  b.stamp = stamp;
  return b;
}

/// The lane with the most corrected bits (mlx5 rx_err_lane_<N>_phy) or codewords over the window.
struct Lane {
  int lane = -1;
  double ber = 0;
};
Lane worstLane(const RuleContext& ctx, const LinkEnd& in, const Ber& total, double lanes, Nanos window) {
  Lane worst;
  double most = -1;
  double count = 0;
  for (Fam fam : in.laneFams) {
    for (const Tracked* s : in.inputs->all(fam)) {
      if (!ctx.ready(s)) continue;
      ++count;
      const double inc = s->over(window).increase;
      if (inc > most) {
        most = inc;
        unsigned n = 0;
        auto lane = in.inputs->label(*s);
        std::from_chars(lane.data(), lane.data() + lane.size(), n);
        worst.lane = static_cast<int>(n);
      }
    }
    if (count > 0) break;  // bits when there are bits, codewords otherwise
  }
  const double perLane = lanes > 0 ? lanes : count;
  if (worst.lane >= 0 && total.bits > 0 && perLane > 0) worst.ber = most / (total.bits / perLane);
  return worst;
}

// ---- the baseline: 24 parts of baseline_window, each a BER, dated by the wall clock ----

int64_t partSeconds(const LinkBerRule& rule) {
  return DayBaseline::partSecondsFor(rule.baselineWindow);
}

int64_t wallSeconds(const RuleContext& ctx) { return DayBaseline::wallSeconds(ctx.wallNow); }

/// Adds the interval since the last evaluation to the current part (the caller cut the parts to
/// the rule's width).
void learn(BerBaseline& m, const RuleContext& ctx, const LinkBerRule& rule, const Tracked* errors,
           const Tracked* received, const Fec& fec) {
  if (errors == nullptr || errors->t == m.lastT) return;
  const double bitsTotal = received != nullptr && received->t == errors->t ? received->total * kBitsPerByte : -1;
  const double dErrors = errors->total - m.lastErrors;
  // The interval's bits: the received-bytes counter's increase when both of its ends were read
  // with the errors; else the line rate over the interval. Neither: the interval is not counted
  // (its errors without its bits would read as a BER far above the truth, and bits counted from
  // an end that was not read, as all bits since start, as one far below it).
  double dBits = -1;
  if (bitsTotal >= 0 && m.lastBits >= 0) {
    dBits = bitsTotal - m.lastBits;
  } else if (fec.bitsPerSecond > 0 && m.lastT != kNever) {
    dBits = fec.bitsPerSecond * double(errors->t - m.lastT) / kSecond;
  }
  const bool continuous = m.lastT != kNever && dErrors >= 0 && dBits >= 0 && m.lastErrors >= 0;
  m.lastErrors = errors->total;
  m.lastBits = bitsTotal;
  m.lastT = errors->t;
  // A series that was forgotten and seen again restarts its totals: that interval is not counted.
  if (!continuous) return;
  m.parts.add(partSeconds(rule), wallSeconds(ctx), dErrors, dBits);
}

/// The median BER of the parts before the current one within the baseline window; < 0 while fewer
/// than baseline_min_parts parts hold enough bits.
double baselineOf(const BerBaseline& m, const RuleContext& ctx, const LinkBerRule& rule) {
  return m.parts.median(wallSeconds(ctx), rule.minBits, rule.baselineMinParts);
}

/// The gauges of an interface (`infiniband` false) or of an InfiniBand port's end: 0 BER,
/// 1 baseline, 2 warning level.
const FamilyDef* gaugeFamily(bool infiniband, int which);
const FamilyDef* coverageFamily();

void setGauges(BerBaseline& m, const LinkEnd& in, double ber, double baseline, double level) {
  if (!m.berGauge) {
    const Labels labels = in.infiniband ? Labels{{"device", std::string(in.subject.device)},
                                                 {"port", std::string(in.subject.port)},
                                                 {"side", std::string(in.subject.side)}}
                                        : Labels{{"interface", std::string(in.subject.interface)}};
    m.berGauge = makeSeries(*gaugeFamily(in.infiniband, 0), labels);
    m.baselineGauge = makeSeries(*gaugeFamily(in.infiniband, 1), labels);
    m.levelGauge = makeSeries(*gaugeFamily(in.infiniband, 2), labels);
  }
  m.live = true;
  m.ber = ber;
  m.baseline = baseline;
  m.level = level;
}

/// How a summary names a link end: the interface (or device/port) with its role and rail.
std::string whereOf(std::string out, const PortRef* port) {
  if (port == nullptr) return out;
  if (const Tracked* t = port->in(Fam::kPortTopology)) {
    auto role = t->label("role"), rail = t->label("rail");
    if (!role.empty() || !rail.empty()) {
      out += fmt::format(" ({}{}{})", role, rail.empty() ? "" : ", rail ", rail);
    }
  }
  return out;
}

std::string LinkEnd::where() const {
  if (!infiniband) return whereOf(std::string(subject.interface), port);
  return whereOf(fmt::format("{}/{}", subject.device, subject.port), port) +
         (subject.side == "peer" ? ", at the neighbour's end" : "");
}

/// An Ethernet interface as a link end.
LinkEnd interfaceEnd(const IfaceRef& in) {
  const PortRef* port = in.port;
  LinkEnd e;
  e.key = std::string(in.name);
  e.subject = Subject{port ? port->device : std::string_view{}, port ? port->port : std::string_view{}, in.name, {}};
  e.port = port;
  e.down = RuleContext::interfaceDown(in);
  e.inputs = &in.inputs;
  e.correctedBits = in.in(Fam::kPhyCorrectedBits);
  e.correctedBlocks = in.in(Fam::kFecCorrectedBlocks);
  e.uncorrectable = in.in(Fam::kFecUncorrectable);
  e.received = in.in(Fam::kPhyReceivedBytes);
  e.laneFams = {Fam::kPhyLaneCorrectedBits, Fam::kFecLaneCorrected};
  e.lanes = in.in(Fam::kLinkLanes);
  e.speed = in.in(Fam::kLinkSpeed);
  e.rate = port != nullptr ? port->in(Fam::kPortRate) : nullptr;
  e.fecInfo = in.in(Fam::kFecInfo);
  e.module = RuleContext::moduleIdentity(in);
  return e;
}

/// One end of an InfiniBand port's link: the port's own PMA (`peer` false) or the neighbour's port
/// facing it. Both ends run at the port's rate.
LinkEnd infinibandEnd(const PortRef& p, bool peer) {
  LinkEnd e;
  e.key = fmt::format("{}/{}/{}", p.device, p.port, peer ? "peer" : "local");
  e.subject = Subject{p.device, p.port, p.interface, {}, peer ? "peer" : "local"};
  e.port = &p;
  e.down = RuleContext::portDown(p);
  e.infiniband = true;
  e.inputs = p.inputs;
  e.correctedSymbols = p.in(peer ? Fam::kPeerIbFecCorrectedSymbols : Fam::kIbFecCorrectedSymbols);
  e.correctedBlocks = p.in(peer ? Fam::kPeerIbFecCorrectedBlocks : Fam::kIbFecCorrectedBlocks);
  e.uncorrectable = p.in(peer ? Fam::kPeerIbFecUncorrectable : Fam::kIbFecUncorrectable);
  e.laneFams = peer ? std::array{Fam::kPeerIbFecLaneSymbols, Fam::kPeerIbFecLaneBlocks}
                    : std::array{Fam::kIbFecLaneSymbols, Fam::kIbFecLaneBlocks};
  e.lanes = p.in(Fam::kWidthActive);
  e.rate = p.in(Fam::kPortRate);
  e.fecInfo = p.in(peer ? Fam::kPeerIbFecInfo : Fam::kIbFecInfo);
  return e;
}

/// Judges one link end; returns whether its margin was judged (docs/rules.md, "link_ber").
Coverage evaluateEnd(RuleContext& ctx, const LinkBerRule& rule, const LinkEnd& in) {
  const Subject& subject = in.subject;
  const Nanos window = toNanos(rule.window);
  const Fec fec = fecOf(rule, in);
  auto& baselines = ctx.remembered<LinkBerMemory>().berBaselines;
  auto it = baselines.find(in.key);
  if (it == baselines.end()) it = baselines.try_emplace(in.key).first;
  BerBaseline& memory = it->second;
  // Another module (a swapped optic) is another normal: its BER is learned afresh, neither judged
  // against nor held at the one before.
  if (!in.module.empty() && in.module != memory.module) {
    if (!memory.module.empty()) {
      memory.parts = DayBaseline{};
      memory.restartInterval();
      memory.newModule = true;
    }
    memory.module = in.module;
  }

  // A link that is down has no BER: hold every verdict as it is.
  const bool down = in.down;

  // ---- uncorrectable codewords: frames lost after the FEC ----
  {
    Verdict v;
    const Tracked* uncorr = in.uncorrectable;
    if (ctx.ready(uncorr) && !uncorr->saturated) {
      const auto w = uncorr->over(window);
      v.judged = true;
      v.stamp = uncorr->t;
      v.fire = w.increase > rule.uncorrectableBlocks;
      v.clear = !v.fire;
      v.evidence.add("uncorrectable_blocks", w.increase);
      v.evidence.add("observed_seconds", w.seconds);
      v.evidence.add("limit", rule.uncorrectableBlocks);
      v.evidence.add("lanes", fec.lanes);
      if (v.fire) {
        v.summary = fmt::format("{}: {:.0f} uncorrectable FEC codewords in {:.0f}s ({}): frames are being lost "
                                "after FEC",
                                in.where(), w.increase, w.seconds, fec.code.empty() ? "FEC" : fec.code);
      }
    }
    ctx.observe("uncorrectable", Severity::kCritical, subject, Policy{}, v);
  }

  bool approximated = false;
  const Tracked* errors = correctedErrors(ctx, in, &approximated);
  if (errors != nullptr && errors->saturated) {
    // Stopped counting: nothing to learn, and the interval up to the clearing is not one either.
    errors = nullptr;
    memory.restartInterval();
  }
  const Tracked* received = in.received;
  // Parts cut to another width (a state file of another baseline_window) are dropped even while the
  // link is down and nothing is learned: they are no baseline to show.
  memory.parts.cut(partSeconds(rule));
  memory.parts.limitHold(rule.baselineHold, wallSeconds(ctx));
  if (down) {
    // The interval over an outage is not one: without a received-bit count its bits would be the
    // line rate over the time the link carried nothing. A link that went down and came back (a
    // reseat, a swapped optic or cable: a repair) is judged afresh: its hold ends, and is taken
    // again if it still degrades.
    memory.restartInterval();
    memory.parts.release();
    memory.upSince = kNever;
  } else if (memory.upSince == kNever) {
    memory.upSince = ctx.now;
  }
  // The median is of the parts before the current one: learning (below, once the verdicts are in)
  // does not move it.
  const double baseline = baselineOf(memory, ctx, rule);
  const Ber now = down ? Ber{} : berOver(ctx, in, fec, window);
  const bool enough = now.judged && now.bits >= rule.minBits;
  const double level = fec.limit > 0 ? fec.limit / rule.marginFactor : -1;
  setGauges(memory, in, enough ? now.ber : -1, baseline, level);

  // ---- too little margin left to the FEC's correction limit ----
  {
    Verdict v;
    if (enough && fec.limit > 0) {
      v.judged = true;
      v.stamp = now.stamp;
      v.fire = now.ber > level;
      v.clear = !v.fire;
      const Lane lane = worstLane(ctx, in, now, fec.lanes, window);
      v.evidence.add("ber", now.ber);
      v.evidence.add("warning_level", level);
      v.evidence.add("correction_limit", fec.limit);
      v.evidence.add("baseline_ber", baseline);
      v.evidence.add("lanes", fec.lanes);
      v.evidence.add("worst_lane", lane.lane);
      v.evidence.add("worst_lane_ber", lane.ber);
      v.evidence.add("window_seconds", now.seconds);
      v.evidence.add("approximated", now.approximated ? 1 : 0);
      if (v.fire) {
        v.summary = fmt::format("{}: pre-FEC BER {:.2g} over {:.0f}s, {} corrects up to ~{:.2g}: less than {:g}x margin left{}",
                                in.where(), now.ber, now.seconds, fec.code, fec.limit, rule.marginFactor,
                                lane.lane >= 0 ? fmt::format(" (worst lane {}: {:.2g})", lane.lane, lane.ber) : "");
      }
    }
    ctx.observe("margin", Severity::kWarning, subject, Policy{}, v);
  }

  // ---- degrading: up by degrade_factor against the port's own baseline ----
  {
    Verdict v;
    if (baseline >= 0) memory.newModule = false;
    if (enough && memory.newModule) {
      v.judged = true;  // nothing known to degrade against yet: the finding before is not this module's
      v.stamp = now.stamp;
      v.clear = true;
    } else if (enough && baseline >= 0) {
      v.judged = true;
      v.stamp = now.stamp;
      const double reference = std::max(baseline, rule.degradeFloor / rule.degradeFactor);
      v.fire = now.ber >= rule.degradeFloor && now.ber >= rule.degradeFactor * reference;
      // Cleared once back under half the trigger: a BER sitting right at the factor does not flap.
      v.clear = now.ber < rule.degradeFactor * reference / 2;
      v.evidence.add("ber", now.ber);
      v.evidence.add("baseline_ber", baseline);
      v.evidence.add("factor", baseline > 0 ? now.ber / baseline : 0);
      v.evidence.add("lanes", fec.lanes);
      v.evidence.add("correction_limit", fec.limit);
      v.evidence.add("window_seconds", now.seconds);
      if (v.fire) {
        v.summary = fmt::format("{}: pre-FEC BER {:.2g} is {:.0f}x its baseline of {:.2g} ({}): the optic or cable is "
                                "degrading",
                                in.where(), now.ber, baseline > 0 ? now.ber / baseline : 0.0, baseline,
                                fec.code.empty() ? "FEC" : fec.code);
      }
    }
    ctx.observe("degrading", Severity::kWarning, subject, Policy{}, v);
    // A degrading end holds its baseline (DayBaseline::judged) for baseline_hold, from the interval
    // that fired on (learned after this): learned, its BER would be the median half a day later
    // and the finding would clear with the link no better. Back under the clearing level it learns
    // again. A window that reaches back before the link came up holds the time before an outage:
    // it takes no hold.
    if (v.judged) {
      const bool wholeWindowUp = ctx.now - memory.upSince >= window;
      memory.parts.judged(v.fire, v.clear, wallSeconds(ctx), wholeWindowUp ? rule.baselineHold : Duration{0});
    }
  }
  if (!down) learn(memory, ctx, rule, ctx.ready(errors) ? errors : nullptr, ctx.ready(received) ? received : nullptr, fec);

  if (down) return kHold;
  // Every correction limit is > 0 (the config loader's range): only FEC off has none.
  if (fec.limit <= 0) return unjudged::kFecOff;
  if (!now.judged) return now.why;
  return enough ? Coverage{unjudged::kJudged} : kHold;
}

// ---- coverage: the ports whose pre-FEC margin is not judged, and why ----

/// How long a port (or its interface, renamed) is on the node before it is listed: its FEC and PHY
/// counters come from the fec and ethtool_pfc collectors, each at its own interval (poll.interval by
/// default; the config loader keeps every interval under poll.stale_after, 30 s by default), so a
/// port seen for the first time may not have them yet.
constexpr Nanos kCoverageSettle = 60 * kSecond;

/// `margins[i]`: what evaluateEnd() said of interface i of the subjects (an interface it did not
/// evaluate has no FEC counters); `ibMargins[j]`, of the local end of port j when it is an
/// InfiniBand port with FEC counters (else unset).
void judgeCoverage(RuleContext& ctx, LinkBerMemory& memory, const std::vector<Coverage>& margins,
                   const std::vector<std::optional<Coverage>>& ibMargins) {
  const auto& interfaces = ctx.subjects.interfaces();
  for (auto& [key, c] : memory.coverage) c.seen = false;
  const auto& ports = ctx.subjects.ports();
  for (size_t j = 0; j < ports.size(); ++j) {
    const PortRef& p = ports[j];
    PortCoverage& c = memory.coverage[fmt::format("{}/{}", p.device, p.port)];
    c.seen = true;
    if (c.firstSeen == kNever || c.interface != p.interface) {
      c.firstSeen = ctx.now;
      c.interface = std::string(p.interface);
      c.why = unjudged::kJudged;
      c.series.reset();
    }
    const Coverage margin = ibMargins[j]      ? *ibMargins[j]
                            : p.iface != nullptr ? margins[size_t(p.iface - interfaces.data())]
                                                 : Coverage{unjudged::kNoFecCounters};
    if (margin == kHold) continue;  // a link down, a window not full: what was listed stays
    const std::string_view why = ctx.now - c.firstSeen >= kCoverageSettle ? *margin : unjudged::kJudged;
    if (why == c.why) continue;
    c.why = why;
    c.series.reset();
    if (!why.empty()) {
      c.series = makeSeries(*coverageFamily(), Labels{{"device", std::string(p.device)},
                                                      {"port", std::string(p.port)},
                                                      {"interface", c.interface},
                                                      {"why", std::string(why)}});
    }
  }
  std::erase_if(memory.coverage, [](const auto& kv) { return !kv.second.seen; });
}

void evaluateLinkBer(RuleContext& ctx, const LinkBerRule& rule) {
  auto& memory = ctx.remembered<LinkBerMemory>();
  for (auto& [iface, m] : memory.berBaselines) m.live = false;
  const auto& interfaces = ctx.subjects.interfaces();
  std::vector<Coverage> margins(interfaces.size(), Coverage{unjudged::kNoFecCounters});
  for (size_t i = 0; i < interfaces.size(); ++i) {
    const LinkEnd end = interfaceEnd(interfaces[i]);
    if (end.hasFecCounters()) margins[i] = evaluateEnd(ctx, rule, end);
  }
  // An InfiniBand link, both ends: the port is listed by what its own end says.
  const auto& ports = ctx.subjects.ports();
  std::vector<std::optional<Coverage>> ibMargins(ports.size());
  for (size_t j = 0; j < ports.size(); ++j) {
    if (!ports[j].infiniband()) continue;
    const LinkEnd local = infinibandEnd(ports[j], false);
    if (local.hasFecCounters() || local.fecOff()) ibMargins[j] = evaluateEnd(ctx, rule, local);
    if (const LinkEnd peer = infinibandEnd(ports[j], true); peer.hasFecCounters()) evaluateEnd(ctx, rule, peer);
    // A link that is down keeps what was listed, also once the FEC series held for it are let go
    // (an end that had counters still has its memory).
    if (RuleContext::portDown(ports[j]) && memory.berBaselines.contains(local.key)) ibMargins[j].emplace(kHold);
  }
  judgeCoverage(ctx, memory, margins, ibMargins);
  // A baseline whose every part is older than the window has nothing left to say.
  const int64_t now = wallSeconds(ctx);
  std::erase_if(memory.berBaselines, [&](const auto& kv) { return !kv.second.live && kv.second.parts.expired(now); });
}

void planLinkBer(const LinkBerRule& rule, EnginePlan& plan) {
  needHistory(plan,
              {Fam::kPhyCorrectedBits, Fam::kPhyLaneCorrectedBits, Fam::kPhyReceivedBytes, Fam::kFecCorrectedBlocks,
               Fam::kFecUncorrectable, Fam::kFecLaneCorrected, Fam::kIbFecCorrectedBlocks, Fam::kIbFecUncorrectable,
               Fam::kIbFecCorrectedSymbols, Fam::kIbFecLaneSymbols, Fam::kIbFecLaneBlocks,
               Fam::kPeerIbFecCorrectedBlocks, Fam::kPeerIbFecUncorrectable, Fam::kPeerIbFecCorrectedSymbols,
               Fam::kPeerIbFecLaneSymbols, Fam::kPeerIbFecLaneBlocks},
              rule.window);
}

// ---- the state file: parts of each interface's baseline ----

bool LinkBerMemory::save(nlohmann::json& out) const {
  out = nlohmann::json::object();
  for (const auto& [iface, m] : berBaselines) {
    if (m.parts.empty()) continue;
    m.parts.save(out[iface]);
    if (!m.module.empty()) out[iface]["module"] = m.module;
  }
  return true;
}

void LinkBerMemory::restore(const nlohmann::json& in) {
  if (!in.is_object()) return;
  for (const auto& [iface, doc] : in.items()) {
    BerBaseline m;
    // Corrected bits never outnumber the bits received: a BER above 1 is not believed.
    if (!m.parts.restore(doc, 1.0)) continue;
    if (const auto module = doc.find("module"); module != doc.end() && module->is_string()) m.module = *module;
    berBaselines[iface] = std::move(m);
  }
}

const FamilyDef kPreFecBer{"fabricmon_link_pre_fec_ber",
                           "Pre-FEC bit error rate of the interface over watchdog.rules.link_ber.window: bit "
                           "errors the FEC corrected over bits received (docs/rules.md, link_ber).",
                           MetricType::kGauge, "ratio", "interface"};
const FamilyDef kPreFecBerBaseline{"fabricmon_link_pre_fec_ber_baseline",
                                   "The interface's own pre-FEC BER baseline: the median over the parts of "
                                   "the last baseline_window (a day), or of the day before degrading fired "
                                   "while it holds the baseline; kept across restarts in the state file.",
                                   MetricType::kGauge, "ratio", "interface"};
const FamilyDef kPreFecBerLevel{"fabricmon_link_pre_fec_ber_warning_level",
                                "The pre-FEC BER above which link_ber warns on this interface: its FEC's "
                                "correction limit over margin_factor (the margin line of the dashboards).",
                                MetricType::kGauge, "ratio", "interface"};

const FamilyDef kPortPreFecBer{"fabricmon_port_pre_fec_ber",
                               "Pre-FEC bit error rate of one end of an InfiniBand link (side local or peer) "
                               "over watchdog.rules.link_ber.window: RS-FEC symbols (or FireCode blocks) "
                               "corrected over the bits the link carried at its rate (docs/rules.md, link_ber).",
                               MetricType::kGauge, "ratio", "device,port,side"};
const FamilyDef kPortPreFecBerBaseline{"fabricmon_port_pre_fec_ber_baseline",
                                       "That end's own pre-FEC BER baseline: the median over the parts of the "
                                       "last baseline_window, kept across restarts in the state file.",
                                       MetricType::kGauge, "ratio", "device,port,side"};
const FamilyDef kPortPreFecBerLevel{"fabricmon_port_pre_fec_ber_warning_level",
                                    "The pre-FEC BER above which link_ber warns on that end: its FEC's "
                                    "correction limit over margin_factor.",
                                    MetricType::kGauge, "ratio", "device,port,side"};

const FamilyDef kLinkBerUnjudged{
    "fabricmon_watchdog_link_ber_unjudged_info",
    "1 for each RDMA port whose pre-FEC margin the link_ber rule cannot judge, and why: no_fec_counters "
    "(the driver reports no FEC or PHY error counts: ionic; an InfiniBand port whose PMA does not answer "
    "PortExtendedSpeedsCounters), no_corrected_counts (uncorrectable codewords only), fec_off, no_bit_count "
    "(neither received bits read with the errors nor the line rate), counter_saturated (a 32-bit PMA FEC "
    "counter at its maximum). Listed once the port has been on the node for 60 s; held while its link is down.",
    MetricType::kGauge, "1", "device,port,interface,why"};

const FamilyDef* gaugeFamily(bool infiniband, int which) {
  static const FamilyDef* const kInterface[] = {&kPreFecBer, &kPreFecBerBaseline, &kPreFecBerLevel};
  static const FamilyDef* const kPort[] = {&kPortPreFecBer, &kPortPreFecBerBaseline, &kPortPreFecBerLevel};
  return infiniband ? kPort[which] : kInterface[which];
}
const FamilyDef* coverageFamily() { return &kLinkBerUnjudged; }

const FamilyDef* const kLinkBerFamilies[] = {&kPreFecBer,          &kPreFecBerBaseline,     &kPreFecBerLevel,
                                             &kPortPreFecBer,      &kPortPreFecBerBaseline, &kPortPreFecBerLevel,
                                             &kLinkBerUnjudged};

void LinkBerMemory::appendSamples(SampleWriter& out) {
  for (const auto& [iface, m] : berBaselines) {
    if (!m.live || !m.berGauge) continue;
    if (m.ber >= 0) out.add(m.berGauge, m.ber);
    if (m.baseline >= 0) out.add(m.baselineGauge, m.baseline);
    if (m.level >= 0) out.add(m.levelGauge, m.level);
  }
  for (const auto& [key, c] : coverage) {
    if (c.series) out.add(c.series, 1);
  }
}

}  // namespace

const RuleDef kLinkBerRule = withMemory<LinkBerMemory>(
    defineRule<LinkBerRule, planLinkBer, evaluateLinkBer>("link_ber", "physical"), kLinkBerFamilies);

}  // namespace fabricmon::watchdog
