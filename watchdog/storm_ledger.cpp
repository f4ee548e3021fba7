#include "watchdog/storm_ledger.hpp"

#include <algorithm>

namespace fabricmon::watchdog {

// One span per judged interval: merged spans would spread the onset's lighter pause over the
// whole storm, and a window edge cutting them would then leave storm pause unclaimed.
void StormLedger::claim(Entry& e, Span span) {
  // A NIC refresh interval reaches back over the previous poll: the pause is new, the time is not.
  if (!e.spans.empty()) span.from = std::max(span.from, e.spans.back().to);
  if (span.to > span.from) e.spans.push_back(span);
}

void StormLedger::record(std::string_view interface, std::string_view priority, std::string_view direction,
                         Nanos from, Nanos to, double pauseSeconds, bool storm) {
  auto it = entries_.find(KeyView{interface, priority, direction});
  if (it == entries_.end()) it = entries_.emplace(Key{interface, priority, direction}, Entry{}).first;
  Entry& e = it->second;
  e.touched = true;
  if (to <= e.last) return;
  e.last = to;
  const Span span{from, to, pauseSeconds};
  if (storm) {
    if (!e.previousStorm && e.previous.to != kNever) claim(e, e.previous);
    claim(e, span);
  } else {
    e.previous = span;
  }
  e.previousStorm = storm;
  // Keep what a window ending now can still reach (twice, for a reader a little behind).
  while (!e.spans.empty() && e.spans.front().to < to - 2 * window_) e.spans.pop_front();
}

StormLedger::Claimed StormLedger::claimed(std::string_view interface, std::string_view priority,
                                          std::string_view direction, Nanos from, Nanos to) const {
  Claimed c;
  auto it = entries_.find(KeyView{interface, priority, direction});
  if (it == entries_.end()) return c;
  for (const Span& s : it->second.spans) {
    const Nanos lo = std::max(s.from, from), hi = std::min(s.to, to);
    if (hi <= lo || s.to <= s.from) continue;
    const double share = double(hi - lo) / double(s.to - s.from);
    c.pauseSeconds += s.pause * share;
    c.seconds += double(hi - lo) / kSecond;
  }
  return c;
}

void StormLedger::sweep() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (!it->second.touched) {
      it = entries_.erase(it);
    } else {
      it->second.touched = false;
      ++it;
    }
  }
}

}  // namespace fabricmon::watchdog
