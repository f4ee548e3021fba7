#pragma once
// The Slurm jobs running on this node, found locally, without asking slurmctld (thousands of nodes
// must not poll the controller):
//  - slurmd's spool directory: each running step has a socket there named `<node>_<job>.<step>`
//    (that is how `scontrol listpids` finds local steps, with any proctrack plugin); the user is
//    the owner of the tasks the step's slurmstepd (`slurmstepd: [<job>.<step>]`) started;
//  - the job cgroups slurmd creates: cgroup v1 `<root>/<controller>/slurm/uid_<uid>/job_<id>/`,
//    cgroup v2 `<root>/.../slurmstepd.scope/job_<id>/` (the user owns the tasks in its cgroup.procs);
//  - where the site's prolog writes it, a GPU-to-job mapping directory in dcgm-exporter's HPC job
//    mapping layout: a file per GPU index (0, 1, ...) holding the job ids on that GPU, one a line.
// Every path is below a configurable root, so tests drive the real code on directory trees.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

struct LocalJob {
  std::string id;    ///< "4711" (an array task's own id; "4711" of "4711.0")
  std::string user;  ///< user name, or the numeric uid when it has no name; "" when unknown

  bool operator==(const LocalJob&) const = default;
};

struct LocalJobPaths {
  std::filesystem::path spoolDir;    ///< SlurmdSpoolDir; "" = not read
  std::filesystem::path cgroupRoot;  ///< "" = not read
  std::filesystem::path procRoot;    ///< /proc: the users of spool-found steps and cgroup tasks
};

/// Every job found, sorted by id (numerically), one entry per job. A source that does not exist
/// is no job; the jobs are empty when none exists at all.
std::vector<LocalJob> findLocalJobs(const LocalJobPaths& paths);

/// GPU index -> job ids, from a dcgm-exporter mapping directory. Files not named by a decimal index
/// (GPU UUIDs, MIG instances) are skipped: fabricmon knows GPUs by PCI address, and the index is
/// their rank in PCI order (NVML's default enumeration). An error when the directory is unreadable.
Result<std::map<unsigned, std::vector<std::string>>> readGpuJobMap(const std::filesystem::path& dir);

}  // namespace fabricmon
