// nic_driver_error end to end below the daemon: kernel log records from a scripted source go
// through the real nic_driver_log collector (matching, attribution, tallies, notes) into batches
// the real watchdog judges. Time is the batches' timestamps: no sleeps.
#include <time.h>

#include <deque>

#include <gtest/gtest.h>

#include "daemon/batch_pruning.hpp"
#include "collectors/error_tracker.hpp"
#include "collectors/nic_driver_log_collector.hpp"
#include "collectors/registry.hpp"
#include "config/config.hpp"
#include "model/families/nic.hpp"
#include "model/store.hpp"
#include "watchdog/rules/nic_driver_error.hpp"
#include "watchdog/watchdog.hpp"

namespace fabricmon {
namespace {

class ScriptedLog final : public KernelLogSource {
 public:
  std::deque<KmsgRecord> pending;
  uint64_t lost = 0;
  int failErrno = 0;  ///< the next reads fail with this errno (0 = succeed)
  bool firstDenial = false;

  Status read(KernelLogRead& out, size_t max) override {
    if (failErrno != 0) {
      out.accessDenied = firstDenial;
      firstDenial = false;
      return Error{"open /dev/kmsg", failErrno};
    }
    out.lost += lost;
    lost = 0;
    while (!pending.empty() && max-- > 0) {
      out.records.push_back(pending.front());
      pending.pop_front();
    }
    return {};
  }
  const std::string& origin() const override { return origin_; }

