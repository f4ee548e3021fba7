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
  static constexpr size_t kParts = 24;

  /// The width of a part for a baseline of `window` (window / 24, at least a second).
  static int64_t partSecondsFor(std::chrono::seconds window);

  /// Parts of `partSeconds` from now on: a width other than the one the parts were cut with starts
  /// the baseline over (a changed baseline_window).
  void cut(int64_t partSeconds);
  /// Adds to the part of `partSeconds` that holds `wallSeconds` (cut() first).
  void add(int64_t partSeconds, int64_t wallSeconds, double sum, double weight);
  /// The median of sum / weight over the parts before the one that holds `wallSeconds`, within the
  /// last 24 parts and with at least `minWeight` each; -1 while fewer than `minParts` parts qualify.
  double median(int64_t wallSeconds, double minWeight, unsigned minParts) const;
  /// True when no part is within the last 24 before `wallSeconds`: nothing is left to say.
  bool expired(int64_t wallSeconds) const;
  bool empty() const;
  int64_t partSeconds() const { return partSeconds_; }

  /// The parts as [[index, sum, weight], ...] (the layout link_ber's state file has always used).
  void save(nlohmann::json& parts) const;
  /// Reads what save() wrote for parts of `partSeconds`. Parts that cannot be (negative or not
  /// finite) are not believed; false when nothing was read.
  bool restore(int64_t partSeconds, const nlohmann::json& parts);

 private:
  struct Part {
    int64_t index = INT64_MIN;  ///< wall-clock seconds / partSeconds_: which part of the day
    double sum = 0;
    double weight = 0;
  };
  Part& slotOf(int64_t index);
  std::array<Part, kParts> parts_{};
  int64_t partSeconds_ = 0;  ///< the width the parts were cut with
};

}  // namespace fabricmon::watchdog
