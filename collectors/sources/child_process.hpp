#pragma once
// Runs a program as a child process without a shell: its own stdout/stderr pipes, stdin from
// /dev/null, no other descriptor of the caller (closefrom), a fixed environment, default signal
// dispositions, and a deadline past which it is killed and reaped. A hung child costs the caller
// one bounded wait, never a stuck thread or a zombie. Used by the lldpcli source and by
// `fabricmon health-check --slurm` (scontrol).

#include <chrono>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

struct ChildProcessSpec {
  std::vector<std::string> argv;  ///< argv[0] is the program's absolute path (no PATH search)
  std::vector<std::string> env;   ///< "NAME=value" entries: the child's whole environment
  std::chrono::milliseconds timeout{1000};
  size_t maxOutput = size_t{8} << 20;  ///< per stream; beyond it the child is killed
};

struct ChildProcessResult {
  int exitCode = -1;  ///< the exit status when it exited; -1 when killed by a signal
  int signal = 0;     ///< the signal that ended it, 0 when it exited
  std::string out, err;

  bool ok() const { return exitCode == 0; }
  /// "exited with 1: <last line of stderr>" or "killed by signal 9: ...".
  std::string describe() const;
};

/// Starts argv[0] and waits for it until the deadline. Errors: the program cannot be started
/// (errnum from posix_spawn), it did not finish in time (ETIMEDOUT; it was killed), it printed more
/// than maxOutput (EFBIG; killed). Any exit status is a result, not an error.
Result<ChildProcessResult> runChildProcess(const ChildProcessSpec& spec);

}  // namespace fabricmon