 private:
  std::string origin_ = "kmsg:/dev/kmsg";
};

KmsgRecord rec(std::string message, unsigned facility = 0, std::string device = "+pci:0000:3b:00.0") {
  KmsgRecord r;
  r.facility = facility;
  r.level = 3;
  r.message = std::move(message);
  r.device = std::move(device);
  return r;
}

const std::string kFatal = "mlx5_core 0000:3b:00.0: poll_health:800:(pid 0): Fatal error 1 detected";

/// `r` as the ring held it when the log was opened, logged `minutesAgo` by the kernel's clock.
KmsgRecord backlog(KmsgRecord r, int minutesAgo) {
  timespec mono{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  r.timestampUsec = uint64_t(mono.tv_sec - minutesAgo * 60) * 1000000;
  r.backlog = true;
  return r;
}

class NicDriverErrorTest : public ::testing::Test {
 protected:
  NicDriverErrorTest() {
    auto log = std::make_unique<ScriptedLog>();
    log_ = log.get();
    state_ = makeNicDriverLogState(std::move(log));
    topology_.devices = {RdmaDevice{"mlx5_0", "0000:3b:00.0", 1, {RdmaPort{1, "Ethernet", {"ens1f0np0"}}}}};
    topology_.netdevs = {Netdev{"ens1f0np0", "0000:3b:00.0", "mlx5_0", 1, "mlx5_core"}};
    topology_.generation = 1;
    remake();
  }

  void remake() {
    Sources sources;
    sources.nicDriverLog = state_;
    collector_ = makeCollector("nic_driver_log", sources, config_);
  }

  /// One collector run `seconds` after the previous one, published and judged.
  BatchPtr poll(double seconds = 1) {
    now_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
    wall_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(seconds));
    auto batch = std::make_shared<Batch>();
    batch->collector = "nic_driver_log";
    batch->monotonic = now_;
    batch->wall = wall_;
    CollectOutput out(*batch, errors_);
    status_ = collector_->collect(topology_, out);
    out.finish();
    snapshot_.batches["nic_driver_log"] = batch;
    ++snapshot_.generation;
    watchdog_.evaluate(snapshot_, now_, wall_);
    return batch;
  }

  double value(const BatchPtr& b, const FamilyDef& fam, std::string_view pattern = {}) const {
    for (const Sample& s : b->samples) {
      if (s.series->family == &fam && (pattern.empty() || s.series->label("pattern") == pattern)) return s.value;
    }
    return -1;
  }

  std::vector<Finding> findings() const { return watchdog_.activeFindings(); }

  /// A pipeline pass between a discovery and the collector's next run: the watchdog judges the
  /// collector's previous batch without what vanished since (daemon/pipeline.cpp, withoutVanished).
  void passAfterDiscovery() {
    now_ += std::chrono::milliseconds(300);
    auto& batch = snapshot_.batches["nic_driver_log"];
    batch = withoutVanished(batch, topology_);
    ++snapshot_.generation;
    watchdog_.evaluate(snapshot_, now_, wall_);
  }
  /// Discovery sees the RDMA device gone and its interface still there (with no RDMA device behind
  /// it), and the pipeline passes before the collector's next run.
  void rdmaDeviceLeavesInterfaceStays() {
    topology_.devices.clear();
    topology_.netdevs[0].rdmaDevice.clear();
    topology_.netdevs[0].rdmaPort = 0;
    ++topology_.generation;
    passAfterDiscovery();
  }

  static std::string label(const Finding& f, std::string_view name) {
    for (const auto& [k, v] : f.labels) {
      if (k == name) return v;
    }
    return {};
  }

  ScriptedLog* log_;
  std::shared_ptr<NicDriverLogState> state_;
  Config config_;
  Topology topology_;
  std::unique_ptr<Collector> collector_;
  ErrorTracker errors_{"nic_driver_log"};
  Watchdog watchdog_{WatchdogConfig{}, QosConfig{}};
  Snapshot snapshot_;
  CollectStatus status_{};
  std::chrono::steady_clock::time_point now_{std::chrono::seconds(100000)};
  std::chrono::system_clock::time_point wall_{std::chrono::seconds(1700000000)};
};

TEST_F(NicDriverErrorTest, FatalRecordIsACriticalFindingOnItsPortWithinOnePoll) {
  poll();
  EXPECT_TRUE(findings().empty());
  log_->pending.push_back(rec(kFatal));
  const BatchPtr b = poll();
  EXPECT_EQ(status_, CollectStatus::kOk);
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_fw_fatal"), 1);
  ASSERT_EQ(b->notes.size(), 1u);
  EXPECT_EQ(b->notes[0].text, kFatal);
  const auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "nic_driver_error");
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(label(f[0], "device"), "mlx5_0");
  EXPECT_EQ(label(f[0], "port"), "1");
  EXPECT_EQ(label(f[0], "interface"), "ens1f0np0");
  EXPECT_EQ(label(f[0], "reason"), "mlx5_fw_fatal");
  EXPECT_NE(f[0].summary.find("0000:3b:00.0"), std::string::npos) << f[0].summary;
  EXPECT_NE(f[0].summary.find("Fatal error 1 detected"), std::string::npos) << f[0].summary;
  // The series labels are the table's names, never message text.
  for (const Sample& s : b->samples) {
    for (const auto& [k, v] : s.series->labels()) EXPECT_EQ(v.find("detected"), std::string::npos) << k;
  }
}

TEST_F(NicDriverErrorTest, RecoverableRecordIsAWarningAndInfoRaisesNothing) {
  log_->pending.push_back(rec("mlx5_core 0000:3b:00.0: mlx5_health_try_recover:327:(pid 87): handling bad device here"));
  log_->pending.push_back(rec("mlx5_core 0000:3b:00.0: firmware version: 28.39.1002"));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_probe"), 1);
  const auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(label(f[0], "reason"), "mlx5_health_recovering");
}

TEST_F(NicDriverErrorTest, ClearsAfterTheQuietPeriodAndRecurs) {
  log_->pending.push_back(rec(kFatal));
  poll();
  ASSERT_EQ(findings().size(), 1u);
  for (int i = 0; i < 14; ++i) poll(60);
  EXPECT_EQ(findings().size(), 1u) << "within the 15 min quiet period";
  poll(61);
  EXPECT_TRUE(findings().empty());
  log_->pending.push_back(rec(kFatal));
  poll();
  EXPECT_EQ(findings().size(), 1u) << "a new record starts it again";
}

TEST_F(NicDriverErrorTest, UserFacilityRecordsAreRefusedUnlessAdmitted) {
  // What root's `echo '<3>mlx5_core ...' > /dev/kmsg` produces: facility 1, no dictionary.
  log_->pending.push_back(rec(kFatal, 1, ""));
  BatchPtr b = poll();
  EXPECT_TRUE(findings().empty());
  EXPECT_EQ(value(b, families::nic::kDriverRecords), -1);
  EXPECT_EQ(value(b, families::nic::kKernelLogRefused), 1);

  config_.sources.kmsgAcceptUserRecords = true;
  remake();
  log_->pending.push_back(rec(kFatal, 1, ""));
  b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_fw_fatal"), 1);
  ASSERT_EQ(findings().size(), 1u);
  EXPECT_EQ(label(findings()[0], "port"), "1");
}

TEST_F(NicDriverErrorTest, RecordsAboutUnwatchedFunctionsAreIgnored) {
  log_->pending.push_back(rec("mlx5_core 0000:99:00.0: poll_health:800:(pid 0): Fatal error 1 detected", 0,
                              "+pci:0000:99:00.0"));
  log_->pending.push_back(rec("e1000e 0000:00:1f.6 eno1: NETDEV WATCHDOG: CPU: 1: transmit queue 0 timed out 5000 ms",
                              0, ""));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords), -1);
  EXPECT_TRUE(findings().empty());
}

