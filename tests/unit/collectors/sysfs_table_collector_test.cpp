// The table-driven sysfs collector: each row is read from every interface's or RDMA port's
// directory, scaled, labelled by its scope; an optional file's absence is not an error, a
// required one's is.
#include "collectors/sysfs_table_collector.hpp"

#include <gtest/gtest.h>

#include "collectors/error_tracker.hpp"
#include "rdma_test_support.hpp"

namespace fabricmon {
namespace {

using testing::Poll;
using testing::TempTree;

constexpr FamilyDef kBytes{"test_bytes_total", "bytes", MetricType::kCounter};
constexpr FamilyDef kExtra{"test_extra_total", "an optional file", MetricType::kCounter};
constexpr FamilyDef kState{"test_state", "port state", MetricType::kGauge};
constexpr const FamilyDef* kFamilies[] = {&kBytes, &kExtra, &kState};

constexpr SysfsFileRow kPortRows[] = {
    {"counters/words", &kBytes, SlotParse::kCounter, 4.0},
    {"counters/extra", &kExtra, SlotParse::kCounter, 1.0, true},
    {"state", &kState, SlotParse::kPortState},
};
constexpr SysfsTable kPortTable{SysfsScope::kRdmaPort, kPortRows, kFamilies};

constexpr SysfsFileRow kNetdevRows[] = {{"stat", &kBytes}};
constexpr SysfsTable kNetdevTable{SysfsScope::kNetdev, kNetdevRows, kFamilies};

Topology twoPortsOneNetdev() {
  Topology t;
  RdmaDevice d;
  d.name = "mlx5_0";
  d.ports = {RdmaPort{1, "Ethernet", {"eth0"}}, RdmaPort{2, "Ethernet", {"eth1"}}};
  t.devices.push_back(d);
  t.netdevs.push_back(Netdev{"eth0", "", "mlx5_0", 1});
  return t;
}

TEST(SysfsTableCollector, ReadsEveryRowOfEveryPortScaledAndLabelled) {
  TempTree tree;
  for (const char* p : {"1", "2"}) {
    const std::string dir = std::string("class/infiniband/mlx5_0/ports/") + p + "/";
    tree.write(dir + "counters/words", p[0] == '1' ? "10\n" : "20\n");
    tree.write(dir + "state", "4: ACTIVE\n");
  }
  tree.write("class/infiniband/mlx5_0/ports/2/counters/extra", "7\n");
  auto collector = makeSysfsTableCollector(kPortTable, std::make_shared<SysfsRoot>(tree.root()));
  ErrorTracker tracker("test");
  const Poll poll = testing::poll(*collector, twoPortsOneNetdev(), tracker);
  EXPECT_EQ(poll.status, CollectStatus::kOk);
  EXPECT_EQ(poll.value(R"(test_bytes_total{device="mlx5_0",port="1"})"), 40.0);
  EXPECT_EQ(poll.value(R"(test_bytes_total{device="mlx5_0",port="2"})"), 80.0);
  EXPECT_EQ(poll.value(R"(test_state{device="mlx5_0",port="1"})"), 4.0);
  EXPECT_EQ(poll.value(R"(test_extra_total{device="mlx5_0",port="2"})"), 7.0);
  EXPECT_FALSE(poll.has(R"(test_extra_total{device="mlx5_0",port="1"})"));
  EXPECT_EQ(poll.errors, 0u) << "an optional file that is absent is not an error";
}

TEST(SysfsTableCollector, NetdevScopeAndAMissingRequiredFileIsOneError) {
  TempTree tree;
  tree.write("class/net/eth0/stat", "5\n");
  auto collector = makeSysfsTableCollector(kNetdevTable, std::make_shared<SysfsRoot>(tree.root()));
  ErrorTracker tracker("test");
  Poll poll = testing::poll(*collector, twoPortsOneNetdev(), tracker);
  EXPECT_EQ(poll.value(R"(test_bytes_total{interface="eth0"})"), 5.0);
  EXPECT_EQ(poll.errors, 0u);

  tree.write("class/net/eth0/stat", "five\n");  // outside the domain: a skipped sample, counted
  poll = testing::poll(*collector, twoPortsOneNetdev(), tracker);
  EXPECT_FALSE(poll.has(R"(test_bytes_total{interface="eth0"})"));
  EXPECT_EQ(poll.errors, 1u);
}

}  // namespace
}  // namespace fabricmon
