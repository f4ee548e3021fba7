// The jobs on this node, found locally (collectors/sources/local_jobs.hpp), over directory trees laid
// out as slurmd and the kernel lay them out: a cgroup v2 hierarchy with slurmstepd.scope/job_<id>,
// a cgroup v1 slurm/uid_<uid>/job_<id>, slurmd's spool directory with real step sockets, a /proc
// with a slurmstepd and its task, and dcgm-exporter's GPU job map. The real slurmd is
// tests/deploy/slurm_health_check_test.sh (a srun job appears and leaves).
#include <pwd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "collectors/sources/local_jobs.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// A listening-free unix socket at `path`, as slurmstepd creates one per step.
void makeSocket(const fs::path& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.string().size(), sizeof addr.sun_path);
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << path;
  ::close(fd);
}

std::string nameOf(uid_t uid) {
  passwd* pw = ::getpwuid(uid);
  return pw != nullptr ? pw->pw_name : std::to_string(uid);
}

class LocalJobsTest : public ::testing::Test {
 protected:
  testing::TempDir tmp_{"fabricmon-jobs"};
  const fs::path& root_ = tmp_.path();
};

TEST_F(LocalJobsTest, CgroupV2JobsUnderSlurmstepdScopeWithTheOwnerOfTheirTasks) {
  const fs::path scope = root_ / "cgroup" / "system.slice" / "slurmstepd.scope";
  // job_42: a task of this test process (its owner is whoever runs the test).
  write(scope / "job_42" / "step_0" / "user" / "task_0" / "cgroup.procs", std::to_string(::getpid()) + "\n");
  write(scope / "job_42" / "step_0" / "slurm" / "cgroup.procs", "");
  // job_43: no task any more (ending): a job without a user.
  write(scope / "job_43" / "step_extern" / "cgroup.procs", "");
  fs::create_directories(scope / "job_x");     // not a job id
  fs::create_directories(scope / "system");    // slurmstepd's own cgroup
  LocalJobPaths paths{"", root_ / "cgroup", "/proc"};
  const auto jobs = findLocalJobs(paths);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0], (LocalJob{"42", nameOf(::getuid())}));
  EXPECT_EQ(jobs[1], (LocalJob{"43", ""}));

  fs::remove_all(scope / "job_42");  // the job ended
  ASSERT_EQ(findLocalJobs(paths).size(), 1u);
}

TEST_F(LocalJobsTest, CgroupV1JobsNameTheirUserInTheDirectory) {
  fs::create_directories(root_ / "cgroup" / "freezer" / "slurm" / "uid_0" / "job_7" / "step_0");
  fs::create_directories(root_ / "cgroup" / "memory" / "slurm" / "uid_0" / "job_7");
  fs::create_directories(root_ / "cgroup" / "memory" / "slurm" / "uid_0" / "job_10");
  fs::create_directories(root_ / "cgroup" / "memory" / "slurm" / "uidx" / "job_11");
  const auto jobs = findLocalJobs({"", root_ / "cgroup", "/proc"});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0], (LocalJob{"7", "root"}));  // numeric order: 7 before 10
  EXPECT_EQ(jobs[1], (LocalJob{"10", "root"}));
}

TEST_F(LocalJobsTest, SpoolSocketsAndTheUserOfTheStepsTasks) {
  const fs::path spool = root_ / "spool";
  fs::create_directories(spool);
  makeSocket(spool / "gpu_a_99.0");          // a node name with an underscore
  makeSocket(spool / "gpu_a_99.4294967292");  // the extern step of the same job
  makeSocket(spool / "gpu_a_100.0");
  write(spool / "gpu_a_5.0", "");  // a file, not a socket
  makeSocket(spool / "cred_state");
  // /proc: slurmstepd of 99.0 (pid 300) with a task (301) of uid 65534; 100.0's stepd has no task.
  const fs::path proc = root_ / "proc";
  write(proc / "300" / "cmdline", std::string("slurmstepd: [99.0]") + '\0');
  write(proc / "300" / "stat", "300 (slurmstepd) S 1 300 300 0 -1");
  write(proc / "301" / "cmdline", std::string("sleep") + '\0' + "60" + '\0');
  write(proc / "301" / "stat", "301 (sle) ep) S 300 301 300 0 -1");  // comm with ") " in it
  write(proc / "301" / "status", "Name:\tsleep\nUid:\t65534\t65534\t65534\t65534\nGid:\t0\n");
  write(proc / "302" / "cmdline", std::string("slurmstepd: [100.0]") + '\0');
  write(proc / "302" / "stat", "302 (slurmstepd) S 1 302 302 0 -1");
  const auto jobs = findLocalJobs({spool, "", proc});
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0], (LocalJob{"99", nameOf(65534)}));
  EXPECT_EQ(jobs[1], (LocalJob{"100", ""}));
}

TEST_F(LocalJobsTest, NothingThereIsNoJob) {
  EXPECT_TRUE(findLocalJobs({root_ / "no-spool", root_ / "no-cgroup", root_ / "no-proc"}).empty());
}

TEST_F(LocalJobsTest, GpuJobMapInDcgmExporterLayout) {
  const fs::path map = root_ / "map";
  write(map / "0", "4711\n");
  write(map / "3", "4712 1000\n4713\n");  // two jobs sharing GPU 3; a prolog that writes "job uid"
  write(map / "GPU-8f2b1c3a-0000-0000-0000-000000000000", "4714\n");  // by UUID: not placeable
  write(map / "5", "");  // a GPU freed by the epilog that truncates instead of removing
  auto m = readGpuJobMap(map);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->size(), 2u);
  EXPECT_EQ(m->at(0), std::vector<std::string>{"4711"});
  EXPECT_EQ(m->at(3), (std::vector<std::string>{"4712", "4713"}));
  EXPECT_FALSE(readGpuJobMap(root_ / "absent"));
}

}  // namespace
}  // namespace fabricmon