TEST_F(NicDriverErrorTest, LostRecordsAreCounted) {
  log_->lost = 7;
  BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kKernelLogLost), 7);
  log_->lost = 2;
  b = poll();
  EXPECT_EQ(value(b, families::nic::kKernelLogLost), 9);
}

TEST_F(NicDriverErrorTest, LostRecordsAreANodeWarningForTheQuietPeriod) {
  log_->lost = 4;  // lost before the first read: the counter's starting point, not news
  poll();
  poll();
  EXPECT_TRUE(findings().empty());
  log_->lost = 3;
  poll();
  ASSERT_EQ(findings().size(), 1u);
  const Finding f = findings()[0];
  EXPECT_EQ(label(f, "reason"), watchdog::kKernelLogLostReason);
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(label(f, "device"), "") << "the kernel log is the node's";
  EXPECT_NE(f.summary.find("the kernel log overran"), std::string::npos) << f.summary;
  EXPECT_NE(f.summary.find("(7 since it started)"), std::string::npos) << f.summary;
  for (int i = 0; i < 14; ++i) poll(60);
  EXPECT_EQ(findings().size(), 1u) << "within the 15 min quiet period";
  poll(61);
  EXPECT_TRUE(findings().empty());
}

TEST_F(NicDriverErrorTest, NoAccessIsCountedOnceAndTheCollectorGoesOn) {
  log_->failErrno = EPERM;
  log_->firstDenial = true;
  BatchPtr b = poll();
  EXPECT_EQ(status_, CollectStatus::kNoData);
  EXPECT_EQ(value(b, families::nic::kKernelLogAccessFailures), 1);
  b = poll();
  b = poll();
  EXPECT_EQ(value(b, families::nic::kKernelLogAccessFailures), 1);
  log_->failErrno = 0;
  log_->pending.push_back(rec(kFatal));
  b = poll();
  EXPECT_EQ(status_, CollectStatus::kOk);
  EXPECT_EQ(findings().size(), 1u);
}

TEST_F(NicDriverErrorTest, NoKernelLogHereIsNoDataNotARefusal) {
  log_->failErrno = ENODEV;  // a container's /dev/kmsg stand-in
  const BatchPtr b = poll();
  EXPECT_EQ(status_, CollectStatus::kNoData);
  EXPECT_EQ(value(b, families::nic::kKernelLogAccessFailures), 0);
}

TEST_F(NicDriverErrorTest, AReloadKeepsTheReaderAndTheTallies) {
  log_->pending.push_back(rec(kFatal));
  poll();
  SourcesConfig same;
  EXPECT_EQ(makeNicDriverLogState(same, state_), state_) << "same log: the reader is kept";
  SourcesConfig other;
  other.kmsgFile = "/nonexistent/kmsg";
  EXPECT_NE(makeNicDriverLogState(other, state_), state_);
  remake();  // the new configuration's collector over the kept state
  log_->pending.push_back(rec(kFatal));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_fw_fatal"), 2) << "counters stay monotonic";
  EXPECT_EQ(findings().size(), 1u);
}

TEST_F(NicDriverErrorTest, ACleanDriverReloadRaisesNothing) {
  poll();
  // The function leaves (driver unbound) and comes back, logging only its probe lines.
  const Topology full = topology_;
  topology_.devices.clear();
  topology_.netdevs.clear();
  topology_.generation = 2;
  poll();
  log_->pending.push_back(rec("mlx5_core 0000:3b:00.0: firmware version: 28.39.1002"));
  log_->pending.push_back(rec("mlx5_core 0000:3b:00.0: Port module event: module 0, Cable plugged"));
  poll();
  topology_ = full;
  topology_.generation = 3;
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_probe"), 1) << "kept while the function was away";
  EXPECT_TRUE(findings().empty());
}

TEST_F(NicDriverErrorTest, AFatalRecordDuringAReloadIsReportedWhenTheFunctionIsBack) {
  poll();  // the function is known
  const Topology full = topology_;
  topology_.devices.clear();
  topology_.netdevs.clear();
  topology_.generation = 2;
  poll();
  log_->pending.push_back(rec(kFatal));
  poll();
  EXPECT_TRUE(findings().empty()) << "its port is not there to carry it";
  topology_ = full;
  topology_.generation = 3;
  poll();
  ASSERT_EQ(findings().size(), 1u);
  EXPECT_EQ(label(findings()[0], "device"), "mlx5_0");
}

