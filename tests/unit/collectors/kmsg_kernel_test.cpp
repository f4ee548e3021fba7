// The kernel log source against this machine's real /dev/kmsg (root only; skipped otherwise).
// Records are written in the drivers' formats, tagged with a token of this run so that no other
// test (or a later run) mistakes them; what is written is bounded. Root's records carry the user
// facility (kernel/printk/printk.c, devkmsg_write()), so the tests that expect a finding turn on
// sources.kmsg_accept_user_records, and one test shows production (the key off) refuses them.
// The NIC is a simulated sysfs tree (sim/) whose function has the PCI address the records name.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>

#include <gtest/gtest.h>

#include "collectors/error_tracker.hpp"
#include "collectors/nic_driver_log_collector.hpp"
#include "collectors/registry.hpp"
#include "collectors/topology_discovery.hpp"
#include "model/families/nic.hpp"
#include "sim/simulator.hpp"
#include "tests/support/temp_dir.hpp"
#include "watchdog/watchdog.hpp"

namespace fabricmon {
namespace {

/// Writes one record. A fresh descriptor per record: /dev/kmsg rate-limits writers per open file
/// (10 records per 5 s unless kernel.printk_devkmsg = on), dropping the rest silently. The newline
/// ends the record: without it the kernel keeps it open for a continuation and readers do not see
/// it yet (kernel/printk/printk_ringbuffer.c, finalized records only), as with every driver's line.
bool writeKmsg(std::string text) {
  text += '\n';
  const int fd = ::open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

std::string runToken() {
  std::random_device rd;
  return "fmtest-" + std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000);
}

class KmsgKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "writing and reading /dev/kmsg needs root";
    if (::access("/dev/kmsg", R_OK | W_OK) != 0) GTEST_SKIP() << "no /dev/kmsg on this machine";
    sim::SimOptions options;
    options.root = dir_.path();
    options.rocePorts = 1;
    options.infinibandPort = false;
    sim_ = std::make_unique<sim::Simulator>(options);
    ASSERT_TRUE(sim_->init());
    port_ = sim_->ports().at(0);
    TopologyDiscovery discovery(std::make_shared<const SysfsRoot>(sim_->sysfsRoot().string()), {}, {});
    auto topo = discovery.scan();
    ASSERT_TRUE(topo);
    topology_ = **topo;
    ASSERT_FALSE(topology_.devices.empty());
    ASSERT_EQ(topology_.devices[0].pciAddress, port_.pciAddress);
  }

  void makeCollector(bool acceptUser) {
    config_.sources.kmsgAcceptUserRecords = acceptUser;
    Sources sources;
    sources.nicDriverLog = makeNicDriverLogState(config_.sources, nullptr);
    collector_ = fabricmon::makeCollector("nic_driver_log", sources, config_);
  }

  /// One collector run, published and judged.
  BatchPtr poll() {
    now_ += std::chrono::seconds(1);
    auto batch = std::make_shared<Batch>();
    batch->collector = "nic_driver_log";
    batch->monotonic = now_;
    batch->wall = std::chrono::system_clock::now();
    CollectOutput out(*batch, errors_);
    status_ = collector_->collect(topology_, out);
    out.finish();
    snapshot_.batches["nic_driver_log"] = batch;
    ++snapshot_.generation;
    watchdog_.evaluate(snapshot_, now_, batch->wall);
    return batch;
  }

  static double value(const BatchPtr& b, const FamilyDef& fam) {
    double sum = -1;
    for (const Sample& s : b->samples) {
      if (s.series->family == &fam) sum = (sum < 0 ? 0 : sum) + s.value;
    }
    return sum;
  }

  std::string fatalLine(const std::string& token) const {
    // mlx5/core/health.c, poll_health(), with mlx5_core_err()'s prefix; priority 3 = KERN_ERR.
    return "<3>mlx5_core " + port_.pciAddress + ": poll_health:800:(pid 0): Fatal error 1 detected " + token;
  }

  testing::TempDir dir_{"fabricmon-kmsg"};
  std::unique_ptr<sim::Simulator> sim_;
  sim::SimPort port_;
  Topology topology_;
  Config config_;
  std::unique_ptr<Collector> collector_;
  ErrorTracker errors_{"nic_driver_log"};
  Watchdog watchdog_{WatchdogConfig{}, QosConfig{}};
  Snapshot snapshot_;
  CollectStatus status_{};
  std::chrono::steady_clock::time_point now_{std::chrono::seconds(100000)};
};

