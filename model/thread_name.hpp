#pragma once
// Names the calling thread, so that `top -H`, `ps -L`, `perf report --sort comm` and gdb tell the
// daemon's threads apart (a collector, the pipeline, the HTTP server) instead of showing
// "fabricmon" for all of them.

#include <string>
#include <string_view>

namespace fabricmon {

/// The kernel keeps at most 15 bytes of a thread's name (TASK_COMM_LEN 16, include/linux/sched.h):
/// longer names are cut. Best effort: a failure leaves the name as it was.
void nameThisThread(std::string_view name);

/// The calling thread's name as the kernel keeps it ("" when it cannot be read).
std::string thisThreadName();

}  // namespace fabricmon
