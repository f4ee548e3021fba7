#include "collectors/sources/local_jobs.hpp"

#include <pwd.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string readSmall(const fs::path& path, size_t max = 65536) {
  std::ifstream in(path, std::ios::binary);
  std::string out(max, '\0');
  in.read(out.data(), static_cast<std::streamsize>(max));
  out.resize(static_cast<size_t>(in.gcount()));
  return out;
}

std::vector<fs::path> children(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string userName(uid_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr) return found->pw_name;
  return std::to_string(uid);
}

/// The real uid of a process (the "Uid:" line of /proc/<pid>/status), nullopt when it is gone.
std::optional<uid_t> processUid(const fs::path& procRoot, std::string_view pid) {
  std::istringstream in(readSmall(procRoot / pid / "status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Uid:", 0) != 0) continue;
    unsigned long uid = 0;
    std::istringstream fields(line.substr(4));
    if (fields >> uid) return static_cast<uid_t>(uid);
  }
  return std::nullopt;
}

/// The user of a set of task pids: the first owner that is not root (slurmstepd itself runs as
/// root); root only when every task is root's.
std::string userOf(const fs::path& procRoot, const std::vector<std::string>& pids) {
  std::optional<uid_t> seen;
  for (const std::string& pid : pids) {
    const auto uid = processUid(procRoot, pid);
    if (!uid) continue;
    if (*uid != 0) return userName(*uid);
    seen = uid;
  }
  return seen ? userName(*seen) : std::string();
}

void merge(std::map<std::string, LocalJob>& jobs, const std::string& id, const std::string& user) {
  LocalJob& j = jobs[id];
  j.id = id;
  if (j.user.empty() || (j.user == "root" && !user.empty())) {
    if (!user.empty()) j.user = user;
  }
}

/// `<node>_<job>.<step>` sockets of the spool directory: job ids, and the users of their steps'
/// tasks through the slurmstepd processes that own the steps.
void fromSpool(const LocalJobPaths& paths, std::map<std::string, LocalJob>& jobs) {
  std::set<std::string> found;
  for (const fs::path& p : children(paths.spoolDir)) {
    std::error_code ec;
    if (!fs::is_socket(fs::symlink_status(p, ec))) continue;
    const std::string name = p.filename().string();
    const auto underscore = name.rfind('_');
    const auto dot = name.rfind('.');
    if (underscore == std::string::npos || dot == std::string::npos || dot < underscore) continue;
    const std::string job = name.substr(underscore + 1, dot - underscore - 1);
    if (allDigits(job) && allDigits(name.substr(dot + 1))) found.insert(job);
  }
  if (found.empty()) return;
  // slurmstepd names itself "slurmstepd: [<job>.<step>]" (src/slurmd/slurmstepd/slurmstepd.c);
  // the step's tasks are its children.
  std::map<std::string, std::string> stepdJob;  // stepd pid -> job
  std::map<std::string, std::vector<std::string>> tasks;  // job -> task pids
  std::vector<std::pair<std::string, std::string>> parentOf;  // (pid, ppid)
  for (const fs::path& p : children(paths.procRoot)) {
    const std::string pid = p.filename().string();
    if (!allDigits(pid)) continue;
    const std::string cmdline = readSmall(p / "cmdline", 256);
    if (cmdline.rfind("slurmstepd: [", 0) == 0) {
      const std::string job = cmdline.substr(13, cmdline.find_first_of(".]", 13) - 13);
      if (found.contains(job)) stepdJob[pid] = job;
      continue;
    }
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
    const std::string stat = readSmall(p / "stat", 512);
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state, ppid;
    if (rest >> state >> ppid) parentOf.emplace_back(pid, ppid);
  }
  for (const auto& [pid, ppid] : parentOf) {
    if (auto it = stepdJob.find(ppid); it != stepdJob.end()) tasks[it->second].push_back(pid);
  }
  for (const std::string& job : found) merge(jobs, job, userOf(paths.procRoot, tasks[job]));
}

