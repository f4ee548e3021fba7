#include "watchdog/day_baseline.hpp"

#include "config/rule_settings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace fabricmon::watchdog {
namespace {
constexpr int64_t kN = static_cast<int64_t>(DayBaseline::kParts);
}  // namespace

int64_t DayBaseline::partSecondsFor(std::chrono::milliseconds window) { return partWidth(window, kParts).count(); }

int64_t DayBaseline::wallSeconds(std::chrono::system_clock::time_point wall) {
  return std::chrono::duration_cast<std::chrono::seconds>(wall.time_since_epoch()).count();
}

DayBaseline::Part& DayBaseline::slotOf(int64_t index) {
  constexpr auto kS = static_cast<int64_t>(kSlots);
  return parts_[static_cast<size_t>(((index % kS) + kS) % kS)];
}

void DayBaseline::cut(int64_t partSeconds) {
  if (partSeconds <= 0 || partSeconds_ == partSeconds) return;
  parts_ = {};
  partSeconds_ = partSeconds;
  release();  // nothing is left to hold
}

void DayBaseline::hold(int64_t sinceSeconds, int64_t untilSeconds) {
  // Wall-clock seconds are positive: a negative start is no time a part can be read at.
  if (sinceSeconds <= 0 || untilSeconds <= sinceSeconds) return;
  heldSince_ = sinceSeconds;
  heldUntil_ = untilSeconds;
}

void DayBaseline::limitHold(std::chrono::milliseconds longest, int64_t wallSeconds) {
  if (!held()) return;
  const int64_t maxSeconds = std::chrono::duration_cast<std::chrono::seconds>(longest).count();
  if (maxSeconds <= 0 || heldSince_ > wallSeconds) return release();
  if (heldUntil_ - heldSince_ > maxSeconds) heldUntil_ = heldSince_ + maxSeconds;
}

void DayBaseline::judged(bool fires, bool clear, int64_t wallSeconds, std::chrono::milliseconds holdFor) {
  if (clear || (!fires && !holding(wallSeconds))) {
    release();
  } else if (fires && !held()) {
    hold(wallSeconds, wallSeconds + std::chrono::duration_cast<std::chrono::seconds>(holdFor).count());
  }
}

void DayBaseline::add(int64_t partSeconds, int64_t wallSeconds, double sum, double weight) {
  if (partSeconds <= 0) return;
  cut(partSeconds);
  if (holding(wallSeconds)) return;
  const int64_t index = wallSeconds / partSeconds;
  Part& part = slotOf(index);
  if (part.index != index) part = Part{index, 0, 0};
  part.sum += sum;
  part.weight += weight;
}

double DayBaseline::median(int64_t wallSeconds, double minWeight, unsigned minParts) const {
  if (partSeconds_ <= 0) return -1;
  const int64_t current = readAt(wallSeconds) / partSeconds_;
  // Sized by the slots, not the parts: at most kParts of them fall in the day, but an index test that
  // slipped by one would then read a part too many, not write past the array.
  std::array<double, kSlots> ratios{};
  size_t n = 0;
  for (const Part& p : parts_) {
    if (p.index >= current || p.index < current - kN) continue;
    if (p.weight <= 0 || p.weight < minWeight) continue;
    ratios[n++] = p.sum / p.weight;
  }
  if (n == 0 || n < minParts) return -1;
  // The median; of an even count (a whole day is 24 parts), the mean of the two middle parts.
  const auto upper = ratios.begin() + n / 2;
  std::nth_element(ratios.begin(), upper, ratios.begin() + n);
  if (n % 2 == 1) return *upper;
  return (*std::max_element(ratios.begin(), upper) + *upper) / 2;
}

bool DayBaseline::expired(int64_t wallSeconds) const {
  if (partSeconds_ <= 0) return true;
  const int64_t current = readAt(wallSeconds) / partSeconds_;
  return std::none_of(parts_.begin(), parts_.end(),
                      [&](const Part& p) { return p.index >= current - kN && p.index <= current; });
}

bool DayBaseline::empty() const {
  return std::all_of(parts_.begin(), parts_.end(), [](const Part& p) { return p.index == INT64_MIN; });
}

void DayBaseline::save(nlohmann::json& out) const {
  nlohmann::json parts = nlohmann::json::array();
  for (const Part& p : parts_) {
    if (p.index != INT64_MIN) parts.push_back({p.index, p.sum, p.weight});
  }
  out = {{"part_seconds", partSeconds_}, {"parts", std::move(parts)}};
  if (held()) out["held"] = {heldSince_, heldUntil_};
}

bool DayBaseline::restore(const nlohmann::json& in, double maxRatio) {
  if (!in.is_object() || !in.contains("part_seconds") || !in["part_seconds"].is_number_integer() ||
      !in.contains("parts") || !in["parts"].is_array()) {
    return false;
  }
  const int64_t width = in["part_seconds"].get<int64_t>();
  if (width <= 0) return false;
  parts_ = {};
  partSeconds_ = width;
  release();
  if (const auto h = in.find("held"); h != in.end() && h->is_array() && h->size() == 2 &&
                                      (*h)[0].is_number_integer() && (*h)[1].is_number_integer()) {
    hold((*h)[0].get<int64_t>(), (*h)[1].get<int64_t>());  // refuses one that ends before it begins
  }
  bool any = false;
  for (const auto& p : in["parts"]) {
    if (!p.is_array() || p.size() != 3 || !p[0].is_number_integer() || !p[1].is_number() || !p[2].is_number()) continue;
    const Part part{p[0].get<int64_t>(), p[1].get<double>(), p[2].get<double>()};
    if (!std::isfinite(part.sum) || !std::isfinite(part.weight) || part.sum < 0 || part.weight < 0 ||
        part.sum > part.weight * maxRatio) {
      continue;
    }
    // Two parts of a file may share a slot (a file written with another slot count, or by hand):
    // the later part is the one a day can still hold.
    Part& slot = slotOf(part.index);
    if (slot.index == INT64_MIN || part.index > slot.index) slot = part;
    any = true;
  }
  return any;
}

}  // namespace fabricmon::watchdog
