#pragma once
// The kernel log, read as it is meant to be read (Documentation/ABI/testing/dev-kmsg): one record
// per read() of /dev/kmsg, non-blocking. The first open reads the ring to its end: the kernel's
// records of the last hour are the backlog (KmsgRecord::backlog), handed out first, so a NIC that
// failed at boot or while the daemon restarted is not missed (the nic_driver_error rule ages each
// record by its own time, so only those within its quiet_period are news). A reader that falls
// behind the ring gets EPIPE once and then continues at the oldest record still there: the gap in
// sequence numbers is counted as lost.
// Two implementations:
//  - /dev/kmsg (needs root or CAP_SYSLOG when kernel.dmesg_restrict = 1; without it the source
//    says "no access" once and the daemon goes on);
//  - a file of kmsg-formatted records (the same header and dictionary lines, one record after
//    another), read from the start and then as it grows: the simulator's node, the demo, tests.
// A source is kept across a configuration reload (collectors/registry.cpp), so nothing logged
// while the daemon reloads is lost.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectors/sources/kmsg_record.hpp"
#include "model/result.hpp"

namespace fabricmon {

struct KernelLogRead {
  std::vector<KmsgRecord> records;
  uint64_t lost = 0;         ///< records the ring overwrote before they were read (sequence gaps)
  bool accessDenied = false; ///< true on the read that first found no access (EACCES/EPERM): counted once
  uint64_t malformed = 0;    ///< records whose header did not parse (skipped)
};

class KernelLogSource {
 public:
  virtual ~KernelLogSource() = default;
  /// Appends the records that arrived since the last call, at most `max`, to `out` (never blocks).
  /// An Error when the log cannot be read now (no access, the file vanished); the next call tries
  /// again (at most once a minute after "no access").
  virtual Status read(KernelLogRead& out, size_t max) = 0;
  /// What it reads ("kmsg:/dev/kmsg", "file:/run/demo/kmsg"): a reload keeps the source when this
  /// is unchanged.
  virtual const std::string& origin() const = 0;
};

/// How far back the backlog reaches at the first open: longer than nic_driver_error's quiet_period
/// (15 min), so every record that can still raise a finding is in it, with some to count.
inline constexpr std::chrono::hours kKernelLogBacklog{1};

/// Which records of the backlog are kept first when it holds more than its cap: the ones the
/// reader would act on (the driver message table's), not the kernel's other lines.
using BacklogPriority = std::function<bool(std::string_view message)>;
std::unique_ptr<KernelLogSource> makeKmsgSource(std::string path = "/dev/kmsg", BacklogPriority priority = {});
std::unique_ptr<KernelLogSource> makeKmsgFileSource(std::string path);

/// Splits kmsg-formatted text into records (a header line and the continuation lines that follow
/// it); `consumed` is how many bytes of `text` ended in complete records (a record without its
/// final newline yet is left for the next read).
std::vector<std::string_view> splitKmsgText(std::string_view text, size_t& consumed);

}  // namespace fabricmon
