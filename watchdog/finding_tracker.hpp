#pragma once
// Hysteresis for findings (collectd's Hits / Hysteresis / Persist): a condition must hold for N
// consecutive fresh evaluations (and/or a duration) before a finding starts, and a separate clear
// condition must hold for a duration before it ends. Owns the fabricmon_watchdog_active gauges and
// the start/clear log lines.

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/finding.hpp"
#include "watchdog/history.hpp"

namespace fabricmon::watchdog {

/// The numbers behind a verdict; names are string literals, so filling one never allocates.
struct Evidence {
  static constexpr size_t kMax = 10;
  std::array<std::pair<std::string_view, double>, kMax> items{};
  size_t count = 0;
  void add(std::string_view name, double value) {
    if (count < kMax) items[count++] = {name, value};
  }
};

/// What a rule says about one subject at one evaluation.
struct Verdict {
  Nanos stamp = kNever;        ///< time of the newest sample behind it; an unchanged stamp is not a new evaluation
  bool judged = false;         ///< false: too little data; the state is held as it is
  bool fire = false;           ///< the start condition holds
  bool clear = false;          ///< the clear condition holds (may differ from !fire: hysteresis)
  /// Not firing, but the evidence is incomplete (a NIC that latched a little early reads a storm
  /// interval just under its threshold): the run of firing evaluations is neither extended nor
  /// reset. Only read while the finding is not active.
  bool undecided = false;
  /// A firing verdict that also decides the undecided ones right before it (it read late what they
  /// missed): they count as firing evaluations too.
  bool confirmsUndecided = false;
  Nanos clearFrom = kNever;    ///< when the clear condition began to hold (default: stamp)
  Evidence evidence;
  std::string summary;         ///< only needed when fire is true
};

/// How a rule turns verdicts into a finding.
struct Policy {
  unsigned forSamples = 1;     ///< consecutive firing evaluations
  Nanos forDuration = 0;       ///< and the condition held this long
  Nanos clearAfter = 0;        ///< the clear condition held this long
};

/// The subject of a finding: the docs/contract.md §5 labels that apply ("" = not relevant).
struct Subject {
  std::string_view device, port, interface, priority;
  /// InfiniBand: which end of the cable saw it, "local" or "peer" (the neighbour's port, over MADs).
  std::string_view side = {};
};

class FindingTracker {
 public:
  /// `rules` are the rule names (watchdog/rules/rule_table.cpp); a rule is referred to by its index.
  explicit FindingTracker(std::vector<std::string_view> rules);
  static const FamilyDef kActiveFamily;
  static const FamilyDef kTransitionsFamily;
  static const FamilyDef kRecurringFamily;

  /// A finding whose subject starts `count` times within `window` (of its evaluation stamps) is
  /// recurring: the fault was reset, not fixed (docs/rules.md, "Recurring findings").
  void setRecurrence(unsigned count, Nanos window) {
    recurrenceCount_ = count;
    recurrenceWindow_ = window;
  }

  /// The jobs on the node now (slurm_jobs), stamped on each finding as it starts.
  struct Jobs {
    std::vector<std::string> node;                            ///< "4711 (alice)"
    std::map<std::string, std::vector<std::string>> byPort;  ///< "mlx5_0/1" -> jobs on its GPUs
  };
  /// The recurrence history (recent starts of every finding), dated by the wall clock, for the
  /// state file: `steadyNow` and `wallNow` are one moment on both clocks.
  void saveRecurrence(nlohmann::json& out, Nanos steadyNow, std::chrono::system_clock::time_point wallNow) const;
  /// Takes back what saveRecurrence wrote (by an earlier process): a finding that starts again is
  /// recurring across the restart. Entries that are malformed or older than the window are skipped.
  void restoreRecurrence(const nlohmann::json& in, Nanos steadyNow, std::chrono::system_clock::time_point wallNow);
  /// The findings active now, for the state file. Restored (by a later process), a finding among
  /// them that starts again within kContinueGrace of the restart is the same episode: the fault
  /// outlived the restart, it was not reset and back, so its start is not counted for recurrence.
  void saveActive(nlohmann::json& out) const;
  void restoreActive(const nlohmann::json& in, Nanos steadyNow);
  static constexpr Nanos kContinueGrace = 10 * 60 * kSecond;

  /// Starts an evaluation round; subjects not observed before endRound() have vanished.
  void beginRound(std::chrono::system_clock::time_point wallNow, Jobs jobs = {});
  void observe(size_t rule, std::string_view reason, Severity severity, const Subject& subject,
               const Policy& policy, const Verdict& verdict);
  /// Forgets the findings of subjects not observed this round (logging a clear for active ones).
  void endRound();
  /// Clears every finding of `rule` (it was switched off); their gauges read 0 until the next round.
  void clearRule(size_t rule);

  std::vector<Finding> active() const;
  /// Whether the finding of `rule`/`reason` about `subject` is active now.
  bool isActive(size_t rule, std::string_view reason, const Subject& subject) const;
  void appendSamples(SampleWriter& out) const;

 private:
  struct State {
    size_t rule = 0;
    Finding finding;
    SeriesPtr gauge;         ///< built when the finding first starts
    bool active = false;
    bool seen = false;
    Nanos lastStamp = kNever;
    unsigned hits = 0;
    unsigned undecided = 0;  ///< undecided verdicts since the last firing one
    Nanos condSince = kNever;
    Nanos clearSince = kNever;
    std::deque<Nanos> starts;  ///< stamps of recent starts, at most recurrenceCount_ of them
    bool recurring = false;
    SeriesPtr recurringGauge;  ///< fabricmon_watchdog_recurring, built when it first recurs
  };
  void updateRecurrence(State& st, Nanos stamp) const;
  void start(const std::string& key, State& st, const Verdict& v);
  void stop(State& st, std::string_view why);
  void keyOf(std::string& out, size_t rule, std::string_view reason, const Subject& subject) const;

  std::map<std::string, State, std::less<>> states_;
  /// Restored recent starts of findings whose subject has not been seen since the restart.
  std::map<std::string, std::deque<Nanos>, std::less<>> restoredStarts_;
  /// Findings active when the process before stopped, not started since: until when a start
  /// continues them (kept when their state is dropped before it starts, saved again while in time).
  std::map<std::string, Nanos, std::less<>> continuing_;
  Nanos newestStamp_ = kNever;  ///< of the verdicts observed: a continuing_ entry before it has lapsed
  std::vector<std::string_view> rules_;
  std::vector<double> transitions_;
  std::vector<SeriesPtr> transitionSeries_;
  mutable std::string scratch_;
  std::chrono::system_clock::time_point wallNow_{};
  Jobs jobs_;
  unsigned recurrenceCount_ = 3;
  Nanos recurrenceWindow_ = 3600 * kSecond;
};

}  // namespace fabricmon::watchdog
