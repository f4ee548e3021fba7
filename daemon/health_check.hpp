#pragma once
// `fabricmon health-check [--slurm] [--dry-run] [--json] [--config FILE]` (docs/contract.md §1,
// docs/deployment.md "Scheduler integration"): a one-shot verdict on the node for schedulers and
// node-health frameworks. It asks the local daemon for its active findings and answers with
// node-problem-detector's custom-plugin convention: exit 0 OK, 1 problem, 2 unknown (the daemon
// could not be asked), and one line of at most health_check.max_output characters.
// With --slurm it also drains the node (and resumes a node it drained itself): daemon/slurm_node.hpp.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "model/result.hpp"

namespace fabricmon::health {

/// The exit codes of node-problem-detector's custom plugins (pkg/custompluginmonitor/types/types.go:
/// OK, NonOK, Unknown), which HealthCheckProgram wrappers use too.
enum class Status { kOk = 0, kProblem = 1, kUnknown = 2 };

std::string_view statusName(Status s);

/// One finding of /api/v1/findings, with the rail of its port (from fabricmon_port_topology_info).
struct ActiveFinding {
  std::string rule;
  std::string severity;
  std::map<std::string, std::string> labels;
  int64_t sinceUnix = 0;
  std::string summary;
  std::string rail;  ///< "" when the port has none or the topology was not available
  std::vector<std::string> jobs;  ///< "job_id(user)" of the jobs on its port/node when it started, if known

  /// "port_down mlx5_0/1 enp24s0np0 rail 0": the rule and where it is.
  std::string subject() const;
};

struct Verdict {
  Status status = Status::kUnknown;
  std::vector<ActiveFinding> drainWorthy;  ///< worst first
  std::vector<ActiveFinding> others;       ///< active but not drain-worthy, worst first
  std::string unknownReason;               ///< why the daemon could not be asked
};

/// Parses the /api/v1/findings body (exporters/findings_json.hpp).
Result<std::vector<ActiveFinding>> parseFindings(std::string_view json);

/// device/port -> rail and interface -> rail, from the fabricmon_port_topology_info lines of a
/// Prometheus text exposition. Lines it cannot read are skipped.
struct Rails {
  std::map<std::string, std::string> byPort;       ///< "mlx5_0/1"
  std::map<std::string, std::string> byInterface;  ///< "enp24s0np0"
};
Rails parseTopologyRails(std::string_view exposition);

/// Splits the findings by health_check.drain_rules/drain_severities and orders each part worst
/// first (severity, then the earliest start, then rule and labels).
Verdict judge(std::vector<ActiveFinding> findings, const HealthCheckConfig& config);

/// The one line: "OK", "OK: 1 finding, not drain-worthy: link_errors mlx5_2/1",
/// "port_down mlx5_0/1 enp24s0np0 rail 0 (+1 more)", "UNKNOWN: ...". At most maxChars bytes,
/// never cut inside a UTF-8 sequence.
std::string verdictLine(const Verdict& verdict, unsigned maxChars);

/// Cuts text to at most maxChars bytes, ending in "..." when cut; keeps UTF-8 sequences whole.
std::string shorten(std::string text, size_t maxChars);

/// The command; returns the process exit code.
int runHealthCheck(const std::vector<std::string>& args);

}  // namespace fabricmon::health
