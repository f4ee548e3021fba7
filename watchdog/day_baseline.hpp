#pragma once
// A port's own normal, learned over a day: the day cut into 24 equal parts dated by the wall clock,
// each part a sum over a weight (corrected bits over bits received; power readings over their
// count), and the baseline the median of the parts' ratios before the current one. The median
// ignores a few bad hours, so the baseline moves only once the port has really changed. Kept in the
// state file: it takes a day to learn and must outlive an upgrade (docs/rules.md, link_ber and
// optics_degraded; docs/deployment.md, "State directory").

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace fabricmon::watchdog {

class DayBaseline {
 public:
  /// The parts of the window before the current one: the median's day. A rule's
  /// baseline_min_parts is at most this.
  static constexpr size_t kParts = 24;

  /// The width of a part for a baseline of `window` (window / 24, at least a second).
  static int64_t partSecondsFor(std::chrono::milliseconds window);
  /// Seconds since the epoch: what parts are dated by.
  static int64_t wallSeconds(std::chrono::system_clock::time_point wall);

  /// Parts of `partSeconds` from now on: a width other than the one the parts were cut with starts
  /// the baseline over (a changed baseline_window).
  void cut(int64_t partSeconds);
  /// Adds to the part of `partSeconds` that holds `wallSeconds` (cut() first).
  void add(int64_t partSeconds, int64_t wallSeconds, double sum, double weight);
  /// The median of sum / weight over the 24 parts before the one that holds `wallSeconds`, with at
  /// least `minWeight` each; -1 while fewer than `minParts` parts qualify. The current part has a
  /// slot of its own, so all 24 can, whether or not anything was added to it yet.
  double median(int64_t wallSeconds, double minWeight, unsigned minParts) const;
  /// True when no part is within the last 24 up to the one that holds `wallSeconds`: nothing is
  /// left to say (a part dated after it, from a clock set back or a file that says so, counts as none).
  bool expired(int64_t wallSeconds) const;
  bool empty() const;
  int64_t partSeconds() const { return partSeconds_; }

  /// Stands the baseline still from `sinceSeconds` until `untilSeconds` (wall clock): meanwhile
  /// median() reads the day as it was at `sinceSeconds`, add() learns nothing and expired() counts
  /// from there too. A rule holds it while its finding says the port has left its normal, so the
  /// fault is not learned as the new normal and the finding does not clear by itself half a day
  /// later. After `untilSeconds` the hold lapses and the parts learn again (the new level becomes the
  /// normal); held() stays true until release(), so the rule does not hold the same excursion twice.
  void hold(int64_t sinceSeconds, int64_t untilSeconds);
  /// Ends a hold (the port is back within its normal), lapsed or not.
  void release() { heldSince_ = heldUntil_ = kNotHeld; }
  /// Shortens a hold to at most `longest` from its start (0 ends it): a hold taken under a longer
  /// baseline_hold, or read from a state file, lasts no longer than the one configured now. One that
  /// starts after `wallSeconds` (a clock set back, a file that says so) ends.
  void limitHold(std::chrono::milliseconds longest, int64_t wallSeconds);
  /// A rule's judgement of its port against this baseline, for the hold: `fires` (the port left its
  /// normal) holds it for `holdFor` from `wallSeconds` where no hold was taken (0: none is); `clear`
  /// (the port is back) releases it, and so does any judgement that does not fire once the hold has
  /// lapsed, so a new excursion can hold it again while the one that outlasted its hold cannot.
  void judged(bool fires, bool clear, int64_t wallSeconds, std::chrono::milliseconds holdFor);
  /// A hold was taken and not released (it may have lapsed).
  bool held() const { return heldSince_ != kNotHeld; }
  /// The hold is in force at `wallSeconds`.
  bool holding(int64_t wallSeconds) const { return held() && wallSeconds < heldUntil_; }
  int64_t heldSince() const { return heldSince_; }

  /// {"part_seconds": N, "parts": [[index, sum, weight], ...]}: the layout link_ber's state file
  /// has always used for an interface; with "held": [since, until] while a hold was taken.
  void save(nlohmann::json& out) const;
  /// Reads what save() wrote. A part that cannot be is not believed: a negative or not finite sum or
  /// weight, or a ratio above `maxRatio` (a BER above 1, more light than a DOM can report); nor is a
  /// hold that ends before it begins. False when nothing was read.
  bool restore(const nlohmann::json& in, double maxRatio);

 private:
  struct Part {
    int64_t index = INT64_MIN;  ///< wall-clock seconds / partSeconds_: which part of the day
    double sum = 0;
    double weight = 0;
  };
  /// The 24 earlier parts and the current one.
  static constexpr size_t kSlots = kParts + 1;
  static constexpr int64_t kNotHeld = INT64_MIN;
  Part& slotOf(int64_t index);
  /// The time the parts are read at: `wallSeconds`, or the start of a hold in force.
  int64_t readAt(int64_t wallSeconds) const { return holding(wallSeconds) ? heldSince_ : wallSeconds; }
  std::array<Part, kSlots> parts_{};
  int64_t partSeconds_ = 0;  ///< the width the parts were cut with
  int64_t heldSince_ = kNotHeld;
  int64_t heldUntil_ = kNotHeld;
};

}  // namespace fabricmon::watchdog
