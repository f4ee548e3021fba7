#pragma once
// The table of NIC driver messages the kernel log is matched against (docs/metrics.md, "NIC and
// driver health"): one row per message, with a stable pattern name (the `pattern` label), the
// driver that logs it, its severity class, what it means and where it comes from. Matching is a
// substring search for one or two fixed anchors per row, in table order (first match wins); no
// regular expression runs per record.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "collectors/sources/kmsg_record.hpp"

namespace fabricmon {

enum class DriverSeverity { kFatal, kRecoverable, kInfo };
std::string_view driverSeverityName(DriverSeverity s);  ///< "fatal", "recoverable", "info"

/// How a matching record names the function it is about.
enum class Attribution {
  kPci,         ///< DEVICE=+pci:ADDR, or the dev_printk prefix "driver ADDR:" / "driver ADDR ifname:"
  kRdmaName,    ///< as kPci, else "mlx5_0:..." (mlx5_ib_warn) or "infiniband mlx5_0: ..."
  kNetdevName,  ///< as kPci, else "NETDEV WATCHDOG: eth0 (driver): ..." (kernels before 6.7)
  kTrace,       ///< a hung task / soft lockup header: the call trace that follows names the module
};

struct DriverMessage {
  std::string_view name;    ///< stable pattern name: the `pattern` label
  std::string_view driver;  ///< the driver (module) that logs it; "kernel" for the kernel's own
  DriverSeverity severity;
  /// Must occur in the message; '|' separates the texts of kernels that word it differently (one
  /// of them must occur).
  std::string_view anchor;
  std::string_view anchor2;  ///< and so must this ("" = no second anchor; '|' as for `anchor`)
  std::string_view meaning;
  std::string_view source;  ///< kernel source file and function (or a public report)
  Attribution attribution = Attribution::kPci;
};

/// Every row, in matching order.
std::span<const DriverMessage> driverMessages();
/// The row called `name`, or nullptr.
const DriverMessage* findDriverMessage(std::string_view name);

/// The first row whose anchors the message contains (no attribution, no trace state).
const DriverMessage* matchDriverMessage(std::string_view message);

struct DriverMatch {
  const DriverMessage* row = nullptr;
  std::string_view driver;  ///< row->driver, or the module a call trace named
  std::string pci;          ///< the function's PCI address, when the record names one
  std::string rdmaDevice;   ///< or the RDMA device it names
  std::string netdev;       ///< or the interface it names
};

/// Matches records in the order the kernel logged them. Stateful only for hung task and soft
/// lockup reports: their header names a task, the call trace after it names the module it hung
/// in ("mlx5_cmd_exec+0x2f/0x50 [mlx5_core]"); the first NIC module in the next kTraceWindow
/// records completes the match.
class DriverLogMatcher {
 public:
  static constexpr unsigned kTraceWindow = 64;
  std::optional<DriverMatch> match(const KmsgRecord& record);

 private:
  const DriverMessage* pendingTrace_ = nullptr;
  unsigned traceLeft_ = 0;
};

/// The PCI address of a dev_printk()-style prefix ("mlx5_core 0000:3b:00.0: ...",
/// "mlx5_core 0000:3b:00.0 ens1f0np0: ..."), or "".
std::string_view pciFromPrefix(std::string_view message);

/// The NIC modules a call trace may name and the driver whose functions they serve.
struct NicModule {
  std::string_view module;     ///< as in a trace line's "[module]"
  std::string_view netDriver;  ///< the driver bound to the function (class/net/<if>/device/driver)
};
std::span<const NicModule> nicModules();

}  // namespace fabricmon
