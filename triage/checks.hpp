#pragma once
// The runbook as a table (docs/runbook.md, "Triage"): one check per step, in the runbook's order.
// The watchdog rules that judge a step name it in their RuleDef (`triageStep`, watchdog/rules/):
// an active finding of one makes the step a problem; the step reads the raw numbers of its families
// for the rest (suspicious, ok, or no data). A new rule needs nothing here; a new step is one more
// row.

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "triage/evidence.hpp"

namespace fabricmon::triage {

enum class State { kProblem, kSuspicious, kOk, kNoData };
std::string_view stateName(State s);

struct CheckResult {
  std::string id;     ///< stable name for tools: pfc_pause, ecn_cnp, qos_config, physical, link, roce_loss, ib_congestion
  std::string title;  ///< the runbook step's title
  int step = 0;       ///< 1-based runbook order
  State state = State::kNoData;
  std::string where;    ///< interface / device port / priority it concerns ("" = the node)
  std::string summary;  ///< one line: what was seen
  std::vector<std::pair<std::string, std::string>> numbers;  ///< name -> value as text
  std::string action;   ///< what to do next
  int causeRank = 0;    ///< among problems, lower = more likely the cause of the others
  int severity = 0;     ///< of the worst finding: 3 critical, 2 warning, 1 info
};

struct Check {
  std::string_view id;
  std::string_view title;
  /// Among problems, the more fundamental first: a misconfigured QoS or a bad link causes pause,
  /// ECN and loss downstream; a pause storm stalls the priority and explains its drops.
  int causeRank;
  std::vector<std::string_view> families;  ///< any series of these = data present
  std::string_view action;                 ///< next step when it is a problem or suspicious
  /// Fills state (suspicious/ok), where, summary and numbers from the raw series.
  std::function<void(const Evidence&, CheckResult&)> judge;
};

/// The runbook's checks, in order.
std::span<const Check> checks();

struct Verdict {
  std::string source;
  double windowSeconds = 0;
  bool wrong = false;                 ///< any check is a problem
  std::vector<CheckResult> ranked;    ///< problems (most likely cause first), then the rest in runbook order
  /// The jobs the node's findings hit (running when each started: on its port's GPUs, else on the
  /// node), from /api/v1/findings; empty from Prometheus or without slurm_jobs.
  std::vector<std::string> jobsHit;
};

Verdict judge(const Evidence& evidence);

}  // namespace fabricmon::triage
