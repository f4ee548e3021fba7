#include "model/families/jobs.hpp"

#include <array>

namespace fabricmon::families::jobs {

using enum MetricType;

const FamilyDef kNodeJobInfo{
    "fabricmon_node_job_info",
    "A Slurm job running on this node now, found locally (slurmd's spool directory, the job cgroups); "
    "always 1. user owns the job's tasks.",
    kGauge, "1", "job_id,user"};

const FamilyDef kPortJobInfo{
    "fabricmon_port_job_info",
    "A running Slurm job holds a GPU that this RDMA port serves (the GPU-to-job mapping directory, and "
    "the GPUs of fabricmon_port_topology_info); always 1.",
    kGauge, "1", "device,port,job_id"};

const std::array<const FamilyDef*, 2> kAll{&kNodeJobInfo, &kPortJobInfo};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::jobs
