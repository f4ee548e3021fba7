// The slurm_jobs collector: the Slurm jobs running on this node, found locally
// (collectors/sources/local_jobs.hpp), as fabricmon_node_job_info{job_id,user}, and, where a GPU
// job map exists, the RDMA ports serving each job's GPUs as
// fabricmon_port_job_info{device,port,job_id} (docs/metrics.md, "Jobs").

#include <algorithm>
#include <set>

#include "collectors/host_topology.hpp"
#include "collectors/labelled_series.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/local_jobs.hpp"
#include "model/families/jobs.hpp"

namespace fabricmon {
namespace {

using families::jobs::kNodeJobInfo;
using families::jobs::kPortJobInfo;

class SlurmJobsCollector final : public Collector {
 public:
  SlurmJobsCollector(std::shared_ptr<const SysfsRoot> sysfs, const SlurmJobsConfig& config)
      : host_(std::move(sysfs)), config_(config) {}

  std::span<const FamilyDef* const> families() const override { return families::jobs::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    const auto jobs = findLocalJobs({config_.spoolDir, config_.cgroupRoot, config_.procRoot});
    for (const LocalJob& job : jobs) {
      out.add(series_.get(kNodeJobInfo, {{"job_id", job.id}, {"user", job.user}}), 1.0);
    }
    if (config_.gpuJobMapDir) {
      auto map = readGpuJobMap(*config_.gpuJobMapDir);
      if (!map) {
        out.fileError("gpu_job_map", map.error());
      } else {
        out.fileOk("gpu_job_map");
        portJobs(topology, *map, out);
      }
    }
    series_.endRun();  // a job that ended leaves with the next batch
    return jobs.empty() && !config_.gpuJobMapDir ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  /// GPU index i is the i-th GPU in PCI address order (NVML's default enumeration); a port serves
  /// the GPUs port_topology lists beside it.
  void portJobs(const Topology& topology, const std::map<unsigned, std::vector<std::string>>& map,
                CollectOutput& out) {
    const auto placements = host_.read(topology);
    std::vector<std::string> gpus;
    for (const GpuFunction& g : host_.gpus()) gpus.push_back(g.pciAddress);
    std::sort(gpus.begin(), gpus.end());
    std::map<std::string, std::set<std::string>> jobsOfGpu;  // PCI address -> job ids
    for (const auto& [index, ids] : map) {
      if (index < gpus.size()) jobsOfGpu[gpus[index]].insert(ids.begin(), ids.end());
    }
    for (const RdmaDevice& d : topology.devices) {
      const auto placed = placements.find(d.name);
      if (placed == placements.end()) continue;
      std::set<std::string> ids;
      for (const std::string& gpu : placed->second.gpus) {
        if (auto it = jobsOfGpu.find(gpu); it != jobsOfGpu.end()) ids.insert(it->second.begin(), it->second.end());
      }
      for (const RdmaPort& p : d.ports) {
        for (const std::string& id : ids) {
          out.add(series_.get(kPortJobInfo, {{"device", d.name}, {"port", std::to_string(p.number)}, {"job_id", id}}),
                  1.0);
        }
      }
    }
  }

  HostTopology host_;
  SlurmJobsConfig config_;
  LabelledSeries series_;
};

std::unique_ptr<Collector> makeSlurmJobsCollector(const Sources& sources, const Config& config) {
  return std::make_unique<SlurmJobsCollector>(sources.sysfs, config.slurmJobs);
}

}  // namespace

// The scheduler's jobs on this node, found locally (spool sockets, job cgroups, GPU job map).
extern const CollectorEntry kSlurmJobsCollector{
    "slurm_jobs", Cadence::kSlow, {}, &makeSlurmJobsCollector, nullptr};

}  // namespace fabricmon
