#pragma once
// Which series the node itself reads at every poll, and how often the others are refreshed
// (docs/architecture.md, "Files only /metrics reads").

#include <chrono>
#include <functional>

#include "config/rule_settings.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// The watchdog's rules and the recent-sample window read some series at the sampling rate. The
/// others are only exported, and Prometheus scrapes them every ~15 s: a collector of kept counter
/// files (SlotGroupCache) reads their files every `exportOnlyInterval` instead of every poll and
/// exports the value it read last in between. In Sources, null means every file at every poll.
struct PollDemand {
  using Clock = std::chrono::steady_clock;

  /// True for a series something on the node reads at every poll.
  std::function<bool(const Series&)> readsEveryPoll;
  /// How often the files of the other series are read (poll.export_only_interval).
  Duration exportOnlyInterval{};
  /// The time the interval is measured with (tests replace it).
  std::function<Clock::time_point()> now = [] { return Clock::now(); };
};

}  // namespace fabricmon