TEST_F(KmsgKernelTest, AFatalRecordIsACriticalFindingOnItsPortWithinOnePoll) {
  makeCollector(true);
  poll();  // opens /dev/kmsg: its backlog holds nothing about this simulated NIC
  EXPECT_EQ(status_, CollectStatus::kOk);
  EXPECT_TRUE(watchdog_.activeFindings().empty());
  const std::string token = runToken();
  ASSERT_TRUE(writeKmsg(fatalLine(token)));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords), 1);
  const auto findings = watchdog_.activeFindings();
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.rule, "nic_driver_error");
  EXPECT_EQ(f.severity, Severity::kCritical);
  const auto label = [&](std::string_view n) {
    for (const auto& [k, v] : f.labels) {
      if (k == n) return v;
    }
    return std::string{};
  };
  EXPECT_EQ(label("device"), port_.device);
  EXPECT_EQ(label("port"), std::to_string(port_.port));
  EXPECT_EQ(label("interface"), port_.interface);
  EXPECT_EQ(label("reason"), "mlx5_fw_fatal");
  EXPECT_NE(f.summary.find(token), std::string::npos) << f.summary;
  EXPECT_NE(f.summary.find(port_.pciAddress), std::string::npos) << f.summary;
}

TEST_F(KmsgKernelTest, ProductionRefusesRecordsWrittenFromUserSpace) {
  makeCollector(false);  // the default
  poll();
  const std::string token = runToken();
  ASSERT_TRUE(writeKmsg(fatalLine(token)));
  ASSERT_TRUE(writeKmsg("<4>bnxt_en " + port_.pciAddress + " " + port_.interface +
                        ": TX timeout detected, starting reset task! " + token));
  const BatchPtr b = poll();
  EXPECT_TRUE(watchdog_.activeFindings().empty()) << "a user-written record reached a finding";
  EXPECT_EQ(value(b, families::nic::kDriverRecords), -1);
  EXPECT_GE(value(b, families::nic::kKernelLogRefused), 2);
}

/// Makes the kernel itself log a record holding `token` (facility 0, which user space cannot write):
/// a tmpfs mount with an option it does not know, which fails ("tmpfs: Unknown parameter '...'",
/// fs/fs_parser.c). Needs root; false when the mount did not fail as expected.
bool kernelRecord(const std::string& token) {
  testing::TempDir where{"fabricmon-kmsg-mnt"};
  const std::string option = "fabricmon_" + token;
  if (::mount("none", where.path().c_str(), "tmpfs", 0, option.c_str()) == 0) {
    ::umount(where.path().c_str());
    return false;
  }
  return errno == EINVAL;
}

/// Whether a record holding `text` is in the ring now, read through a descriptor of its own.
bool inTheRing(const std::string& text) {
  const int fd = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  std::string buf(kKmsgReadBuffer, '\0');
  bool found = false;
  for (int i = 0; i < (1 << 20) && !found; ++i) {
    const ssize_t got = ::read(fd, buf.data(), buf.size());
    if (got < 0 && errno == EPIPE) continue;
    if (got <= 0) break;
    found = std::string_view(buf.data(), static_cast<size_t>(got)).find(text) != std::string_view::npos;
  }
  ::close(fd);
  return found;
}

