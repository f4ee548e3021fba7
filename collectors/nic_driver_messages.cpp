#include "collectors/nic_driver_messages.hpp"

#include <array>

namespace fabricmon {
namespace {

using enum DriverSeverity;
using enum Attribution;

// Severity classes (docs/rules.md, "nic_driver_error"): fatal = the function stopped answering or
// reset itself (firmware fatal, health lost, a command or transmit timeout); recoverable = an error
// the driver handles, worth a warning while it lasts; info = what a healthy probe or reload logs.
// Order matters where anchors overlap (the AER severities). An anchor lists the wordings of older
// and newer kernels separated by '|'; matching is case-sensitive, as the kernel prints.
const DriverMessage kMessages[] = {
    // mlx5_core (drivers/net/ethernet/mellanox/mlx5/core/). mlx5_core_err() prefixes
    // "<func>:<line>:(pid N): ", so the anchors avoid the start of the message.
    {"mlx5_fw_fatal", "mlx5_core", kFatal, "Fatal error ", " detected",
     "the firmware reported a fatal error in its health buffer; the function stops working until reset",
     "mlx5/core/health.c, poll_health()"},
    {"mlx5_health_compromised", "mlx5_core", kFatal, "health compromised", "",
     "the firmware's health counter stopped moving: the firmware hangs",
     "mlx5/core/health.c, poll_health() (\"device's health compromised - reached miss count\")"},
    {"mlx5_internal_error", "mlx5_core", kFatal, "mlx5_error_sw_reset|mlx5_enter_error_state", "): start",
     "the driver put the function into its internal error state (every command fails from now)",
     "mlx5/core/health.c, mlx5_error_sw_reset() (\"start\" of the reset out of the error state; older "
     "kernels logged it in mlx5_enter_error_state())"},
    {"mlx5_health_recovery_failed", "mlx5_core", kFatal, "health recovery flow aborted|health recovery failed", "",
     "recovery after a fatal error gave up (PCI reads still failing): the NIC stays down",
     "mlx5/core/health.c, mlx5_health_try_recover() (\"health recovery flow aborted\"), "
     "mlx5_fw_fatal_reporter_err_work() (\"health recovery failed\")"},
    {"mlx5_error_state_unload", "mlx5_core", kFatal, "Driver is in error state. Unloading", "",
     "a fatal error came within the grace period of the last recovery, so none was tried: the driver unloads "
     "the function, which stays down until it is reloaded",
     "mlx5/core/health.c, mlx5_fw_fatal_reporter_err_work()"},
    {"mlx5_cmd_no_completion", "mlx5_core", kFatal, "No done completion", "",
     "a firmware command got no completion: the firmware no longer answers its command interface",
     "mlx5/core/cmd.c, wait_func_handle_exec_timeout()"},
    {"mlx5_cmd_timeout", "mlx5_core", kFatal, "timeout. Will cause a leak of a command resource", "",
     "a firmware command timed out", "mlx5/core/cmd.c, wait_func()"},
    {"mlx5_tx_timeout", "mlx5_core", kFatal, "TX timeout on queue", "",
     "a send queue made no progress for the transmit timeout; the driver tries to recover it",
     "mlx5/core/en/reporter_tx.c, mlx5e_reporter_tx_timeout()"},
    {"mlx5_health_recovering", "mlx5_core", kRecoverable, "handling bad device here", "",
     "the driver starts recovering the function after a fatal error",
     "mlx5/core/health.c, mlx5_health_try_recover()"},
    {"mlx5_module_error", "mlx5_core", kRecoverable, "Port module event[error]", "",
     "the cable or transceiver reported an error (high temperature, bad cable, unsupported module)",
     "mlx5/core/events.c, port_module_event()"},
    {"mlx5_pcie_power", "mlx5_core", kRecoverable, "Detected insufficient power on the PCIe slot", "",
     "the slot gives the NIC less power than it needs", "mlx5/core/events.c, mlx5_pcie_event()"},
    {"mlx5_probe", "mlx5_core", kInfo, "firmware version: ", "",
     "the function was probed (logged at every driver load or reload)",
     "mlx5/core/main.c, mlx5_function_setup()"},
    {"mlx5_module_event", "mlx5_core", kInfo, "Port module event: module", "",
     "a cable or transceiver was plugged or unplugged", "mlx5/core/events.c, port_module_event()"},
    // mlx5_ib (drivers/infiniband/hw/mlx5/): mlx5_ib_warn()/mlx5_ib_log() print through the ib
    // device, "infiniband <ibdev>: <func>:<line>:(pid N): " ("<ibdev>:<func>:..." in older kernels).
    // "WC error: 12, Message: transport retry counter exceeded" since 6.2; "dump error cqe" before.
    {"mlx5_ib_error_cqe", "mlx5_ib", kRecoverable, "WC error: |dump error cqe", "dump_cqe",
     "a completion with error (a QP went to error: remote access, retry exceeded, ...)",
     "infiniband/hw/mlx5/cq.c, dump_cqe()", kRdmaName},
    // ib_core (drivers/infiniband/core/): dev_warn() on the ib device prints "infiniband <ibdev>: ".
    {"ib_core_cache_setup_failed", "ib_core", kRecoverable, "Couldn't set up InfiniBand P_Key/GID cache", "",
     "registering the RDMA device failed: its port caches could not be read from the NIC",
     "infiniband/core/device.c, ib_register_device()", kRdmaName},
    // bnxt_en (drivers/net/ethernet/broadcom/bnxt/).
    {"bnxt_tx_timeout", "bnxt_en", kFatal, "TX timeout detected, starting reset task", "",
     "a send queue timed out; the driver resets the function", "bnxt/bnxt.c, bnxt_tx_timeout()"},
    // "%s firmware reset event" with "Fatal", "Non-fatal" or "Solicited" (5.12 on); "Firmware %s reset
    // event" with "fatal" or "non-fatal" before.
    {"bnxt_fw_reset_nonfatal", "bnxt_en", kRecoverable, "Non-fatal firmware reset event|Firmware non-fatal reset event",
     "", "the firmware announced a reset it will recover from", "bnxt/bnxt.c, bnxt_async_event_process()"},
    {"bnxt_fw_reset_fatal", "bnxt_en", kFatal, "Fatal firmware reset event|Firmware fatal reset event", "",
     "the firmware hit a fatal error and resets", "bnxt/bnxt.c, bnxt_async_event_process()"},
    {"bnxt_hwrm_timeout", "bnxt_en", kFatal, "Error (timeout: ", "",
     "a firmware (HWRM) command timed out: the firmware does not answer",
     "bnxt/bnxt_hwrm.c, __hwrm_send()"},
    // bnxt_re (drivers/infiniband/hw/bnxt_re/): logs through the PCI function of bnxt_en.
    {"bnxt_re_fw_stall", "bnxt_re", kFatal, "FW STALL Detected", "",
     "the RoCE firmware command queue stalled", "infiniband/hw/bnxt_re/qplib_rcfw.c, bnxt_re_is_fw_stalled()"},
    {"bnxt_re_cmd_timeout", "bnxt_re", kFatal, "cmdq[", "timedout (",
     "a RoCE firmware command timed out", "infiniband/hw/bnxt_re/qplib_rcfw.c, __wait_for_resp()"},
    // ice (drivers/net/ethernet/intel/ice/).
    {"ice_tx_timeout_unrecoverable", "ice", kFatal, "device is in unrecoverable state", "",
     "every transmit timeout recovery level failed: the function is down",
     "intel/ice/ice_main.c, ice_tx_timeout()"},
    {"ice_tx_timeout", "ice", kFatal, "tx_timeout recovery level", "",
     "a send queue timed out; the driver escalates resets", "intel/ice/ice_main.c, ice_tx_timeout()"},
    {"ice_fw_recovery_mode", "ice", kFatal, "Firmware recovery mode detected", "",
     "the firmware is in recovery mode (a failed update or corrupt flash): the port does not pass traffic",
     "intel/ice/ice_main.c, ice_probe_recovery_mode()"},
    {"ice_mdd", "ice", kRecoverable, "Malicious Driver Detection event", "",
     "the NIC caught a malformed descriptor and stopped the queue (driver or VF bug)",
     "intel/ice/ice_main.c, ice_handle_mdd_event()"},
    {"ice_ddp_loaded", "ice", kInfo, "The DDP package was successfully loaded", "",
     "the function was probed and its packet-processing package loaded (every load or reload)",
     "intel/ice/ice_main.c, ice_log_pkg_init()"},
    // ionic (drivers/net/ethernet/pensando/ionic/): the firmware's heartbeat register, read by the
    // driver's watchdog; logged once per stall, at info level.
    {"ionic_fw_heartbeat_stalled", "ionic", kFatal, "FW heartbeat stalled at", "",
     "the firmware's heartbeat stopped moving: the firmware hangs, and the driver resets the function when it "
     "comes back",
     "pensando/ionic/ionic_dev.c, ionic_heartbeat_check()"},
    {"ionic_fw_heartbeat_restored", "ionic", kInfo, "FW heartbeat restored at", "",
     "the firmware's heartbeat moves again after a stall", "pensando/ionic/ionic_dev.c, ionic_heartbeat_check()"},
    // irdma (drivers/infiniband/hw/irdma/).
    {"irdma_cqp_timeout", "irdma", kFatal, "error cqp command", "timed out",
     "a control QP command to the RDMA firmware timed out; the driver requests a reset",
     "infiniband/hw/irdma/utils.c, irdma_wait_event() (i40iw/utils.c, i40iw_wait_event(), before; newer irdma "
     "logs it at debug level only)",
     kRdmaName},
    // efa (drivers/infiniband/hw/efa/).
    {"efa_admin_no_completion", "efa", kFatal, "didn't send any completion for admin cmd", "",
     "the device did not complete an admin command: the device does not answer",
     "infiniband/hw/efa/efa_com.c, efa_com_wait_and_process_admin_cq_interrupts()", kRdmaName},
    {"efa_admin_cmd_failed", "efa", kRecoverable, "Failed to process command", "",
     "an admin command failed", "infiniband/hw/efa/efa_com.c, efa_com_cmd_exec()", kRdmaName},
    // The kernel's own transmit watchdog: "<driver> <pci> <if>: NETDEV WATCHDOG: CPU: 3: transmit
    // queue 5 timed out 5120 ms" (6.7+), "NETDEV WATCHDOG: <if> (<driver>): transmit queue 5 timed
    // out" before.
    {"netdev_watchdog", "kernel", kFatal, "NETDEV WATCHDOG: ", "timed out",
     "a transmit queue stopped for longer than the watchdog timeout; the driver's tx_timeout runs",
     "net/sched/sch_generic.c, dev_watchdog()", kNetdevName},
    // PCIe AER as the erring function's driver logs it ("mlx5_core 0000:3b:00.0: PCIe Bus Error:
    // severity=..."); the counters are the pcie_aer collector's, these name the moment.
    {"pcie_aer_nonfatal", "kernel", kRecoverable, "PCIe Bus Error: severity=", "(Non-Fatal)",
     "an uncorrectable, non-fatal PCIe error: a transaction was lost, the link stays",
     "drivers/pci/pcie/aer.c, aer_print_error()"},
    {"pcie_aer_fatal", "kernel", kFatal, "PCIe Bus Error: severity=", "(Fatal)",
     "an uncorrectable fatal PCIe error: the link is reset, the function may not come back",
     "drivers/pci/pcie/aer.c, aer_print_error()"},
    {"pcie_aer_corrected", "kernel", kInfo, "PCIe Bus Error: severity=Correct", "",
     "a corrected PCIe error (judged by rate in pcie_errors, from the AER counters)",
     "drivers/pci/pcie/aer.c, aer_print_error()"},
    // A task hung or a CPU locked up inside a NIC driver: the header names a task, the call trace
    // after it the module (kernel/hung_task.c, check_hung_task(); kernel/watchdog.c,
    // watchdog_timer_fn()).
    {"hung_task_in_nic_driver", "kernel", kFatal, "INFO: task ", "blocked for more than",
     "a task stayed blocked in a NIC driver for the hung-task timeout: the driver is wedged",
     "kernel/hung_task.c, check_hung_task()", kTrace},
    {"soft_lockup_in_nic_driver", "kernel", kFatal, "BUG: soft lockup - CPU#", "",
     "a CPU spun in a NIC driver without scheduling for the soft-lockup threshold",
     "kernel/watchdog.c, watchdog_timer_fn()", kTrace},
};

const NicModule kModules[] = {
    {"mlx5_core", "mlx5_core"}, {"mlx5_ib", "mlx5_core"}, {"bnxt_en", "bnxt_en"}, {"bnxt_re", "bnxt_en"},
    {"ice", "ice"},             {"irdma", "ice"},         {"efa", "efa"},           {"ionic", "ionic"},
    {"ionic_rdma", "ionic"},
};

bool contains(std::string_view text, std::string_view anchor) {
  if (anchor.empty()) return true;
  for (size_t start = 0;;) {
    const size_t bar = anchor.find('|', start);
    if (text.find(anchor.substr(start, bar - start)) != std::string_view::npos) return true;
    if (bar == std::string_view::npos) return false;
    start = bar + 1;
  }
}

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.';
}

/// "mlx5_0:dump_cqe:..." or "infiniband mlx5_0: ..." -> "mlx5_0".
std::string_view rdmaNameFromPrefix(std::string_view m) {
  constexpr std::string_view kInfiniband = "infiniband ";
  if (m.substr(0, kInfiniband.size()) == kInfiniband) m.remove_prefix(kInfiniband.size());
  size_t i = 0;
  while (i < m.size() && i < 64 && isNameChar(m[i])) ++i;
  if (i == 0 || i >= m.size() || m[i] != ':') return {};
  return m.substr(0, i);
}

/// "NETDEV WATCHDOG: eth0 (mlx5_core): ..." -> "eth0" (the form before Linux 6.7).
std::string_view netdevFromWatchdog(std::string_view m) {
  constexpr std::string_view kHead = "NETDEV WATCHDOG: ";
  const size_t at = m.find(kHead);
  if (at == std::string_view::npos) return {};
  m.remove_prefix(at + kHead.size());
  size_t i = 0;
  while (i < m.size() && i < 16 && m[i] != ' ' && m[i] != ':') ++i;  // IFNAMSIZ
  if (i == 0 || i >= m.size() || m.substr(i, 2) != " (") return {};
  return m.substr(0, i);
}

/// The NIC module a call-trace line names (" mlx5_cmd_exec+0x2f/0x50 [mlx5_core]"), or nullptr.
const NicModule* moduleInTrace(std::string_view m) {
  if (m.empty() || m.back() != ']') return nullptr;
  const size_t open = m.rfind('[');
  if (open == std::string_view::npos) return nullptr;
  std::string_view name = m.substr(open + 1, m.size() - open - 2);
  name = name.substr(0, name.find(' '));  // "[mlx5_core 0123abcd...]" with CONFIG_STACKTRACE_BUILD_ID
  for (const NicModule& mod : kModules) {
    if (mod.module == name) return &mod;
  }
  return nullptr;
}

}  // namespace