/// Every pid in the cgroup.procs files at or below `dir` (at most `depth` levels).
void cgroupPids(const fs::path& dir, int depth, std::vector<std::string>& pids) {
  std::istringstream in(readSmall(dir / "cgroup.procs"));
  for (std::string pid; in >> pid;) pids.push_back(pid);
  if (depth == 0) return;
  for (const fs::path& c : children(dir)) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(c, ec))) cgroupPids(c, depth - 1, pids);
  }
}

void fromCgroups(const LocalJobPaths& paths, std::map<std::string, LocalJob>& jobs) {
  const fs::path& root = paths.cgroupRoot;
  std::error_code ec;
  // v1: <root>/<controller>/slurm/uid_<uid>/job_<id> (src/plugins/cgroup/v1/cgroup_v1.c).
  for (const fs::path& controller : children(root)) {
    for (const fs::path& uidDir : children(controller / "slurm")) {
      const std::string uidName = uidDir.filename().string();
      if (uidName.rfind("uid_", 0) != 0 || !allDigits(uidName.substr(4))) continue;
      unsigned long uid = 0;
      std::from_chars(uidName.data() + 4, uidName.data() + uidName.size(), uid);
      for (const fs::path& jobDir : children(uidDir)) {
        const std::string name = jobDir.filename().string();
        if (name.rfind("job_", 0) == 0 && allDigits(name.substr(4))) {
          merge(jobs, name.substr(4), userName(static_cast<uid_t>(uid)));
        }
      }
    }
  }
  // v2: <root>/[<slice>/[<slice>/]]slurmstepd.scope/job_<id> (src/plugins/cgroup/v2/cgroup_v2.c;
  // system.slice/ under systemd).
  std::vector<fs::path> scopes{root / "slurmstepd.scope"};
  for (const fs::path& a : children(root)) {
    scopes.push_back(a / "slurmstepd.scope");
    for (const fs::path& b : children(a)) {
      if (fs::is_directory(fs::symlink_status(b, ec))) scopes.push_back(b / "slurmstepd.scope");
    }
  }
  for (const fs::path& scope : scopes) {
    if (!fs::is_directory(fs::symlink_status(scope, ec))) continue;
    for (const fs::path& jobDir : children(scope)) {
      const std::string name = jobDir.filename().string();
      if (name.rfind("job_", 0) != 0 || !allDigits(name.substr(4))) continue;
      std::vector<std::string> pids;
      cgroupPids(jobDir, 4, pids);  // job_<id>/step_<s>/user/task_<t>/cgroup.procs
      merge(jobs, name.substr(4), userOf(paths.procRoot, pids));
    }
  }
}

bool numericLess(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

}  // namespace

std::vector<LocalJob> findLocalJobs(const LocalJobPaths& paths) {
  std::map<std::string, LocalJob> jobs;
  if (!paths.spoolDir.empty()) fromSpool(paths, jobs);
  if (!paths.cgroupRoot.empty()) fromCgroups(paths, jobs);
  std::vector<LocalJob> out;
  for (auto& [id, job] : jobs) out.push_back(std::move(job));
  std::sort(out.begin(), out.end(), [](const LocalJob& a, const LocalJob& b) { return numericLess(a.id, b.id); });
  return out;
}

Result<std::map<unsigned, std::vector<std::string>>> readGpuJobMap(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error{"GPU job map " + dir.string() + ": not a readable directory", ENOENT};
  std::map<unsigned, std::vector<std::string>> out;
  for (const fs::path& p : children(dir)) {
    const std::string name = p.filename().string();
    if (!allDigits(name) || name.size() > 4) continue;
    std::istringstream in(readSmall(p, 4096));
    std::vector<std::string> ids;
    for (std::string id; in >> id;) {
      // "4711", or "4711 1000" (a job id and a uid, as some prologs write): the job id is the first
      // word of each line and only digits count.
      if (allDigits(id)) ids.push_back(id);
      std::string restOfLine;
      std::getline(in, restOfLine);
    }
    if (!ids.empty()) out[static_cast<unsigned>(std::stoul(name))] = std::move(ids);
  }
  return out;
}

}  // namespace fabricmon