// An mlx5 fatal error's recovery detaches the function's RDMA device and interface
// (mlx5_health_try_recover, mlx5_disable_device); a failed recovery leaves them gone. The finding
// that explains the outage holds through it, once: it neither clears when discovery loses the
// function nor starts again when the function is back, and a function that comes back in part
// (its interface before its RDMA device) keeps the port it was on.
TEST_F(NicDriverErrorTest, AFatalFindingHoldsOnceWhileItsFunctionIsAwayForItsRecovery) {
  poll();
  log_->pending.push_back(rec(kFatal));
  poll();
  ASSERT_EQ(findings().size(), 1u);
  const auto since = findings()[0].since;
  const Topology full = topology_;
  rdmaDeviceLeavesInterfaceStays();  // the RDMA device goes first; the interface stays a moment
  poll();
  ASSERT_EQ(findings().size(), 1u);
  EXPECT_EQ(label(findings()[0], "device"), "mlx5_0") << "not moved to the interface alone";
  topology_.netdevs.clear();
  ++topology_.generation;
  passAfterDiscovery();
  for (int i = 0; i < 30; ++i) poll();
  ASSERT_EQ(findings().size(), 1u) << "held while the function is away";
  EXPECT_EQ(findings()[0].since, since);
  EXPECT_EQ(label(findings()[0], "device"), "mlx5_0");
  topology_.netdevs = full.netdevs;  // back in part: the interface first
  topology_.netdevs[0].rdmaDevice.clear();
  topology_.netdevs[0].rdmaPort = 0;
  ++topology_.generation;
  poll();
  EXPECT_EQ(findings()[0].since, since);
  topology_ = full;
  topology_.generation += 100;
  poll();
  ASSERT_EQ(findings().size(), 1u);
  EXPECT_EQ(findings()[0].since, since) << "the same finding, not a new one";
  EXPECT_EQ(label(findings()[0], "device"), "mlx5_0");
  for (int i = 0; i < 16; ++i) poll(60);
  EXPECT_TRUE(findings().empty()) << "cleared after the quiet period, as any record";
}

// A failed recovery can bring the interface back and not the RDMA device (with netdev.include the
// interface alone is watched): a new fatal record then is news, on the interface that is there.
TEST_F(NicDriverErrorTest, ANewRecordOfAFunctionBackInPartIsReportedOnThePartThatIsThere) {
  poll();
  log_->pending.push_back(rec(kFatal));
  poll();
  rdmaDeviceLeavesInterfaceStays();
  poll();
  ASSERT_EQ(findings().size(), 1u);
  log_->pending.push_back(rec(kFatal));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_fw_fatal"), 2);
  bool onInterface = false;
  for (const Finding& f : findings()) onInterface |= label(f, "device").empty() && label(f, "interface") == "ens1f0np0";
  EXPECT_TRUE(onInterface);
}

// A record that names its RDMA device rather than its PCI function (ib_core registering the device
// again after a reload) while that device is away is still its function's: counted when it is back.
TEST_F(NicDriverErrorTest, ARecordNamingADeviceThatIsAwayIsItsFunctions) {
  poll();  // mlx5_0 is known
  const Topology full = topology_;
  topology_.devices.clear();
  topology_.netdevs.clear();
  ++topology_.generation;
  poll();
  // ib_core's dev_err() on a device not registered yet: no PCI function in the record's dictionary.
  log_->pending.push_back(rec("infiniband mlx5_0: Couldn't set up InfiniBand P_Key/GID cache", 0, ""));
  poll();
  topology_ = full;
  topology_.generation += 100;
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "ib_core_cache_setup_failed"), 1);
}

// A name its function gave up (a device renamed: mlx5_0 is mlx5_5 now) may be another function's
// next: a record naming it is not the renamed function's.
TEST_F(NicDriverErrorTest, ANameARenamedFunctionGaveUpIsNoLongerIts) {
  poll();
  topology_.devices[0].name = "mlx5_5";
  topology_.netdevs[0].rdmaDevice = "mlx5_5";
  ++topology_.generation;
  poll();
  log_->pending.push_back(rec("infiniband mlx5_0: Couldn't set up InfiniBand P_Key/GID cache", 0, ""));
  log_->pending.push_back(rec("infiniband mlx5_5: Couldn't set up InfiniBand P_Key/GID cache", 0, ""));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "ib_core_cache_setup_failed"), 1) << "mlx5_5's record only";
}

