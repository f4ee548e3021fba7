// One line of `scontrol -o show node NAME` (daemon/slurm_node.hpp), as `fabricmon health-check
// --slurm` reads it before it drains or resumes the node, and what it decides from it.
#include <cstdint>
#include <string>

#include "daemon/slurm_node.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace fabricmon;
using fabricmon::health::SlurmAction;
using fabricmon::health::SlurmDecision;
using fabricmon::health::Verdict;
using HealthStatus = fabricmon::health::Status;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto node = health::parseScontrolNode(fuzz::asText(data, size));
  if (!node) return 0;
  // A node is named and has a state; the parser stops at the first line.
  FUZZ_CHECK(!node->name.empty());
  FUZZ_CHECK(node->name.find('\n') == std::string::npos);
  FUZZ_CHECK(node->reason.find('\n') == std::string::npos);
  for (const std::string& flag : node->flags) FUZZ_CHECK(!flag.empty() && flag.find('+') == std::string::npos);
  // Whatever the line says: an unknown verdict changes nothing, only a drain of fabricmon's own is
  // resumed, and a drain of someone else's is never replaced.
  for (HealthStatus status : {HealthStatus::kOk, HealthStatus::kProblem, HealthStatus::kUnknown}) {
    Verdict verdict;
    verdict.status = status;
    const SlurmDecision d = health::decide(*node, verdict, std::string(health::kReasonPrefix) + "test");
    if (status == HealthStatus::kUnknown) FUZZ_CHECK(d.action == SlurmAction::kNone);
    if (d.action == SlurmAction::kResume) FUZZ_CHECK(node->drainedByUs() && status == HealthStatus::kOk);
    if (node->drained() && !node->drainedByUs()) FUZZ_CHECK(d.action == SlurmAction::kNone);
  }
  return 0;
}
