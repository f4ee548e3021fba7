// nic_unresponsive (watchdog/rules/nic_unresponsive.cpp) over hand-set
// fabricmon_nic_read_wait_seconds series, as the pipeline builds them (daemon/read_waits.hpp): the
// seconds a collector's read has waited, its target as the note, 0 once it returned. One pass a
// second on the TestNode's clock: no sleeps.
#include "watchdog/rules/nic_unresponsive.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/watchdog/test_node.hpp"

namespace fabricmon::testing {
namespace {

constexpr const char* kWait = "fabricmon_nic_read_wait_seconds";
constexpr const char* kTarget = "read /sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer";
using Findings = std::vector<std::string>;

Labels waitLabels(const std::string& collector, const std::string& device, const std::string& port,
                  const std::string& iface, const std::string& pci = "0000:17:00.0") {
  return {{"collector", collector}, {"device", device}, {"port", port}, {"interface", iface}, {"pci_address", pci}};
}

class NicUnresponsiveTest : public ::testing::Test {
 protected:
  explicit NicUnresponsiveTest(WatchdogConfig config = {}) : n_(config) {
    healthyRoce(n_, "mlx5_0", "eth0");
    healthyRoce(n_, "mlx5_1", "eth1");
  }
  /// The hw_counters read of mlx5_0 port 1 has waited `seconds` (0: it returned).
  void wait(double seconds) {
    n_.set("nic_read_wait", kWait, waitLabels("hw_counters", "mlx5_0", "1", "eth0"), seconds);
    n_.note("nic_read_wait", kWait, waitLabels("hw_counters", "mlx5_0", "1", "eth0"), kTarget);
  }
  /// Passes one second apart while the same read keeps waiting (`from` to `to` seconds).
  Findings waitThrough(int from, int to) {
    for (int s = from; s <= to; ++s) {
      wait(s);
      n_.tick(1);
    }
    return sorted();
  }
  Findings run(int seconds) {
    for (int i = 0; i < seconds; ++i) n_.tick(1);
    return sorted();
  }
  Findings sorted() {
    auto d = describe(n_.findings());
    std::sort(d.begin(), d.end());
    return d;
  }
  const Finding* find(std::string_view port) {
    static std::vector<Finding> keep;
    keep = n_.findings();
    for (const Finding& f : keep) {
      if (f.rule == "nic_unresponsive" && labelOf(f, "port") == port) return &f;
    }
    return nullptr;
  }