// At the open the ring is read to its end: the kernel's records of the last hour are the backlog,
// handed out first and marked; what user space wrote before the open (an earlier test's records) is
// passed over; what arrives after the open is read at the next poll, unmarked. Through the
// collector, a user-written fatal record from before the first poll is no finding where user
// records are accepted, one written after it is.
TEST_F(KmsgKernelTest, TheKernelsRecordsFromBeforeTheOpenAreTheBacklog) {
  std::string token = runToken();
  for (char& c : token) c = c == '-' ? '_' : c;
  ASSERT_TRUE(writeKmsg("<6>fabricmon backlog test before " + token));
  if (!kernelRecord(token) || !inTheRing("fabricmon_" + token)) {
    GTEST_SKIP() << "the kernel did not log the refused tmpfs option here";
  }
  auto source = makeKmsgSource();
  KernelLogRead read;
  ASSERT_TRUE(source->read(read, 4096));
  int kernel = -1;
  bool userBefore = false;
  for (const KmsgRecord& r : read.records) {
    if (r.message.find("fabricmon_" + token) != std::string::npos) kernel = r.backlog && r.facility == 0 ? 1 : 0;
    if (r.message.find("before " + token) != std::string::npos) userBefore = true;
  }
  EXPECT_EQ(kernel, 1) << "the kernel's record from before the open: read first, as backlog";
  EXPECT_FALSE(userBefore) << "a user record from before the open was handed out";
  ASSERT_TRUE(writeKmsg("<6>fabricmon backlog test after " + token));
  read = {};
  ASSERT_TRUE(source->read(read, 4096));
  int after = -1;
  for (const KmsgRecord& r : read.records) {
    if (r.message.find("after " + token) != std::string::npos) after = r.backlog ? 1 : 0;
  }
  EXPECT_EQ(after, 0) << "the record written after the open: read at the next poll, not backlog";

  makeCollector(true);
  ASSERT_TRUE(writeKmsg(fatalLine(token + "-before")));
  poll();
  EXPECT_TRUE(watchdog_.activeFindings().empty()) << "a user record from before the open was judged";
  ASSERT_TRUE(writeKmsg(fatalLine(token + "-after")));
  poll();
  ASSERT_EQ(watchdog_.activeFindings().size(), 1u);
  EXPECT_NE(watchdog_.activeFindings()[0].summary.find(token + "-after"), std::string::npos);
}

TEST_F(KmsgKernelTest, AnOverrunIsCountedAndReadingGoesOn) {
  auto source = makeKmsgSource();
  KernelLogRead read;
  ASSERT_TRUE(source->read(read, 4096));  // opened: the backlog, then at the end
  const std::string token = runToken();
  ASSERT_TRUE(writeKmsg("<6>fabricmon overrun test start " + token));
  read = {};
  ASSERT_TRUE(source->read(read, 1000));
  ASSERT_FALSE(read.records.empty()) << "the record just written was not read";

  // A second reader at the same place tells when the ring has overwritten it. The reader under test
  // reads nothing meanwhile. Bounded: at most 64k records of ~900 bytes (larger than any ring this
  // kind of machine has; the loop stops as soon as the probe sees EPIPE).
  const int probe = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(probe, 0);
  ASSERT_GE(::lseek(probe, 0, SEEK_END), 0);
  const std::string filler = "<6>fabricmon overrun filler " + token + " " + std::string(850, 'x');
  std::string buf(kKmsgReadBuffer, '\0');
  bool overran = false;
  for (int batch = 0; batch < 256 && !overran; ++batch) {
    for (int i = 0; i < 256; ++i) ASSERT_TRUE(writeKmsg(filler));
    const ssize_t got = ::read(probe, buf.data(), buf.size());
    overran = got < 0 && errno == EPIPE;
  }
  ::close(probe);
  ASSERT_TRUE(overran) << "the ring did not overrun within the bound";

  uint64_t lost = 0;
  for (int i = 0; i < 100; ++i) {  // read up to the end
    read = {};
    ASSERT_TRUE(source->read(read, 4096));
    lost += read.lost;
    if (read.records.empty()) break;
  }
  EXPECT_GT(lost, 0u);
  ASSERT_TRUE(writeKmsg("<6>fabricmon overrun test end " + token));
  read = {};
  ASSERT_TRUE(source->read(read, 4096));
  ASSERT_FALSE(read.records.empty());
  EXPECT_NE(read.records.back().message.find("end " + token), std::string::npos);
  EXPECT_EQ(read.lost, 0u);
}

TEST_F(KmsgKernelTest, WithoutThePrivilegeTheSourceSaysNoAccessOnce) {
  // Dropping CAP_SYSLOG in a child keeps this process' privileges; the child reports by exit code.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Become an unprivileged user: with kernel.dmesg_restrict = 1 the open is refused.
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
    auto source = makeKmsgSource();
    KernelLogRead read;
    const Status first = source->read(read, 10);
    if (first.ok()) ::_exit(20);  // dmesg_restrict off: nothing to show here
    if (!read.accessDenied) ::_exit(11);
    read = {};
    const Status second = source->read(read, 10);
    if (second.ok() || read.accessDenied) ::_exit(12);  // told once, not again
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 20) GTEST_SKIP() << "kernel.dmesg_restrict is 0: anyone may read the log";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace fabricmon
