#pragma once
// link_ber: its settings (defaults and config keys, `watchdog.rules.link_ber`) and its RuleDef.
// docs/rules.md ("link_ber") gives the source of every default.

#include <span>
#include <vector>

#include "config/config.hpp"
#include "watchdog/day_baseline.hpp"
#include "model/sample.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon {

struct LinkBerRule {
  bool enabled = true;
  /// Window of the pre-FEC BER and of the uncorrectable-codeword count.
  Duration window = 5min;
  /// Pre-FEC BER at which each FEC stops meeting its post-FEC target with random errors: the BER
  /// the IEEE 802.3 PMDs are specified to before the FEC (docs/rules.md).
  double rs544CorrectionLimit = 2.4e-4;  ///< 802.3bs/cd/ck 50G/100G PAM4 lanes, RS(544,514) "KP4"
  double rs528CorrectionLimit = 5e-5;    ///< 802.3bm 100GBASE-SR4, RS(528,514) "KR4"
  double llrsCorrectionLimit = 5e-5;     ///< RS(272,257+1), assumed as strong as RS(528,514)
  double baserCorrectionLimit = 1e-6;    ///< Clause 74 BASE-R (FC-FEC) corrects one burst per block
  /// Warning when the BER leaves less than this factor to the correction limit (10: one decade).
  double marginFactor = 10;
  /// Uncorrectable codewords tolerated per window (0: any is critical).
  double uncorrectableBlocks = 0;
  /// "degrading": BER at least this many times the port's own baseline.
  double degradeFactor = 10;
  /// ... and at least this BER (a baseline of nearly nothing makes every error a large factor).
  double degradeFloor = 1e-10;
  /// The baseline: the median BER of the 24 equal parts of this window before the current part.
  Duration baselineWindow = 24h;
  /// Parts of the baseline window that must hold a BER before the baseline is judged (12: half a day).
  unsigned baselineMinParts = 12;
  /// Bits a BER needs under it to mean anything (1e9: 2.5 ms of a 400G link, a quiet link excluded).
  double minBits = 1e9;
  /// How long an end's baseline stands still once it is degrading, so the raised BER is not learned
  /// as its normal (0: learned as any interval, the finding then clears once the median follows,
  /// about half a day later). After it the new level is learned.
  Duration baselineHold = 168h;

  void bind(SettingsBinder& b) {
    static constexpr Range kAtLeastOne{1, false, std::numeric_limits<double>::infinity(), true};
    b.flag("enabled", enabled);
    b.window("window", window);
    b.number("rs544_correction_limit", rs544CorrectionLimit, kProbability);
    b.number("rs528_correction_limit", rs528CorrectionLimit, kProbability);
    b.number("llrs_correction_limit", llrsCorrectionLimit, kProbability);
    b.number("baser_correction_limit", baserCorrectionLimit, kProbability);
    b.number("margin_factor", marginFactor, kAtLeastOne);
    b.number("uncorrectable_blocks", uncorrectableBlocks, kNonNegative);
    b.number("degrade_factor", degradeFactor, kAtLeastOne);
    b.number("degrade_floor", degradeFloor, kProbability);
    // Its parts are filled when the error counters have a new sample: the PHY's corrected bits
    // (ethtool_pfc) or the FEC's corrected codewords (fec), whichever the NIC has.
    b.partedWindow("baseline_window", baselineWindow, watchdog::DayBaseline::kParts, "ethtool_pfc,fec");
    b.count("baseline_min_parts", baselineMinParts, 1, watchdog::DayBaseline::kParts);
    b.number("min_bits", minBits, kPositive);
    b.durationBetween("baseline_hold", baselineHold, std::chrono::seconds(1), Duration::max(), true);  // 0: none
  }

  bool operator==(const LinkBerRule&) const = default;
};

namespace watchdog {
extern const RuleDef kLinkBerRule;
}  // namespace watchdog

}  // namespace fabricmon
