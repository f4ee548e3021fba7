#include "tests/support/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <stdexcept>
#include <thread>

namespace fabricmon::testing {

ChildProcess::ChildProcess(std::vector<std::string> argv) {
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork");
  if (pid_ == 0) {
    ::dup2(pipeFds[1], 1);
    ::dup2(pipeFds[1], 2);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipeFds[1]);
  fd_ = pipeFds[0];
  ::fcntl(fd_, F_SETFL, O_NONBLOCK);
}

// A child still running is asked to stop first, so that it cleans up after itself (a demo daemon
// removes the node it made in $TMPDIR); one that does not within 5 s is killed (a daemon takes up to
// ~3.5 s to stop on its own: 1.5 s of grace for stuck runs, up to 1.8 s to write its state).
ChildProcess::~ChildProcess() {
  if (!status_) {
    ::kill(pid_, SIGTERM);
    if (!wait(std::chrono::milliseconds(5000))) {
      ::kill(pid_, SIGKILL);
      wait(std::chrono::milliseconds(5000));
    }
  }
  if (fd_ >= 0) ::close(fd_);
}

void ChildProcess::signal(int signo) { ::kill(pid_, signo); }

void ChildProcess::drain() {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof(buf));
    if (n <= 0) break;
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

std::string ChildProcess::output() {
  drain();
  return buffer_;
}

std::optional<int> ChildProcess::wait(std::chrono::milliseconds timeout) {
  if (status_) return status_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int st = 0;
    const pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      drain();
      return status_;
    }
    drain();
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool ChildProcess::waitForOutput(const std::string& needle, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (output().find(needle) != std::string::npos) return true;
    if (wait(std::chrono::milliseconds(0))) return output().find(needle) != std::string::npos;
    pollfd p{fd_, POLLIN, 0};
    ::poll(&p, 1, 20);
  }
  return false;
}

std::optional<int> ChildProcess::waitForPort(std::chrono::milliseconds timeout) {
  if (!waitForOutput("/metrics", timeout)) return std::nullopt;
  static const std::regex kServing(R"(https?://[^:/\s]+:(\d+)/metrics)");
  std::smatch m;
  const std::string out = output();
  if (!std::regex_search(out, m, kServing)) return std::nullopt;
  return std::stoi(m[1].str());
}

int runCommand(const std::vector<std::string>& argv, std::string* output) {
  ChildProcess child(argv);
  const auto code = child.wait(std::chrono::minutes(2));
  if (output) *output = child.output();
  return code.value_or(-1);
}

}  // namespace fabricmon::testing
