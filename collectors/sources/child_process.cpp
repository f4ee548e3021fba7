#include "collectors/sources/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>

namespace fabricmon {
namespace {

/// A pipe whose ends close themselves.
struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void closeEnd(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

std::string lastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (const auto nl = text.rfind('\n'); nl != std::string::npos) text = text.substr(nl + 1);
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ChildProcessResult::describe() const {
  const std::string how =
      signal != 0 ? "killed by signal " + std::to_string(signal) : "exited with " + std::to_string(exitCode);
  const std::string why = lastLine(err);
  return why.empty() ? how : how + ": " + why;
}

Result<ChildProcessResult> runChildProcess(const ChildProcessSpec& spec) {
  if (spec.argv.empty()) return Error{"child process: no program given", EINVAL};
  const std::string& program = spec.argv.front();
  Pipe out, err;
  if (::pipe2(out.fd, O_CLOEXEC) != 0 || ::pipe2(err.fd, O_CLOEXEC) != 0) return sysError("pipe2", errno);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // The child starts with default signal dispositions and an empty mask, whatever the caller's
  // threads block (the daemon blocks SIGTERM/SIGHUP to handle them itself).
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const auto argv = pointers(spec.argv);
  const auto envp = pointers(spec.env);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return sysError("spawn " + program, rc);
  out.closeEnd(1);
  err.closeEnd(1);

  ChildProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + spec.timeout;
  bool timedOut = false, tooLong = false;
  while (out.fd[0] >= 0 || err.fd[0] >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    std::array<pollfd, 2> fds{pollfd{out.fd[0], POLLIN, 0}, pollfd{err.fd[0], POLLIN, 0}};
    const int n = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()) + 1);
    if (n < 0 && errno != EINTR) {
      timedOut = true;  // cannot wait for it any more: treat it as hung
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[65536];
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) {
        (i == 0 ? out : err).closeEnd(0);
        continue;
      }
      std::string& into = i == 0 ? result.out : result.err;
      into.append(buf, static_cast<size_t>(got));
      if (into.size() > spec.maxOutput) tooLong = true;
    }
    if (tooLong) break;
  }
  // Both pipes closed is not the child gone (a wrapper that closes its output and lingers): wait
  // for it until the same deadline, then kill it. Either way it is reaped here.
  int status = 0;
  bool reaped = false;
  while (!timedOut && !tooLong) {
    const pid_t got = ::waitpid(pid, &status, WNOHANG);
    if (got == pid) {
      reaped = true;
      break;
    }
    if (got < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      timedOut = true;
      break;
    }
    ::usleep(2000);
  }
  if (!reaped) {
    if (timedOut || tooLong) ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (timedOut) {
    return Error{program + " did not answer within " + std::to_string(spec.timeout.count()) + " ms (killed)",
                 ETIMEDOUT};
  }
  if (tooLong) {
    return Error{program + " printed more than " + std::to_string(spec.maxOutput) + " bytes (killed)", EFBIG};
  }
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
  } else {
    result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
  return result;
}

}  // namespace fabricmon
