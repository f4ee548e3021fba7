// `lldpcli -f json0 show neighbors details`, run as a child process without a shell. The child
// gets its own stdout/stderr pipes, no other descriptor of the daemon (closefrom), a fixed
// environment, and a deadline: past it, it is killed and reaped, so a hung lldpd costs one failed
// poll of one collector, never a stuck thread or a zombie.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>

#include "collectors/sources/lldp_source.hpp"

namespace fabricmon {
namespace {

constexpr size_t kMaxOutput = 8 << 20;  // a node with hundreds of neighbours prints well under 1 MiB
constexpr std::string_view kDefaultSocket = "/run/lldpd.socket";  // lldpd(8), LLDPD_CTL_SOCKET

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

class LldpcliSource final : public LldpSource {
 public:
  LldpcliSource(std::filesystem::path program, std::optional<std::string> socket, std::chrono::milliseconds timeout)
      : program_(std::move(program)), socket_(std::move(socket)), timeout_(timeout) {}

  Result<std::vector<LldpNeighbor>> neighbors() override {
    struct stat st{};
    if (::stat(program_.c_str(), &st) != 0) {
      return Error{program_.string() + " not found (no lldpd on this node; Debian: apt-get install lldpd)", ENOENT};
    }
    const std::string socket = socket_.value_or(std::string(kDefaultSocket));
    if (::stat(socket.c_str(), &st) != 0) {
      return Error{"no lldpd control socket at " + socket + " (lldpd is not running)", ENOENT};
    }
    auto text = run(socket);
    if (!text) return text.error();
    return parseLldpJson0(*text);
  }

 private:
  Result<std::string> run(const std::string& socket) {
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
    // The child starts with default signal dispositions and an empty mask, whatever the daemon's
    // threads block (the daemon blocks SIGTERM/SIGHUP to handle them itself).
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const std::string program = program_.string();
    std::array<const char*, 9> argv{program.c_str(), "-u", socket.c_str(), "-f", "json0", "show", "neighbors",
                                    "details", nullptr};
    std::array<const char*, 3> envp{"LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, const_cast<char* const*>(argv.data()),
                                 const_cast<char* const*>(envp.data()));
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    // The program was there a moment ago (stat above): failing to start it now is a fault, not "no LLDP".
    if (rc != 0) return sysError("spawn " + program, rc == ENOENT ? EIO : rc);
    out.closeEnd(1);
    err.closeEnd(1);

    std::string stdoutText, stderrText;
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
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
        std::string& into = i == 0 ? stdoutText : stderrText;
        into.append(buf, static_cast<size_t>(got));
        if (into.size() > kMaxOutput) tooLong = true;
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
      return Error{program + " did not answer within " + std::to_string(timeout_.count()) + " ms (killed)", ETIMEDOUT};
    }
    if (tooLong) return Error{program + " printed more than 8 MiB (killed)", EFBIG};
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      const std::string why = WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                                : "killed by signal " + std::to_string(WTERMSIG(status));
      return Error{program + " " + why + ": " + lastLine(stderrText), EIO};
    }
    return stdoutText;
  }

  std::filesystem::path program_;
  std::optional<std::string> socket_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

std::unique_ptr<LldpSource> makeLldpcliSource(std::filesystem::path program, std::optional<std::string> socket,
                                              std::chrono::milliseconds timeout) {
  return std::make_unique<LldpcliSource>(std::move(program), std::move(socket), timeout);
}

}  // namespace fabricmon
