#pragma once
// The pause time that pause_storm has claimed: the intervals a storm was seen (or its finding was
// still active), per interface, priority and direction. dcqcn_misconfig's pfc_without_ecn leaves
// them out of its window, so one storm is reported once, as a storm (docs/rules.md).

#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

#include "watchdog/history.hpp"

namespace fabricmon::watchdog {

class StormLedger {
 public:
  struct Claimed {
    double pauseSeconds = 0;  ///< pause counted during storm intervals within the window
    double seconds = 0;       ///< length of those intervals within the window
  };

  /// How far back readers look; older claims are forgotten.
  void setWindow(Nanos window) { window_ = window; }
  /// One judged interval (from, to] of a pause counter; `storm` says whether the storm claims it.
  /// The storm also claims the interval just before its first one: the NIC refresh in which it
  /// began is partly storm, too little to cross the threshold. An interval already recorded (same
  /// `to`) is ignored.
  void record(std::string_view interface, std::string_view priority, std::string_view direction, Nanos from,
              Nanos to, double pauseSeconds, bool storm);
  /// What storms claimed within (from, to]; an interval cut by the edge counts pro rata.
  Claimed claimed(std::string_view interface, std::string_view priority, std::string_view direction, Nanos from,
                  Nanos to) const;
  /// Forgets subjects not recorded since the previous call (their interface vanished).
  void sweep();

 private:
  struct Span {
    Nanos from, to;
    double pause;
  };
  struct Entry {
    std::deque<Span> spans;  ///< claimed intervals, oldest first
    Span previous{kNever, kNever, 0};  ///< the latest interval, when not claimed
    bool previousStorm = false;
    Nanos last = kNever;
    bool touched = false;
  };
  using Key = std::tuple<std::string, std::string, std::string>;
  using KeyView = std::tuple<std::string_view, std::string_view, std::string_view>;
  /// Orders keys and lookups as views: a lookup builds no strings, and it is one comparison of
  /// like types (libstdc++'s tuple<string...> against tuple<string_view...> does not build with clang).
  struct KeyLess {
    using is_transparent = void;
    static KeyView view(const Key& k) { return {std::get<0>(k), std::get<1>(k), std::get<2>(k)}; }
    static const KeyView& view(const KeyView& k) { return k; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const { return view(a) < view(b); }
  };
  static void claim(Entry& e, Span span);

  std::map<Key, Entry, KeyLess> entries_;
  Nanos window_ = 60 * kSecond;
};

}  // namespace fabricmon::watchdog
