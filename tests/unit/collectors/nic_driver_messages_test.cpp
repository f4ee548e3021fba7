// The driver message table (collectors/nic_driver_messages.cpp): every row matches a line in the
// form its driver prints it (format string from the cited source, dev_printk()/netdev_printk()
// prefix as the kernel adds it), and names the function the record is about.
#include "collectors/nic_driver_messages.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <set>

#include <gtest/gtest.h>

namespace fabricmon {
namespace {

struct Line {
  std::string text;
  std::string pci, rdma, netdev;  ///< the attribution expected
};

// One real line per row: the driver's format string filled in, with the prefix the kernel adds.
const std::map<std::string, Line> kLines = {
    {"mlx5_fw_fatal", {"mlx5_core 0000:3b:00.0: poll_health:800:(pid 0): Fatal error 1 detected", "0000:3b:00.0"}},
    {"mlx5_health_compromised",
     {"mlx5_core 0000:3b:00.0: poll_health:789:(pid 0): device's health compromised - reached miss count",
      "0000:3b:00.0"}},
    {"mlx5_internal_error", {"mlx5_core 0000:3b:00.0: mlx5_error_sw_reset:231:(pid 87): start", "0000:3b:00.0"}},
    {"mlx5_health_recovery_failed",
     {"mlx5_core 0000:3b:00.0: mlx5_health_try_recover:343:(pid 87): health recovery flow aborted, PCI reads "
      "still not working",
      "0000:3b:00.0"}},
    {"mlx5_error_state_unload",
     {"mlx5_core 0000:3b:00.0: mlx5_fw_fatal_reporter_err_work:704:(pid 87): Driver is in error state. Unloading",
      "0000:3b:00.0"}},
    {"mlx5_cmd_no_completion",
     {"mlx5_core 0000:63:00.0: cmd_work_handler:877:(pid 1): cmd[0]: CREATE_MKEY(0x200) No done completion",
      "0000:63:00.0"}},
    {"mlx5_cmd_timeout",
     {"mlx5_core 0000:63:00.0: wait_func:1124:(pid 3310): ACCESS_REG(0x805) timeout. Will cause a leak of a "
      "command resource",
      "0000:63:00.0"}},
    {"mlx5_tx_timeout",
     {"mlx5_core 0000:3b:00.0 ens1f0np0: TX timeout on queue: 3, SQ: 0x1c3, CQ: 0x4a8, SQ Cons: 0x0 SQ Prod: "
      "0x3, usecs since last trans: 18432000",
      "0000:3b:00.0"}},
    {"mlx5_health_recovering",
     {"mlx5_core 0000:3b:00.0: mlx5_health_try_recover:327:(pid 87): handling bad device here", "0000:3b:00.0"}},
    {"mlx5_module_error",
     {"mlx5_core 0000:3b:00.0: Port module event[error]: module 0, Cable error, High Temperature",
      "0000:3b:00.0"}},
    {"mlx5_pcie_power",
     {"mlx5_core 0000:3b:00.0: mlx5_pcie_event:301:(pid 0): Detected insufficient power on the PCIe slot (27W).",
      "0000:3b:00.0"}},
    {"mlx5_probe", {"mlx5_core 0000:3b:00.0: firmware version: 28.39.1002", "0000:3b:00.0"}},
    {"mlx5_module_event", {"mlx5_core 0000:3b:00.0: Port module event: module 0, Cable plugged", "0000:3b:00.0"}},
    {"mlx5_ib_error_cqe",
     {"infiniband mlx5_0: dump_cqe:279:(pid 0): WC error: 12, Message: transport retry counter exceeded", "",
      "mlx5_0"}},
    {"ib_core_cache_setup_failed",
     {"infiniband mlx5_2: Couldn't set up InfiniBand P_Key/GID cache", "", "mlx5_2"}},
    {"bnxt_tx_timeout",
     {"bnxt_en 0000:41:00.0 enp65s0f0np0: TX timeout detected, starting reset task!", "0000:41:00.0"}},
    {"bnxt_fw_reset_nonfatal",
     {"bnxt_en 0000:41:00.0 enp65s0f0np0: Non-fatal firmware reset event, data1: 0x200, data2: 0x80000001, min "
      "wait 0 ms, max wait 4000 ms",
      "0000:41:00.0"}},
    {"bnxt_fw_reset_fatal",
     {"bnxt_en 0000:41:00.0 enp65s0f0np0: Fatal firmware reset event, data1: 0x20200, data2: 0x0, min wait "
      "1000 ms, max wait 4000 ms",
      "0000:41:00.0"}},
    {"bnxt_hwrm_timeout",
     {"bnxt_en 0000:41:00.0 enp65s0f0np0: Error (timeout: 500015) msg {0x23 0x3e8} len:0", "0000:41:00.0"}},
    {"bnxt_re_fw_stall",
     {"bnxt_en 0000:41:00.0: QPLIB: bnxt_re_is_fw_stalled: FW STALL Detected. cmdq[0x4b]=0x15 waited (20000 > "
      "20000) msec active 1",
      "0000:41:00.0"}},
    {"bnxt_re_cmd_timeout", {"bnxt_en 0000:41:00.0: QPLIB: cmdq[0x4b]=0x15 timedout (20000)msec", "0000:41:00.0"}},
    {"ice_tx_timeout_unrecoverable",
     {"ice 0000:17:00.0 ens801f0: tx_timeout recovery unsuccessful, device is in unrecoverable state.",
      "0000:17:00.0"}},
    {"ice_tx_timeout", {"ice 0000:17:00.0 ens801f0: tx_timeout recovery level 1, txqueue 12", "0000:17:00.0"}},
    {"ice_fw_recovery_mode",
     {"ice 0000:17:00.0: Firmware recovery mode detected. Limiting functionality.", "0000:17:00.0"}},
    {"ice_mdd",
     {"ice 0000:17:00.0: Malicious Driver Detection event 2 on TX queue 94 PF# 0 VF# 3", "0000:17:00.0"}},
    {"ice_ddp_loaded",
     {"ice 0000:17:00.0: The DDP package was successfully loaded: ICE OS Default Package version 1.3.30.0",
      "0000:17:00.0"}},
    {"ionic_fw_heartbeat_stalled", {"ionic 0000:24:00.0: FW heartbeat stalled at 2952797608", "0000:24:00.0"}},
    {"ionic_fw_heartbeat_restored", {"ionic 0000:24:00.0: FW heartbeat restored at 2952797650", "0000:24:00.0"}},
    {"irdma_cqp_timeout",
     {"irdma 0000:17:00.0 irdma0: error cqp command 0x3 timed out", "0000:17:00.0"}},
    {"efa_admin_no_completion",
     {"efa 0000:00:06.0 efa_0: The device didn't send any completion for admin cmd 17(1) status 2 (id: 5, sq "
      "producer: 6, sq consumer: 5, cq consumer: 5)",
      "0000:00:06.0"}},
    {"efa_admin_cmd_failed",
     {"efa 0000:00:06.0 efa_0: Failed to process command CREATE_QP (opcode 1) comp_status 7 err -22",
      "0000:00:06.0"}},
    {"netdev_watchdog",
     {"mlx5_core 0000:3b:00.0 ens1f0np0: NETDEV WATCHDOG: CPU: 12: transmit queue 3 timed out 5120 ms",
      "0000:3b:00.0"}},
    {"pcie_aer_nonfatal",
     {"mlx5_core 0000:3b:00.0: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer, "
      "(Requester ID)",
      "0000:3b:00.0"}},
    {"pcie_aer_fatal",
     {"mlx5_core 0000:3b:00.0: PCIe Bus Error: severity=Uncorrectable (Fatal), type=Inaccessible, (Unregistered "
      "Agent ID)",
      "0000:3b:00.0"}},
    {"pcie_aer_corrected",
     {"mlx5_core 0000:3b:00.0: PCIe Bus Error: severity=Correctable, type=Physical Layer, (Receiver ID)",
      "0000:3b:00.0"}},
};

KmsgRecord record(const std::string& message) {
  KmsgRecord r;
  r.message = message;
  return r;
}

TEST(DriverMessages, EveryRowMatchesItsRealLineAndNamesItsFunction) {
  DriverLogMatcher matcher;
  for (const DriverMessage& row : driverMessages()) {
    if (row.attribution == Attribution::kTrace) continue;  // two records: HungTaskAndSoftLockup
    const auto it = kLines.find(std::string(row.name));
    ASSERT_NE(it, kLines.end()) << "no real line for row " << row.name;
    const auto m = matcher.match(record(it->second.text));
    ASSERT_TRUE(m) << row.name;
    EXPECT_EQ(m->row->name, row.name) << it->second.text;
    EXPECT_EQ(m->pci, it->second.pci) << row.name;
    EXPECT_EQ(m->rdmaDevice, it->second.rdma) << row.name;
  }
}

TEST(DriverMessages, RowsAreWellFormed) {
  std::set<std::string_view> names;
  for (const DriverMessage& row : driverMessages()) {
    EXPECT_TRUE(names.insert(row.name).second) << "duplicate " << row.name;
    EXPECT_FALSE(row.anchor.empty()) << row.name;
    EXPECT_FALSE(row.meaning.empty()) << row.name;
    EXPECT_FALSE(row.source.empty()) << row.name;
    for (char c : row.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << row.name;
    EXPECT_EQ(findDriverMessage(row.name), &row);
  }
  for (const auto& [name, line] : kLines) EXPECT_NE(findDriverMessage(name), nullptr) << name;
}

// The same event as other kernels word it.
TEST(DriverMessages, OlderKernelsWordingsMatchTheirRow) {
  const std::pair<const char*, const char*> lines[] = {
      {"bnxt_en 0000:41:00.0 enp65s0f0np0: Firmware non-fatal reset event, data1: 0x200, data2: 0x0, min wait 0 "
       "ms, max wait 4000 ms",
       "bnxt_fw_reset_nonfatal"},
      {"bnxt_en 0000:41:00.0 enp65s0f0np0: Firmware fatal reset event, data1: 0x20200, data2: 0x0, min wait 1000 "
       "ms, max wait 4000 ms",
       "bnxt_fw_reset_fatal"},
      {"mlx5_0:dump_cqe:272:(pid 0): dump error cqe", "mlx5_ib_error_cqe"},
      {"mlx5_core 0000:3b:00.0: mlx5_fw_fatal_reporter_err_work:692:(pid 87): health recovery failed",
       "mlx5_health_recovery_failed"},
      {"mlx5_core 0000:3b:00.0: mlx5_enter_error_state:296:(pid 0): start", "mlx5_internal_error"},
  };
  for (const auto& [line, name] : lines) {
    const DriverMessage* row = matchDriverMessage(line);
    ASSERT_NE(row, nullptr) << line;
    EXPECT_EQ(row->name, name) << line;
  }
  // A solicited reset (devlink reload, a firmware update) is neither; a "WC error" of another
  // driver's function is not mlx5's.
  EXPECT_EQ(matchDriverMessage("bnxt_en 0000:41:00.0 x: Solicited firmware reset event, data1: 0x1"), nullptr);
  EXPECT_EQ(matchDriverMessage("rxe0: WC error: 12, Message: transport retry counter exceeded"), nullptr);
  EXPECT_EQ(matchDriverMessage("mlx5_core 0000:3b:00.0: mlx5_error_sw_reset:270:(pid 87): end"), nullptr);
}

TEST(DriverMessages, OrderKeepsOverlappingAnchorsApart) {
  EXPECT_EQ(matchDriverMessage("bnxt_en 0000:41:00.0 x: Non-fatal firmware reset event, data1: 0x1")->name,
            "bnxt_fw_reset_nonfatal");
  EXPECT_EQ(matchDriverMessage("x 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=x")->name,
            "pcie_aer_nonfatal");
  // The AER line of older kernels ("Uncorrected") is matched too.
  EXPECT_EQ(matchDriverMessage("x 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=x")->name,
            "pcie_aer_fatal");
  EXPECT_EQ(matchDriverMessage("x 0000:3b:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer")->name,
            "pcie_aer_corrected");
}

TEST(DriverMessages, IgnoresUnrelatedLines) {
  for (const char* line : {"", "mlx5_core 0000:3b:00.0: E-Switch: Total vports 2, per vport: max uc(128)",
                           "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode",
                           "usb 1-1: new high-speed USB device number 2 using xhci_hcd"}) {
    EXPECT_EQ(matchDriverMessage(line), nullptr) << line;
  }
}

TEST(DriverMessages, OldNetdevWatchdogNamesTheInterface) {
  // Before Linux 6.7 dev_watchdog() printed with WARN_ONCE and no device prefix.
  DriverLogMatcher matcher;
  const auto m = matcher.match(record("NETDEV WATCHDOG: ens1f0np0 (mlx5_core): transmit queue 3 timed out"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->row->name, "netdev_watchdog");
  EXPECT_EQ(m->pci, "");
  EXPECT_EQ(m->netdev, "ens1f0np0");
}

TEST(DriverMessages, DictionaryBeatsThePrefix) {
  DriverLogMatcher matcher;
  KmsgRecord r = record("infiniband mlx5_0: Couldn't set up InfiniBand P_Key/GID cache");
  r.device = "+pci:0000:3b:00.0";
  const auto m = matcher.match(r);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->pci, "0000:3b:00.0");
}

TEST(DriverMessages, HungTaskAndSoftLockupNameTheModuleInTheirTrace) {
  DriverLogMatcher matcher;
  // kernel/hung_task.c, check_hung_task(): the header, then the task's stack.
  EXPECT_FALSE(matcher.match(record("INFO: task kworker/u258:1:1234 blocked for more than 122 seconds.")));
  EXPECT_FALSE(matcher.match(record("      Tainted: G           OE     5.15.0-91-generic #101-Ubuntu")));
  EXPECT_FALSE(matcher.match(record(" __schedule+0x24e/0x590")));
  const auto m = matcher.match(record(" mlx5_cmd_exec+0x2f/0x50 [mlx5_core]"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->row->name, "hung_task_in_nic_driver");
  EXPECT_EQ(m->driver, "mlx5_core");
  EXPECT_FALSE(matcher.match(record(" mlx5_load_one+0x10/0x20 [mlx5_core]"))) << "one match per report";

  // kernel/watchdog.c: a soft lockup in bnxt_en.
  EXPECT_FALSE(matcher.match(record("watchdog: BUG: soft lockup - CPU#7 stuck for 22s! [kworker/7:2:4321]")));
  const auto s = matcher.match(record(" bnxt_poll+0x9e/0x1a0 [bnxt_en]"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->row->name, "soft_lockup_in_nic_driver");
  EXPECT_EQ(s->driver, "bnxt_en");
}

TEST(DriverMessages, ATraceThatNamesNoNicModuleMatchesNothing) {
  DriverLogMatcher matcher;
  EXPECT_FALSE(matcher.match(record("INFO: task jbd2/nvme0n1:456 blocked for more than 120 seconds.")));
  for (unsigned i = 0; i < DriverLogMatcher::kTraceWindow; ++i) {
    EXPECT_FALSE(matcher.match(record(" jbd2_journal_commit_transaction+0x1/0x2 [jbd2]")));
  }
  EXPECT_FALSE(matcher.match(record(" mlx5_cmd_exec+0x2f/0x50 [mlx5_core]"))) << "outside the trace window";
}

TEST(DriverMessages, PciPrefixForms) {
  EXPECT_EQ(pciFromPrefix("mlx5_core 0000:3b:00.0: x"), "0000:3b:00.0");
  EXPECT_EQ(pciFromPrefix("mlx5_core 0000:3b:00.0 ens1f0np0: x"), "0000:3b:00.0");
  EXPECT_EQ(pciFromPrefix("mlx5_core 0000:3b:00.0"), "");
  EXPECT_EQ(pciFromPrefix("mlx5_core 0000:3b:00.0x"), "");
  EXPECT_EQ(pciFromPrefix("0000:3b:00.0: x"), "");
  EXPECT_EQ(pciFromPrefix(""), "");
  // A NIC behind a VMD controller: a 5-digit domain.
  EXPECT_EQ(pciFromPrefix("mlx5_core 10000:e1:00.0: x"), "10000:e1:00.0");
  EXPECT_EQ(pciFromPrefix("ice 10000:e1:00.1 ens2f1: x"), "10000:e1:00.1");
  EXPECT_EQ(pciFromPrefix("mlx5_core 10000:e1:00.0"), "");
  EXPECT_EQ(pciFromPrefix("mlx5_core 100000000:e1:00.0: x"), "");
}

}  // namespace
}  // namespace fabricmon

namespace fabricmon {
namespace {

TEST(DriverMessages, DocsListEveryRow) {
  std::ifstream in(FABRICMON_SOURCE_DIR "/docs/metrics.md");
  std::stringstream text;
  text << in.rdbuf();
  std::set<std::string> documented;
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) {
    // Rows of "The driver message table": | `pattern` | driver | class | ...
    if (line.rfind("| `", 0) != 0) continue;
    const size_t end = line.find('`', 3);
    const std::string name = line.substr(3, end - 3);
    if (name.rfind("fabricmon_", 0) == 0) continue;
    documented.insert(name);
    if (const DriverMessage* row = findDriverMessage(name)) {
      EXPECT_NE(line.find(std::string("| ") + std::string(driverSeverityName(row->severity)) + " |"), std::string::npos)
          << name << ": docs/metrics.md gives another class";
    }
  }
  for (const DriverMessage& row : driverMessages()) {
    EXPECT_TRUE(documented.count(std::string(row.name))) << row.name << " is not in docs/metrics.md";
  }
}

}  // namespace
}  // namespace fabricmon