std::string_view driverSeverityName(DriverSeverity s) {
  switch (s) {
    case kFatal: return "fatal";
    case kRecoverable: return "recoverable";
    case kInfo: return "info";
  }
  return "info";
}

std::span<const DriverMessage> driverMessages() { return kMessages; }
std::span<const NicModule> nicModules() { return kModules; }

const DriverMessage* findDriverMessage(std::string_view name) {
  for (const DriverMessage& row : kMessages) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

const DriverMessage* matchDriverMessage(std::string_view message) {
  for (const DriverMessage& row : kMessages) {
    if (contains(message, row.anchor) && contains(message, row.anchor2)) return &row;
  }
  return nullptr;
}

std::string_view pciFromPrefix(std::string_view m) {
  // dev_printk(): "<driver> <device name>: "; netdev_printk(): "<driver> <device name> <if>: ".
  const size_t space = m.find(' ');
  if (space == std::string_view::npos || space == 0 || space > 32) return {};
  for (size_t length = kPciAddressMinLength; length <= kPciAddressMaxLength; ++length) {
    if (m.size() <= space + 1 + length) return {};
    const std::string_view addr = m.substr(space + 1, length);
    const char after = m[space + 1 + length];
    if ((after == ':' || after == ' ') && isPciAddress(addr)) return addr;
  }
  return {};
}

std::optional<DriverMatch> DriverLogMatcher::match(const KmsgRecord& record) {
  const std::string_view m = record.message;
  if (pendingTrace_ != nullptr) {
    if (const NicModule* mod = moduleInTrace(m)) {
      DriverMatch out;
      out.row = pendingTrace_;
      out.driver = mod->module;
      pendingTrace_ = nullptr;
      return out;
    }
    if (--traceLeft_ == 0) pendingTrace_ = nullptr;
  }
  const DriverMessage* row = matchDriverMessage(m);
  if (row == nullptr) return std::nullopt;
  if (row->attribution == kTrace) {
    pendingTrace_ = row;  // completed by a trace line that names a NIC module
    traceLeft_ = kTraceWindow;
    return std::nullopt;
  }
  DriverMatch out;
  out.row = row;
  out.driver = row->driver;
  std::string_view pci = record.pciDevice();
  if (pci.empty()) pci = pciFromPrefix(m);
  out.pci.assign(pci);
  if (pci.empty() && row->attribution == kRdmaName) out.rdmaDevice.assign(rdmaNameFromPrefix(m));
  if (pci.empty() && row->attribution == kNetdevName) out.netdev.assign(netdevFromWatchdog(m));
  return out;
}

}  // namespace fabricmon