  TestNode n_;
};

TEST_F(NicUnresponsiveTest, AReadWaitingBelowTheLimitIsSilentAtTheLimitCritical) {
  run(3);
  EXPECT_EQ(waitThrough(1, 9), Findings{}) << "nine seconds: a slow command, not yet a dead one";
  EXPECT_EQ(waitThrough(10, 10), Findings{"nic_unresponsive/hw_counters/mlx5_0/1/eth0"});
  const Finding* f = find("1");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_NE(f->summary.find("collector hw_counters has waited 10 s"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("hw_counters/out_of_buffer"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("mlx5_0 port 1 (eth0) at 0000:17:00.0"), std::string::npos) << f->summary;
}

TEST_F(NicUnresponsiveTest, StaysClearAfterOnceTheReadReturnedAndAnotherWaitKeepsIt) {
  EXPECT_EQ(waitThrough(1, 12), Findings{"nic_unresponsive/hw_counters/mlx5_0/1/eth0"});
  wait(0);  // the driver's command timed out: the read returned with an error
  EXPECT_EQ(run(200), Findings{"nic_unresponsive/hw_counters/mlx5_0/1/eth0"});
  // The next run's read hangs again: the clear_after starts over.
  EXPECT_EQ(waitThrough(1, 11), Findings{"nic_unresponsive/hw_counters/mlx5_0/1/eth0"});
  wait(0);
  EXPECT_EQ(run(290), Findings{"nic_unresponsive/hw_counters/mlx5_0/1/eth0"}) << "under five minutes";
  EXPECT_EQ(run(20), Findings{});
}

TEST_F(NicUnresponsiveTest, ADeviceWideReadIsAboutEachOfItsPorts) {
  n_.set("rdma_port", "fabricmon_port_info",
         {{"device", "mlx5_0"}, {"port", "2"}, {"interface", "eth2"}, {"link_layer", "Ethernet"}, {"rate", "400"}}, 1);
  n_.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_0"}, {"port", "2"}}, 4);
  for (int s = 1; s <= 10; ++s) {
    n_.set("nic_read_wait", kWait, waitLabels("nic_temperature", "mlx5_0", "", ""), s);
    n_.tick(1);
  }
  EXPECT_EQ(sorted(), (Findings{"nic_unresponsive/nic_temperature/mlx5_0/1/eth0",
                                "nic_unresponsive/nic_temperature/mlx5_0/2/eth2"}));
}

TEST_F(NicUnresponsiveTest, EachCollectorThatWaitsIsItsOwnReason) {
  const Labels ioctl = waitLabels("ethtool_pfc", "mlx5_0", "1", "eth0");
  for (int s = 1; s <= 10; ++s) {
    wait(s);
    n_.set("nic_read_wait", kWait, ioctl, s / 2.0);
    n_.tick(1);
  }
  EXPECT_EQ(sorted(), Findings{"nic_unresponsive/hw_counters/mlx5_0/1/eth0"}) << "the ioctl waited 5 s only";
  for (int s = 11; s <= 20; ++s) {
    wait(s);
    n_.set("nic_read_wait", kWait, ioctl, s / 2.0);
    n_.tick(1);
  }
  EXPECT_EQ(sorted(), (Findings{"nic_unresponsive/ethtool_pfc/mlx5_0/1/eth0", "nic_unresponsive/hw_counters/mlx5_0/1/eth0"}));
}

TEST_F(NicUnresponsiveTest, ADeviceWideWaitIsNotHiddenByAPortsReturnedRead) {
  // mlx5_1 has two ports; its port 1's own read returned (held at 0) while a read of the whole
  // function (hwmon) hangs: both ports are judged by the longer wait.
  n_.set("rdma_port", "fabricmon_port_info",
         {{"device", "mlx5_1"}, {"port", "2"}, {"interface", "eth3"}, {"link_layer", "Ethernet"}, {"rate", "400"}}, 1);
  n_.set("rdma_port", "fabricmon_port_state", {{"device", "mlx5_1"}, {"port", "2"}}, 4);
  n_.set("nic_read_wait", kWait, waitLabels("nic_temperature", "mlx5_1", "1", "eth1", "0000:18:00.0"), 0);
  n_.tick(1);  // the port's series is tracked first: the rule must not judge by the order it meets them
  for (int s = 1; s <= 10; ++s) {
    n_.set("nic_read_wait", kWait, waitLabels("nic_temperature", "mlx5_1", "", "", "0000:18:00.0"), s);
    n_.tick(1);
  }
  const Findings both{"nic_unresponsive/nic_temperature/mlx5_1/1/eth1", "nic_unresponsive/nic_temperature/mlx5_1/2/eth3"};
  EXPECT_EQ(sorted(), both);
  for (int s = 11; s <= 400; ++s) {
    n_.set("nic_read_wait", kWait, waitLabels("nic_temperature", "mlx5_1", "", "", "0000:18:00.0"), s);
    n_.tick(1);
  }
  EXPECT_EQ(sorted(), both) << "still hanging past clear_after: still firing on both ports";
}

class NicUnresponsiveLimitTest : public NicUnresponsiveTest {
 protected:
  static WatchdogConfig limited() {
    WatchdogConfig c;
    c.rules.get<NicUnresponsiveRule>().waitLimit = std::chrono::seconds(3);
    c.rules.get<NicUnresponsiveRule>().clearAfter = std::chrono::seconds(30);
    return c;
  }
  NicUnresponsiveLimitTest() : NicUnresponsiveTest(limited()) {}
};

TEST_F(NicUnresponsiveLimitTest, TheLimitAndTheClearAreSettings) {
  EXPECT_EQ(waitThrough(1, 2), Findings{});
  EXPECT_EQ(waitThrough(3, 3), Findings{"nic_unresponsive/hw_counters/mlx5_0/1/eth0"});
  wait(0);
  EXPECT_EQ(run(29), Findings{"nic_unresponsive/hw_counters/mlx5_0/1/eth0"});
  EXPECT_EQ(run(2), Findings{});
}

}  // namespace
}  // namespace fabricmon::testing