// The record's time, not the moment its series came back, is when it happened: a function that
// leaves and returns (a reload, a firmware reset) brings its old tallies back as new series, and a
// fatal record judged and cleared long ago must not page again. The records carry the kernel's
// time on the real clock, so the batches' wall clock starts there too.
TEST_F(NicDriverErrorTest, AnOldRecordIsNotRaisedAgainWhenItsFunctionComesBack) {
  wall_ = std::chrono::system_clock::now();
  const Topology full = topology_;
  auto leave = [&] {
    topology_.devices.clear();
    topology_.netdevs.clear();
    ++topology_.generation;
    poll();
  };
  auto comeBack = [&] {
    topology_ = full;
    topology_.generation = full.generation + 10 + snapshot_.generation;
    poll();
  };
  poll();
  leave();
  log_->pending.push_back(rec(kFatal));  // logged while the function is away
  poll();
  comeBack();
  ASSERT_EQ(findings().size(), 1u) << "a record from the reload itself is news when the function is back";
  for (int i = 0; i < 16; ++i) poll(60);
  ASSERT_TRUE(findings().empty()) << "cleared after the quiet period";
  leave();
  comeBack();
  EXPECT_TRUE(findings().empty()) << "the same record, 16 minutes old, again";
  log_->pending.push_back(rec(kFatal));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_fw_fatal"), 2);
}

