#pragma once
// The slurm_jobs collector: the Slurm jobs running on this node, found locally
// (collectors/sources/local_jobs.hpp), as fabricmon_node_job_info{job_id,user}, and, where a GPU
// job map exists, the RDMA ports serving each job's GPUs as fabricmon_port_job_info{device,port,job_id}
// (docs/metrics.md, "Jobs").

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

std::unique_ptr<Collector> makeSlurmJobsCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
