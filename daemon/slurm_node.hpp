#pragma once
// What `fabricmon health-check --slurm` does to the node in Slurm (docs/deployment.md, "Scheduler
// integration"). It drains the node when a drain-worthy finding is active and resumes it only when
// it drained it itself (the reason starts with kReasonPrefix) and nothing drain-worthy is left.
// It never touches a drain with another reason (an admin's), never resumes a node that is down or
// not responding, and does nothing when the verdict is unknown (the daemon could not be asked).

#include <chrono>
#include <set>
#include <string>
#include <string_view>

#include "daemon/health_check.hpp"
#include "model/result.hpp"

namespace fabricmon::health {

/// Every drain reason fabricmon sets starts with this; a reason without it is someone else's.
inline constexpr std::string_view kReasonPrefix = "fabricmon: ";

/// A node as `scontrol -o show node NAME` prints it.
struct SlurmNode {
  std::string name;
  std::string base;             ///< IDLE, ALLOCATED, MIXED, DOWN, ... (before the first '+')
  std::set<std::string> flags;  ///< DRAIN, NOT_RESPONDING, MAINT, ... (after it)
  std::string reason;           ///< without the trailing " [user@time]"; "" when none

  bool drained() const { return flags.contains("DRAIN"); }
  bool drainedByUs() const { return drained() && reason.starts_with(kReasonPrefix); }
};

/// Parses one line of `scontrol -o show node NAME` (State=IDLE+DRAIN ... Reason=text [root@time]).
Result<SlurmNode> parseScontrolNode(std::string_view line);

enum class SlurmAction { kNone, kDrain, kResume };
std::string_view actionName(SlurmAction a);

struct SlurmDecision {
  SlurmAction action = SlurmAction::kNone;
  std::string reason;  ///< the drain reason (kDrain)
  std::string why;     ///< one phrase for a human: why this action, or why none
};

/// The whole policy, as a table (tests/unit/daemon/health_check_test.cpp). `reason` is the drain
/// reason the verdict would set ("fabricmon: port_down mlx5_0/1 ...").
SlurmDecision decide(const SlurmNode& node, const Verdict& verdict, const std::string& reason);

/// The node's Slurm name: health_check.slurm.node_name, else $SLURMD_NODENAME (slurmd sets it for
/// HealthCheckProgram), else the short host name (slurmd's own default without -N).
std::string slurmNodeName(const HealthCheckConfig& config);

/// Runs scontrol (no shell, its own deadline) to read the node, decides, and acts unless dryRun.
/// The decision comes back, with what was done; an error when scontrol could not be run or failed.
Result<SlurmDecision> applySlurm(const HealthCheckConfig& config, const Verdict& verdict, const std::string& reason,
                                 bool dryRun, std::string& nodeName);

}  // namespace fabricmon::health