// printk's clock is not slewed by NTP: after months of uptime a record's converted time can lag
// the wall clock by minutes, enough to make a fresh fatal record look older than the quiet period.
// A record read after an earlier read was logged after it, which bounds the lag.
TEST_F(NicDriverErrorTest, AFreshRecordIsNotAgedByPrintksClockLaggingTheWallClock) {
  wall_ = std::chrono::system_clock::now();
  poll();
  const double previousRead = double(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count()) /
                              1e3;
  timespec mono{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  if (mono.tv_sec < 21 * 60) GTEST_SKIP() << "the machine booted less than 21 minutes ago: no 20-minute lag to fake";
  KmsgRecord r = rec(kFatal);
  r.timestampUsec = uint64_t(mono.tv_sec - 20 * 60) * 1000000;  // 20 minutes behind
  log_->pending.push_back(r);
  const BatchPtr b = poll();
  EXPECT_GE(value(b, families::nic::kDriverLastRecord, "mlx5_fw_fatal"), previousRead - 1);
  ASSERT_EQ(findings().size(), 1u) << "a fresh fatal record pages";
  EXPECT_EQ(label(findings()[0], "reason"), "mlx5_fw_fatal");
}

// What the ring held when the log was opened (a NIC that failed at boot, or while the daemon was
// being restarted) is judged like news, by each record's own time: a fatal record of five minutes
// ago pages for the rest of its quiet period, one of an hour ago is only counted.
TEST_F(NicDriverErrorTest, TheBacklogIsJudgedByEachRecordsOwnTime) {
  timespec mono{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  if (mono.tv_sec < 61 * 60) GTEST_SKIP() << "the machine booted less than 61 minutes ago: no hour-old record to fake";
  wall_ = std::chrono::system_clock::now();
  log_->pending.push_back(backlog(rec("mlx5_core 0000:3b:00.0: mlx5_health_try_recover:327:(pid 87): handling bad device here"), 60));
  log_->pending.push_back(backlog(rec(kFatal), 5));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_fw_fatal"), 1);
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_health_recovering"), 1);
  const auto f = findings();
  ASSERT_EQ(f.size(), 1u) << "only the fatal record is within the quiet period";
  EXPECT_EQ(label(f[0], "reason"), "mlx5_fw_fatal");
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  for (int i = 0; i < 9; ++i) poll(60);
  EXPECT_EQ(findings().size(), 1u) << "14 minutes after the record";
  poll(61);
  EXPECT_TRUE(findings().empty()) << "the quiet period counts from the record, not from the read";
}

// A backlog record of the boot's first minutes is its function's by its PCI address only: the names
// it gives (mlx5_0, eth2) are what the devices were called then, before udev and rdma renamed
// them, maybe another's now. A later one (logged while the daemon restarted) uses today's names.
TEST_F(NicDriverErrorTest, ABacklogRecordOfTheBootIsNotAttributedByTheNamesOfThen) {
  timespec mono{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  if (mono.tv_sec < 6 * 60) GTEST_SKIP() << "the machine booted less than 6 minutes ago";
  wall_ = std::chrono::system_clock::now();
  poll();  // mlx5_0 is known now
  const std::string cache = "infiniband mlx5_0: Couldn't set up InfiniBand P_Key/GID cache";
  KmsgRecord atBoot = rec(cache, 0, "");
  atBoot.timestampUsec = 30 * 1000000;  // 30 s after boot
  atBoot.backlog = true;
  log_->pending.push_back(atBoot);
  log_->pending.push_back(backlog(rec(cache, 0, ""), 1));
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "ib_core_cache_setup_failed"), 1)
      << "the one logged a minute ago only";
}

// A function that discovery has not shown yet (its RDMA device registers after the daemon's first
// scan at boot) gets its backlog record when it appears.
TEST_F(NicDriverErrorTest, ABacklogRecordWaitsForItsFunctionToAppear) {
  wall_ = std::chrono::system_clock::now();
  const Topology full = topology_;
  topology_.devices.clear();
  topology_.netdevs.clear();
  log_->pending.push_back(backlog(rec(kFatal), 1));
  poll();
  EXPECT_TRUE(findings().empty()) << "its function is not on the node yet";
  topology_ = full;
  topology_.generation += 5;
  const BatchPtr b = poll();
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_fw_fatal"), 1);
  const auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(label(f[0], "reason"), "mlx5_fw_fatal");
  EXPECT_EQ(label(f[0], "device"), "mlx5_0");
}

// A record that waited for its function is as old as the kernel's clock says, not as the read that
// found its function: 14 minutes old at boot and two more before the function appears, it is past
// its quiet period then, and only counted.
TEST_F(NicDriverErrorTest, ABacklogRecordThatWaitedIsAsOldAsTheKernelSays) {
  timespec mono{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  if (mono.tv_sec < 15 * 60) GTEST_SKIP() << "the machine booted less than 15 minutes ago";
  wall_ = std::chrono::system_clock::now();
  const Topology full = topology_;
  topology_.devices.clear();
  topology_.netdevs.clear();
  log_->pending.push_back(backlog(rec(kFatal), 14));
  poll();
  topology_ = full;
  topology_.generation += 5;
  const BatchPtr b = poll(120);
  EXPECT_EQ(value(b, families::nic::kDriverRecords, "mlx5_fw_fatal"), 1);
  EXPECT_TRUE(findings().empty()) << "16 minutes after the kernel logged it";
}

TEST_F(NicDriverErrorTest, HungTaskInTheDriverIsCriticalOnEveryFunctionOfThatDriver) {
  log_->pending.push_back(rec("INFO: task kworker/u258:1:1234 blocked for more than 122 seconds.", 0, ""));
  log_->pending.push_back(rec(" mlx5_cmd_exec+0x2f/0x50 [mlx5_core]", 0, ""));
  poll();
  const auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(label(f[0], "reason"), "hung_task_in_nic_driver");
  EXPECT_EQ(f[0].severity, Severity::kCritical);
}

// An EFA function (and an InfiniBand HCA without IPoIB) has no netdev: the trace's module is
// joined to the function by the RDMA device's own PCI driver.
TEST_F(NicDriverErrorTest, AHungTaskInADriverWithoutANetdevIsOnItsRdmaFunctions) {
  topology_.devices = {RdmaDevice{"efa_0", "0000:00:06.0", 1, {RdmaPort{1, "Unspecified", {}}}, "efa"}};
  topology_.netdevs.clear();
  topology_.generation = 2;
  log_->pending.push_back(rec("INFO: task python3:4711 blocked for more than 122 seconds.", 0, ""));
  log_->pending.push_back(rec(" efa_com_cmd_exec+0x9c/0x1c0 [efa]", 0, ""));
  poll();
  const auto f = findings();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(label(f[0], "reason"), "hung_task_in_nic_driver");
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(label(f[0], "device"), "efa_0");
}

TEST(FindingText, EscapesAndTruncates) {
  EXPECT_EQ(watchdog::findingText("a\"b\\c\x01\x7f\xc3"), "a\\\"b\\\\c\\x01\\x7f\\xc3");
  const std::string cut = watchdog::findingText(std::string(500, 'x'), 50);
  EXPECT_EQ(cut, std::string(50, 'x') + "...");
  EXPECT_EQ(watchdog::findingText("\x01\x01", 5), "\\x01...") << "never half an escape";
}

}  // namespace
}  // namespace fabricmon
