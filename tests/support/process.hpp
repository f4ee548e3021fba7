#pragma once
// Test helper: runs a program as a child process and captures its output.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace fabricmon::testing {

class ChildProcess {
 public:
  /// Starts `argv` with stdout and stderr captured (read with output()).
  explicit ChildProcess(std::vector<std::string> argv);
  /// A child still running gets SIGTERM, and SIGKILL if it has not exited 5 s later.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int signo);
  /// Waits up to `timeout` for exit; the exit code (128+N for signal N), or nullopt if still running.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  /// Everything the child wrote so far (stdout and stderr interleaved).
  std::string output();
  /// Waits until output() contains `needle`; returns false on timeout or exit.
  bool waitForOutput(const std::string& needle, std::chrono::milliseconds timeout);
  /// Parses the port from the daemon's "serving http://HOST:PORT/metrics" line.
  std::optional<int> waitForPort(std::chrono::milliseconds timeout);

 private:
  void drain();
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buffer_;
  std::optional<int> status_;
};

/// Runs a command to completion; returns the exit code and fills `output` with stdout+stderr.
int runCommand(const std::vector<std::string>& argv, std::string* output = nullptr);

}  // namespace fabricmon::testing
