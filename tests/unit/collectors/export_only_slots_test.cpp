// Kept counter files whose series nothing on the node reads at every poll (collectors/poll_demand.hpp):
// read every PollDemand::exportOnlyInterval, their last value exported in between; a failed read is
// retried at the next poll; a saturation flag is held with its counter; a new device's files are
// read whole at its first poll; without a demand every file is read at every poll.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"
#include "rdma_test_support.hpp"

namespace fabricmon {
namespace {

using namespace std::chrono_literals;
using testing::Poll;
using testing::TempTree;

constexpr std::string_view kHot = "fabricmon_roce_cnp_sent_total{device=\"mlx5_0\",port=\"1\"}";
constexpr std::string_view kCold =
    "fabricmon_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"out_of_buffer\"}";

Topology devices(std::initializer_list<const char*> names) {
  Topology t;
  for (const char* name : names) {
    RdmaDevice d;
    d.name = name;
    d.ports = {RdmaPort{1, "Ethernet", {}}};
    t.devices.push_back(d);
  }
  return t;
}

class ExportOnlySlots : public ::testing::Test {
 protected:
  ExportOnlySlots() {
    writeDevice("mlx5_0", "1");
    sources_.sysfs = std::make_shared<SysfsRoot>(tree_.root());
    auto demand = std::make_shared<PollDemand>();
    // As the daemon's: the first-class RoCE families are read at every poll, the generic ones not.
    demand->readsEveryPoll = [](const Series& s) { return s.family->name != "fabricmon_hw_stat_total"; };
    demand->exportOnlyInterval = 10s;
    demand->now = [this] { return PollDemand::Clock::time_point(now_); };
    sources_.demand = demand;
  }
  void writeDevice(const std::string& dev, const char* value) {
    const std::string dir = "class/infiniband/" + dev + "/ports/1/hw_counters/";
    tree_.write(dir + "np_cnp_sent", std::string(value) + "\n");
    tree_.write(dir + "out_of_buffer", std::string(value) + "\n");
  }
  Poll pollAt(Collector& c, std::chrono::milliseconds at, const Topology& topology) {
    now_ = at;
    return testing::poll(c, topology, tracker_);
  }
  /// The hw_counters collector over the tree, after its first poll at kT0 (every file read).
  std::unique_ptr<Collector> polledOnce(const Topology& topology) {
    auto c = makeCollector("hw_counters", sources_, config_);
    pollAt(*c, kT0, topology);
    return c;
  }

  static constexpr std::chrono::milliseconds kT0 = 1h;

