#pragma once
// One simulated hardware counter: an integer that grows by fractional amounts (a rate × dt rarely
// is a whole number) and, for narrow PMA counters, saturates at its width instead of wrapping (IBTA
// PortCounters; docs/metrics.md, fabricmon_port_pma_saturated).

#include <cmath>
#include <cstdint>
#include <limits>

namespace fabricmon::sim {

class Counter {
 public:
  Counter() = default;
  /// `bits` < 64 makes a saturating counter of that width.
  explicit Counter(unsigned bits, uint64_t start = 0)
      : max_(bits >= 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1),
        value_(start) {
    if (value_ > max_) value_ = max_;
  }

  uint64_t value() const { return value_; }
  uint64_t max() const { return max_; }

  /// Adds a non-negative amount; the fraction carries over to the next call.
  void add(double amount) {
    if (!(amount > 0)) return;
    carry_ += amount;
    const double whole = std::floor(carry_);
    carry_ -= whole;
    if (whole >= static_cast<double>(max_ - value_)) {
      value_ = max_;
    } else {
      value_ += static_cast<uint64_t>(whole);
    }
  }
  void set(uint64_t v) {
    value_ = v > max_ ? max_ : v;
    carry_ = 0;
  }

 private:
  uint64_t max_ = std::numeric_limits<uint64_t>::max();
  uint64_t value_ = 0;
  double carry_ = 0;
};

}  // namespace fabricmon::sim
