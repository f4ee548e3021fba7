#pragma once
// devlink health reporters: how NIC drivers report their own internal faults and the recovery they
// ran (Documentation/networking/devlink/devlink-health.rst). mlx5 has `fw` and `fw_fatal` per
// device and `tx`/`rx` (TX timeouts, RX CQE errors) per port on recent kernels, bnxt_en `fw`/`hw`,
// ice `mdd`, `tx_hang`, `port`, ... Each reporter has a state (healthy/error), an error count and a
// recovery count; a NIC that wedges shows here before the job hangs.
//
// Real: the devlink generic-netlink family, DEVLINK_CMD_HEALTH_REPORTER_GET with NLM_F_DUMP (every
// reporter of every devlink instance, device-level first, then per port: net/devlink/health.c,
// devlink_nl_health_reporter_get_dump_one()). File: what `devlink -j -s health show` (iproute2)
// prints, the capture an operator makes with one command.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

/// One reporter as devlink_nl_health_reporter_fill() (net/devlink/health.c) reports it. Every
/// value has been checked against its domain; a reporter that failed is in `rejected` instead.
struct DevlinkHealthReporter {
  std::string bus;               ///< DEVLINK_ATTR_BUS_NAME: "pci"
  std::string device;            ///< DEVLINK_ATTR_DEV_NAME: "0000:08:00.0"
  std::optional<uint32_t> port;  ///< DEVLINK_ATTR_PORT_INDEX: set for a port's reporter
  std::string name;              ///< DEVLINK_ATTR_HEALTH_REPORTER_NAME: "fw_fatal"
  bool healthy = true;           ///< STATE: DEVLINK_HEALTH_REPORTER_STATE_HEALTHY (0) / _ERROR (1)
  uint64_t errors = 0;           ///< ERR_COUNT: errors the driver reported
  uint64_t recoveries = 0;       ///< RECOVER_COUNT: recoveries done (automatic or asked for)
  std::optional<bool> autoRecover;        ///< AUTO_RECOVER: only for reporters that can recover
  std::optional<uint64_t> gracePeriodMs;  ///< GRACEFUL_PERIOD: likewise

  /// "pci/0000:08:00.0/fw_fatal", "pci/0000:08:00.0/65535/tx": the devlink handle (as iproute2
  /// writes it) and the reporter; errors are keyed by it.
  std::string key() const;
};

struct DevlinkHealthReport {
  std::vector<DevlinkHealthReporter> reporters;
  /// Reporters whose values lie outside their domain (a state the kernel does not define, a count
  /// that is not an unsigned 64-bit number, a missing required attribute, a duplicate): the key
  /// (as DevlinkHealthReporter::key(), or the handle with "?" when the name is unusable) and why.
  std::vector<std::pair<std::string, Error>> rejected;
};

class DevlinkHealthSource {
 public:
  virtual ~DevlinkHealthSource() = default;
  /// Every reporter of every devlink instance. nullopt: no devlink health on this node (a kernel
  /// without the devlink family or without health reporters, a capture file that is not there):
  /// no data, not an error.
  virtual Result<std::optional<DevlinkHealthReport>> read() = 0;
};

/// The devlink generic-netlink family; its id is resolved at first use (and again after a failure).
std::unique_ptr<DevlinkHealthSource> makeDevlinkHealthNetlinkSource();
/// A file holding `devlink -j -s health show` output, re-read at every call (at most 4 MiB).
std::unique_ptr<DevlinkHealthSource> makeDevlinkHealthFileSource(std::filesystem::path file);

/// Parses `devlink -j [-s] health show` (iproute2 devlink/devlink.c, __cmd_health_show() and
/// pr_out_health()): {"health": {"pci/0000:08:00.0": [{"reporter": "fw", "state": "healthy",
/// "error": 0, "recover": 0, "grace_period": 500, "auto_recover": true, "auto_dump": true}, ...],
/// "pci/0000:08:00.0/65535": [...]}}.
Result<DevlinkHealthReport> parseDevlinkHealthJson(std::string_view text);

namespace devlink {

/// DEVLINK_CMD_HEALTH_REPORTER_GET with NLM_F_REQUEST | NLM_F_DUMP and no attribute: every
/// reporter.
std::vector<uint8_t> buildHealthReporterDumpRequest(uint16_t family, uint32_t seq);

/// What one datagram of the dump's answer held.
struct DumpProgress {
  bool done = false;    ///< NLMSG_DONE seen: the dump is complete
  int kernelErrno = 0;  ///< > 0: the kernel refused (NLMSG_ERROR, or NLMSG_DONE carrying an error)
};
/// Parses one datagram of the answer (messages of type `family`, command
/// DEVLINK_CMD_HEALTH_REPORTER_GET, sequence `expectedSeq`), appending each reporter, or its
/// rejection, to `report`. An error is a datagram that is not the kernel's (a length that overruns
/// it, another sequence number, a short genetlink header).
Result<DumpProgress> parseHealthReporterDump(std::span<const uint8_t> datagram,
                                             uint32_t expectedSeq, uint16_t family,
                                             DevlinkHealthReport& report);

}  // namespace devlink

}  // namespace fabricmon