  TempTree tree_;
  Sources sources_;
  Config config_;
  ErrorTracker tracker_{"test"};
  std::chrono::nanoseconds now_{1h};
};

TEST_F(ExportOnlySlots, ReadAtTheirIntervalAndHeldInBetween) {
  auto c = makeCollector("hw_counters", sources_, config_);
  const Topology topo = devices({"mlx5_0"});
  const auto t0 = kT0;
  Poll p = pollAt(*c, t0, topo);
  EXPECT_EQ(p.value(std::string(kHot)), 1.0);
  EXPECT_EQ(p.value(std::string(kCold)), 1.0);

  writeDevice("mlx5_0", "2");
  p = pollAt(*c, t0 + 1s, topo);
  EXPECT_EQ(p.value(std::string(kHot)), 2.0) << "read at every poll";
  EXPECT_EQ(p.value(std::string(kCold)), 1.0) << "exported as last read, not dropped";

  p = pollAt(*c, t0 + 9s, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 1.0);
  // A poll a few ms before the interval is up counts (the margin is 100 ms at 10 s).
  p = pollAt(*c, t0 + 9950ms, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 2.0);

  writeDevice("mlx5_0", "3");
  p = pollAt(*c, t0 + 10500ms, topo);
  EXPECT_EQ(p.value(std::string(kHot)), 3.0);
  EXPECT_EQ(p.value(std::string(kCold)), 2.0) << "the next interval runs from the read at 9.95 s";
  p = pollAt(*c, t0 + 19800ms, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 2.0) << "200 ms early is a poll too early";
  p = pollAt(*c, t0 + 19950ms, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 3.0);
  EXPECT_EQ(p.errors, 0u);
}

TEST_F(ExportOnlySlots, ALateRefreshDoesNotPushTheNextOneAPollLater) {
  const Topology topo = devices({"mlx5_0"});
  auto c = polledOnce(topo);
  const auto t0 = kT0;
  writeDevice("mlx5_0", "2");
  // The tick due at 10 s runs 300 ms late (a loaded machine): the refresh happens then...
  Poll p = pollAt(*c, t0 + 10300ms, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 2.0);
  writeDevice("mlx5_0", "3");
  // ...and the next is still the tick at 20 s, on the timer's grid.
  p = pollAt(*c, t0 + 20002ms, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 3.0);
  // A stall longer than an interval starts the count again from the poll that ends it.
  writeDevice("mlx5_0", "4");
  p = pollAt(*c, t0 + 45s, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 4.0);
  writeDevice("mlx5_0", "5");
  p = pollAt(*c, t0 + 50s, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 4.0);
  p = pollAt(*c, t0 + 55s, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 5.0);
}

TEST_F(ExportOnlySlots, ADeletedFileIsAnErrorAtTheNextPollNotAHeldValue) {
  const Topology topo = devices({"mlx5_0"});
  auto c = polledOnce(topo);
  const auto t0 = kT0;
  std::filesystem::remove(tree_.root() / "class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer");
  Poll p = pollAt(*c, t0 + 1s, topo);
  EXPECT_FALSE(p.has(std::string(kCold))) << "its directory changed: the file is read, and is gone";
  EXPECT_EQ(p.errors, 1u);
  EXPECT_EQ(p.value(std::string(kHot)), 1.0);
}

TEST_F(ExportOnlySlots, AFailedReadDropsTheValueAndIsRetriedAtTheNextPoll) {
  const Topology topo = devices({"mlx5_0"});
  auto c = polledOnce(topo);
  const auto t0 = kT0;
  tree_.write("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", "garbage\n");
  Poll p = pollAt(*c, t0 + 1s, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 1.0) << "not read before its interval";
  p = pollAt(*c, t0 + 10s, topo);
  EXPECT_FALSE(p.has(std::string(kCold))) << "a value outside the domain is never exported";
  EXPECT_EQ(p.errors, 1u);
  p = pollAt(*c, t0 + 11s, topo);
  EXPECT_FALSE(p.has(std::string(kCold)));
  EXPECT_EQ(p.errors, 1u) << "retried at the next poll, not after another interval";
  tree_.write("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", "5\n");
  p = pollAt(*c, t0 + 12s, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 5.0);
  EXPECT_EQ(p.errors, 0u);
  tree_.write("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", "6\n");
  p = pollAt(*c, t0 + 13s, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 5.0) << "held again once read";
}

TEST_F(ExportOnlySlots, ADeviceThatAppearsBetweenIntervalsIsReadWhole) {
  auto c = polledOnce(devices({"mlx5_0"}));
  const auto t0 = kT0;
  writeDevice("mlx5_1", "7");
  Topology two = devices({"mlx5_0", "mlx5_1"});
  two.generation = 2;
  Poll p = pollAt(*c, t0 + 3s, two);
  EXPECT_EQ(p.value("fabricmon_hw_stat_total{device=\"mlx5_1\",port=\"1\",counter=\"out_of_buffer\"}"), 7.0);
  EXPECT_EQ(p.value(std::string(kCold)), 1.0);
}

TEST_F(ExportOnlySlots, ASaturationFlagIsHeldWithItsCounter) {
  // Nothing read at every poll: the PMA's 8-bit link_downed and its saturation flag are both held.
  auto demand = std::make_shared<PollDemand>(*sources_.demand);
  demand->readsEveryPoll = [](const Series&) { return false; };
  sources_.demand = demand;
  const std::string file = "class/infiniband/mlx5_0/ports/1/counters/link_downed";
  tree_.write(file, "255\n");
  const std::string count = "fabricmon_port_link_downed_total{device=\"mlx5_0\",port=\"1\"}";
  const std::string flag = "fabricmon_port_pma_saturated{device=\"mlx5_0\",port=\"1\",counter=\"link_downed\"}";
  auto c = makeCollector("pma_counters", sources_, config_);
  const Topology topo = devices({"mlx5_0"});
  Poll p = pollAt(*c, kT0, topo);
  ASSERT_EQ(p.value(count), 255.0);
  EXPECT_EQ(p.value(flag), 1.0);
  tree_.write(file, "3\n");
  p = pollAt(*c, kT0 + 1s, topo);
  EXPECT_EQ(p.value(count), 255.0);
  EXPECT_EQ(p.value(flag), 1.0) << "held with the value it was read with";
  p = pollAt(*c, kT0 + 10s, topo);
  EXPECT_EQ(p.value(count), 3.0);
  EXPECT_EQ(p.value(flag), 0.0);
}

TEST_F(ExportOnlySlots, WithoutADemandEveryFileIsReadAtEveryPoll) {
  sources_.demand = nullptr;
  auto c = makeCollector("hw_counters", sources_, config_);
  const Topology topo = devices({"mlx5_0"});
  pollAt(*c, kT0, topo);
  writeDevice("mlx5_0", "2");
  const Poll p = pollAt(*c, kT0, topo);
  EXPECT_EQ(p.value(std::string(kCold)), 2.0);
  EXPECT_EQ(p.value(std::string(kHot)), 2.0);
}

}  // namespace
}  // namespace fabricmon
