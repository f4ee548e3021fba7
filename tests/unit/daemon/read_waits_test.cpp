// The pipeline's view of reads stuck in a NIC (daemon/read_waits.hpp): which port, interface and
// function a read's target is about, and the fabricmon_nic_read_wait_seconds series built from the
// collectors' health; and, through a real CollectorRunner, that a run blocked inside a marked read
// is reported by health() while it waits and not after.
#include "daemon/read_waits.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "collectors/sources/read_watch.hpp"

namespace fabricmon {
namespace {

using namespace std::chrono_literals;

/// mlx5_0: one RoCE port (eth0); mlx5_1: two InfiniBand ports (ib0, ib1); eth9 without RDMA.
Topology node() {
  Topology t;
  RdmaDevice a{"mlx5_0", "0000:17:00.0", 1, {RdmaPort{1, "Ethernet", {"eth0"}}}, "mlx5_core"};
  RdmaDevice b{"mlx5_1", "0000:18:00.0", 2,
               {RdmaPort{1, "InfiniBand", {"ib0"}}, RdmaPort{2, "InfiniBand", {"ib1"}}}, "mlx5_core"};
  t.devices = {a, b};
  t.netdevs = {Netdev{"eth0", "0000:17:00.0", "mlx5_0", 1, "mlx5_core"},
               Netdev{"eth9", "0000:31:00.0", "", 0, "ice"},
               Netdev{"ib0", "0000:18:00.0", "mlx5_1", 1, "mlx5_core"},
               Netdev{"ib1", "0000:18:00.0", "mlx5_1", 2, "mlx5_core"}};
  return t;
}

ReadSubject subject(std::string device, std::string port, std::string iface, std::string pci) {
  return ReadSubject{std::move(device), std::move(port), std::move(iface), std::move(pci)};
}

TEST(ReadSubject, APortsFileIsThatPortWithItsInterfaceAndFunction) {
  EXPECT_EQ(readSubject(node(), "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer"),
            subject("mlx5_0", "1", "eth0", "0000:17:00.0"));
  EXPECT_EQ(readSubject(node(), "/srv/root/class/infiniband/mlx5_1/ports/2/counters/symbol_error"),
            subject("mlx5_1", "2", "ib1", "0000:18:00.0"));
}

TEST(ReadSubject, ADeviceWideFileIsItsOnlyPortOrTheDevice) {
  EXPECT_EQ(readSubject(node(), "/sys/class/infiniband/mlx5_0/hw_counters/lifespan"),
            subject("mlx5_0", "1", "eth0", "0000:17:00.0"));
  EXPECT_EQ(readSubject(node(), "/sys/class/infiniband/mlx5_1/fw_ver"), subject("mlx5_1", "", "", "0000:18:00.0"));
}

TEST(ReadSubject, AnInterfacesCallIsItsRdmaPort) {
  EXPECT_EQ(readSubject(node(), "class/net/eth0"), subject("mlx5_0", "1", "eth0", "0000:17:00.0"));
  EXPECT_EQ(readSubject(node(), "/sys/class/net/ib1/speed"), subject("mlx5_1", "2", "ib1", "0000:18:00.0"));
  EXPECT_EQ(readSubject(node(), "class/net/eth9"), subject("", "", "eth9", "0000:31:00.0"));
  EXPECT_EQ(readSubject(node(), "class/net/gone0"), subject("", "", "gone0", ""));
}

TEST(ReadSubject, AFileBelowAFunctionIsThatFunctionsDevice) {
  EXPECT_EQ(readSubject(node(), "/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0/hwmon/hwmon3/temp1_input"),
            subject("mlx5_0", "1", "eth0", "0000:17:00.0"));
  // A VMD domain of five digits, and a function with no RDMA device.
  EXPECT_EQ(readSubject(node(), "/sys/devices/pci10000:00/10000:00:02.0/0000:31:00.0/hwmon/hwmon1/temp1_input"),
            subject("", "", "eth9", "0000:31:00.0"));
  EXPECT_EQ(readSubject(node(), "/sys/devices/pci0000:00/0000:00:01.0/0000:99:00.0/aer_dev_fatal"),
            subject("", "", "", "0000:99:00.0"));
}

TEST(ReadSubject, TheMarkerNearestTheEndNamesTheFile) {
  // A test tree's root may itself hold either marker.
  EXPECT_EQ(readSubject(node(), "/srv/class/infiniband/mlx5_1/tree/sys/class/net/eth0/speed"),
            subject("mlx5_0", "1", "eth0", "0000:17:00.0"));
  EXPECT_EQ(readSubject(node(), "/srv/class/net/eth9/tree/sys/class/infiniband/mlx5_0/ports/1/state"),
            subject("mlx5_0", "1", "eth0", "0000:17:00.0"));
}

TEST(ReadSubject, WhatNamesNothingKnownIsNobodys) {
  EXPECT_EQ(readSubject(node(), "/etc/fabricmon/ethtool/eth0.txt"), ReadSubject{});
  EXPECT_EQ(readSubject(node(), ""), ReadSubject{});
  // "class/net/" must start a path component.
  EXPECT_EQ(readSubject(node(), "/srv/myclass/net/eth0/x"), ReadSubject{});
}

CollectorHealth waitingHealth(std::string collector, std::string target, ReadWatch::Clock::time_point since) {
  CollectorHealth h;
  h.name = std::move(collector);
  h.waiting = ReadWatch::Waiting{"read", std::move(target), since};
  return h;
}

double valueOf(const Batch& b, std::string_view collector) {
  for (const Sample& s : b.samples) {
    if (s.series->label("collector") == collector) return s.value;
  }
  return -1;
}

TEST(ReadWaits, AWaitIsASeriesWithItsTargetAsNoteZeroOnceItReturnedGoneAfterTheHold) {
  ReadWaits waits;
  const Topology topo = node();
  const auto t0 = ReadWatch::Clock::now();
  auto idle = waits.batch({}, topo, t0);
  EXPECT_TRUE(idle->samples.empty());
  EXPECT_EQ(waits.batch({}, topo, t0 + 1s), idle) << "nothing changed: the same batch";

  CollectorHealth notWaiting;
  notWaiting.name = "rdma_port";
  std::vector<CollectorHealth> health{
      waitingHealth("hw_counters", "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", t0), notWaiting};
  auto b = waits.batch(health, topo, t0 + 12s);
  ASSERT_EQ(b->samples.size(), 1u);
  const Series& s = *b->samples[0].series;
  EXPECT_EQ(s.family->name, "fabricmon_nic_read_wait_seconds");
  EXPECT_EQ(s.label("collector"), "hw_counters");
  EXPECT_EQ(s.label("device"), "mlx5_0");
  EXPECT_EQ(s.label("port"), "1");
  EXPECT_EQ(s.label("interface"), "eth0");
  EXPECT_EQ(s.label("pci_address"), "0000:17:00.0");
  EXPECT_DOUBLE_EQ(b->samples[0].value, 12);
  ASSERT_EQ(b->notes.size(), 1u);
  EXPECT_EQ(b->notes[0].text, "read /sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent");
  EXPECT_EQ(b->collector, ReadWaits::kCollector);

  auto later = waits.batch(health, topo, t0 + 13s);
  EXPECT_NE(later, b) << "a read still waiting is a new value every pass";
  EXPECT_DOUBLE_EQ(valueOf(*later, "hw_counters"), 13);

  auto returned = waits.batch({}, topo, t0 + 14s);
  EXPECT_DOUBLE_EQ(valueOf(*returned, "hw_counters"), 0) << "returned: 0, kept for the rule's clear_after";
  auto held = waits.batch({}, topo, t0 + 30min);
  EXPECT_NE(held, returned) << "a held series is sampled at every pass: the rule's clear_after runs on its times";
  EXPECT_EQ(held->monotonic, t0 + 30min);
  EXPECT_DOUBLE_EQ(valueOf(*held, "hw_counters"), 0);
  EXPECT_TRUE(waits.batch({}, topo, t0 + 13s + ReadWaits::kHold + 1s)->samples.empty()) << "an hour later: gone";
}

TEST(ReadWaits, ARunAReloadLeftBehindKeepsItsWaitAndTheLongerOfTwoReadsIsTheValue) {
  // A reload could not stop hw_counters' run (its read hangs in mlx5_0's firmware) and started the
  // collector anew; the new run's read of the same port hangs too, 40 s later.
  ReadWaits waits;
  const Topology topo = node();
  const auto t0 = ReadWatch::Clock::now();
  const std::string first = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent";
  const std::string second = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer";
  const std::vector<CollectorHealth> old{waitingHealth("hw_counters", first, t0)};
  auto b = waits.batch({}, topo, t0 + 41s, old);
  ASSERT_EQ(b->samples.size(), 1u) << "the new run has not waited a second yet; the old run's read is named";
  EXPECT_DOUBLE_EQ(b->samples[0].value, 41);
  const std::vector<CollectorHealth> fresh{waitingHealth("hw_counters", second, t0 + 40s)};
  b = waits.batch(fresh, topo, t0 + 45s, old);
  ASSERT_EQ(b->samples.size(), 1u) << "one collector, one port: one series";
  EXPECT_DOUBLE_EQ(b->samples[0].value, 45) << "the longest wait, whichever list it came in";
  ASSERT_EQ(b->notes.size(), 1u);
  EXPECT_EQ(b->notes[0].text, "read " + first) << "the note is the read the value is about";
  b = waits.batch(fresh, topo, t0 + 46s);
  EXPECT_DOUBLE_EQ(b->samples[0].value, 6) << "the old read returned: the new one is what waits";
  ASSERT_EQ(b->notes.size(), 1u);
  EXPECT_EQ(b->notes[0].text, "read " + second);

  // The other way round: the run left behind waits less than the running one (its read started
  // later). The running one's wait and note stay, whichever list is read last.
  const std::vector<CollectorHealth> longer{waitingHealth("hw_counters", first, t0)};
  const std::vector<CollectorHealth> shorter{waitingHealth("hw_counters", second, t0 + 40s)};
  b = waits.batch(longer, topo, t0 + 50s, shorter);
  ASSERT_EQ(b->samples.size(), 1u);
  EXPECT_DOUBLE_EQ(b->samples[0].value, 50);
  ASSERT_EQ(b->notes.size(), 1u);
  EXPECT_EQ(b->notes[0].text, "read " + first);
}

TEST(ReadWaits, OneCollectorsWaitsThatNameTheSameLabelsAreOneSeries) {
  // Two functions without an RDMA device or a netdev differ only in their PCI address, which the
  // watchdog does not key by: one series (the first one's labels), the wait now.
  ReadWaits waits;
  const auto t0 = ReadWatch::Clock::now();
  waits.batch(std::vector<CollectorHealth>{waitingHealth("pcie_aer", "/sys/devices/pci0000:00/0000:99:00.0/x", t0)},
              node(), t0 + 2s);
  auto b = waits.batch(
      std::vector<CollectorHealth>{waitingHealth("pcie_aer", "/sys/devices/pci0000:00/0000:98:00.0/x", t0 + 2s)},
      node(), t0 + 5s);
  ASSERT_EQ(b->samples.size(), 1u);
  EXPECT_DOUBLE_EQ(b->samples[0].value, 3);
  EXPECT_EQ(b->notes[0].text, "read /sys/devices/pci0000:00/0000:98:00.0/x");
}

TEST(ReadWaits, TwoCollectorsWaitingOnOneNicAreTwoSeries) {
  ReadWaits waits;
  const auto t0 = ReadWatch::Clock::now();
  std::vector<CollectorHealth> health{waitingHealth("ethtool_pfc", "class/net/eth0", t0),
                                      waitingHealth("hw_counters", "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/x", t0 - 5s)};
  auto b = waits.batch(health, node(), t0 + 2s);
  ASSERT_EQ(b->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(valueOf(*b, "ethtool_pfc"), 2);
  EXPECT_DOUBLE_EQ(valueOf(*b, "hw_counters"), 7);
}

/// A collector whose run marks a read of `target` and blocks in it until released.
class BlockingCollector : public Collector {
 public:
  struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    bool entered = false;
  };
  explicit BlockingCollector(std::shared_ptr<Gate> gate) : Collector("hw_counters"), gate_(std::move(gate)) {}
  std::span<const FamilyDef* const> families() const override { return {}; }
  CollectStatus collect(const Topology&, CollectOutput&) override {
    const WatchedRead read("read", "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer");
    std::unique_lock lock(gate_->mu);
    gate_->entered = true;
    gate_->cv.notify_all();
    gate_->cv.wait(lock, [&] { return gate_->open; });
    return CollectStatus::kOk;
  }

 private:
  std::shared_ptr<Gate> gate_;
};

TEST(ReadWaits, ARunnersHealthReportsTheReadItsRunIsBlockedIn) {
  boost::asio::io_context io;
  auto gate = std::make_shared<BlockingCollector::Gate>();
  CollectorRunner runner(io, std::make_unique<BlockingCollector>(gate), 1h, std::make_shared<Store>(),
                         std::make_shared<TopologyHolder>(), nullptr);
  runner.start();
  std::thread loop([&] {
    auto guard = boost::asio::make_work_guard(io);
    io.run();
  });
  bool entered = false;
  {
    std::unique_lock lock(gate->mu);
    entered = gate->cv.wait_for(lock, 10s, [&] { return gate->entered; });
  }
  EXPECT_TRUE(entered) << "the run never began";
  std::this_thread::sleep_for(kReadWaitReported + 200ms);
  const CollectorHealth h = runner.health();
  EXPECT_TRUE(h.waiting);
  if (h.waiting) {
    EXPECT_EQ(h.waiting->kind, "read");
    EXPECT_EQ(h.waiting->target, "/sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer");
    EXPECT_GE(ReadWatch::Clock::now() - h.waiting->since, kReadWaitReported);
  }
  {
    std::lock_guard lock(gate->mu);
    gate->open = true;
  }
  gate->cv.notify_all();
  bool returned = false;
  for (int i = 0; i < 500 && !returned; ++i) {
    returned = !runner.health().waiting;
    if (!returned) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(returned) << "the read returned: nothing waits";
  runner.requestStop();
  io.stop();
  loop.join();
  runner.join(std::chrono::steady_clock::now() + 2s);
}

}  // namespace
}  // namespace fabricmon
