// The real rtnetlink DCB source against the running kernel, inside a private network namespace so
// the host's interfaces are never touched: veth and lo have no dcbnl_ops, so the kernel refuses
// RTM_GETDCB (EOPNOTSUPP, net/dcb/dcbnl.c dcb_doit) and the source must say "no DCB", not fail.

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <sstream>

#include "collectors/sources/dcb_source.hpp"

namespace fabricmon {
namespace {

std::string describe(const Result<std::optional<DcbInfo>>& r) {
  if (!r.ok()) return "error:" + std::to_string(r.error().errnum) + ":" + r.error().message;
  return r->has_value() ? "value" : "none";
}

[[noreturn]] void finishChild(int fd, const std::string& s) {
  const ssize_t n = ::write(fd, s.data(), s.size());
  ::_exit(n == static_cast<ssize_t>(s.size()) ? 0 : 3);
}

// Runs in the forked child: everything it learns goes back as "name=outcome" lines.
[[noreturn]] void childMain(int fd) {
  auto finish = [fd](const std::string& s) { finishChild(fd, s); };
  if (::unshare(CLONE_NEWNET) != 0) {
    finish(std::string("SKIP unshare(CLONE_NEWNET) failed: ") + std::strerror(errno) +
           " (needs CAP_SYS_ADMIN)");
  }
  const int rc = std::system(
      "PATH=\"$PATH:/usr/sbin:/sbin\"; command -v ip >/dev/null 2>&1 || exit 127; "
      "ip link add vethA type veth peer name vethB >/dev/null 2>&1");
  if (!WIFEXITED(rc) || WEXITSTATUS(rc) == 127)
    finish("SKIP the ip command (iproute2) is not available");
  if (WEXITSTATUS(rc) != 0) finish("SKIP 'ip link add ... type veth' failed (no veth support?)");

  auto source = makeDcbNetlinkSource();
  std::ostringstream out;
  out << "vethA=" << describe(source->read("vethA")) << "\n";
  out << "lo=" << describe(source->read("lo")) << "\n";
  out << "vethA_again=" << describe(source->read("vethA")) << "\n";  // the one socket is reused
  out << "missing=" << describe(source->read("nosuchif0")) << "\n";
  finishChild(fd, out.str());
}

TEST(DcbNetlinkSourceKernel, InterfacesWithoutDcbSupportAreNoDataNotErrors) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    childMain(fds[1]);
  }
  ::close(fds[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof(buf))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    ASSERT_GT(n, 0);
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "child status " << status << ": " << text;
  if (text.rfind("SKIP ", 0) == 0) GTEST_SKIP() << text.substr(5);

  std::map<std::string, std::string> results;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) results[line.substr(0, eq)] = line.substr(eq + 1);
  }
  EXPECT_EQ(results["vethA"], "none");
  EXPECT_EQ(results["lo"], "none");
  EXPECT_EQ(results["vethA_again"], "none");
  // An interface that does not exist is a real error (ENODEV from dcb_doit), not "no DCB".
  EXPECT_EQ(results["missing"].rfind("error:" + std::to_string(ENODEV) + ":", 0), 0u)
      << results["missing"];
}

}  // namespace
}  // namespace fabricmon
