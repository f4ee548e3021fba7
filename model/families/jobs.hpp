#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"): the
// scheduler's jobs running on this node, and the ports that serve the GPUs each job holds
// (slurm_jobs). One series per running job, or per job and port: never a job label on the
// counters (a label that changes with every job would multiply every series by the jobs it saw).
// docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::jobs {

extern const FamilyDef kNodeJobInfo;  // fabricmon_node_job_info
extern const FamilyDef kPortJobInfo;  // fabricmon_port_job_info

/// Every family above.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::jobs
