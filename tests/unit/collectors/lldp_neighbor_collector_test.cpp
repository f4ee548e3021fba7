// The lldp_neighbors collector (collectors/lldp_neighbor_collector.cpp) over a fake LldpSource:
// which interfaces it reports, under which device and port, and what it does when lldpd is absent,
// failing or re-cabled.

#include <cerrno>
#include <map>

#include <gtest/gtest.h>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/lldp_source.hpp"
#include "config/config.hpp"

namespace fabricmon {
namespace {

class FakeLldp final : public LldpSource {
 public:
  Result<std::vector<LldpNeighbor>> answer = std::vector<LldpNeighbor>{};
  Result<std::vector<LldpNeighbor>> neighbors() override { return answer; }
};

struct PollResult {
  CollectStatus status{};
  uint64_t errors = 0;
  std::map<std::string, SeriesPtr> series;  ///< by key
};

class LldpNeighborCollectorTest : public ::testing::Test {
 protected:
  LldpNeighborCollectorTest() {
    Sources sources;
    sources.lldp = fake_;
    collector_ = makeCollector("lldp_neighbors", sources, Config{});
    // Two RoCE ports and a bond slave fabricmon watches; eth0 (the node's own uplink) it does not.
    topology_.netdevs = {Netdev{"bond0s1", "0000:b1:00.1", "", 0, "mlx5_core"},
                         Netdev{"ens1f0np0", "0000:1a:00.0", "mlx5_0", 1, "mlx5_core"},
                         Netdev{"ens2f0np0", "0000:3c:00.0", "mlx5_1", 1, "mlx5_core"}};
  }

  PollResult poll() {
    Batch batch;
    CollectOutput out(batch, errors_);
    const std::vector<Sample>& samples = batch.samples;
    PollResult r;
    r.status = collector_->collect(topology_, out);
    r.errors = out.errorCount();
    for (size_t i = 0; i < samples.size(); ++i) {
      const Sample& s = samples[i];
      EXPECT_EQ(s.value, 1.0) << s.series->key;
      r.series[s.series->key] = batch.seriesAt(i);
    }
    return r;
  }

  std::shared_ptr<FakeLldp> fake_ = std::make_shared<FakeLldp>();
  std::unique_ptr<Collector> collector_;
  Topology topology_;
  ErrorTracker errors_{"lldp_neighbors"};
};

std::string key(const std::string& device, const std::string& port, const std::string& iface,
                const std::string& chassis, const std::string& portId, const std::string& descr = "") {
  return R"(fabricmon_port_neighbor_info{device=")" + device + R"(",port=")" + port + R"(",interface=")" + iface +
         R"(",chassis_name=")" + chassis + R"(",chassis_id="02:00:00:00:00:01",port_id=")" + portId +
         R"(",port_description=")" + descr + R"(",source="lldp"})";
}

TEST_F(LldpNeighborCollectorTest, ReportsWatchedInterfacesUnderTheirRdmaPort) {
  fake_->answer = std::vector<LldpNeighbor>{{"eth0", "mgmt-sw", "02:00:00:00:00:01", "Gi1/0/4", ""},
                                            {"ens1f0np0", "leaf-1", "02:00:00:00:00:01", "swp7", "gpu01 rail 0"},
                                            {"bond0s1", "leaf-2", "02:00:00:00:00:01", "swp8", ""}};
  const PollResult r = poll();
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);
  ASSERT_EQ(r.series.size(), 2u) << "eth0 is not watched and must not be reported";
  EXPECT_TRUE(r.series.count(key("mlx5_0", "1", "ens1f0np0", "leaf-1", "swp7", "gpu01 rail 0")));
  // A netdev matched without an RDMA device behind it: device and port empty, as on every family.
  EXPECT_TRUE(r.series.count(key("", "", "bond0s1", "leaf-2", "swp8")));
}

TEST_F(LldpNeighborCollectorTest, ARecabledPortReplacesItsNeighbourAndTheOldSeriesIsReleased) {
  fake_->answer = std::vector<LldpNeighbor>{{"ens1f0np0", "leaf-1", "02:00:00:00:00:01", "swp7", ""}};
  std::weak_ptr<const Series> old;
  {
    const PollResult first = poll();
    ASSERT_EQ(first.series.size(), 1u);
    const SeriesPtr same = first.series.begin()->second;
    // Unchanged: the very same series object (identity made once, not per poll).
    EXPECT_EQ(poll().series.begin()->second, same);
    old = same;
  }
  fake_->answer = std::vector<LldpNeighbor>{{"ens1f0np0", "leaf-9", "02:00:00:00:00:01", "swp1", ""}};
  const PollResult second = poll();
  ASSERT_EQ(second.series.size(), 1u);
  EXPECT_TRUE(second.series.count(key("mlx5_0", "1", "ens1f0np0", "leaf-9", "swp1")));
  EXPECT_TRUE(old.expired()) << "the collector still holds leaf-1's series";
}

TEST_F(LldpNeighborCollectorTest, NoLldpdIsNoDataAndForgetsTheNeighbours) {
  fake_->answer = std::vector<LldpNeighbor>{{"ens1f0np0", "leaf-1", "02:00:00:00:00:01", "swp7", ""}};
  std::weak_ptr<const Series> old = poll().series.begin()->second;
  fake_->answer = Error{"no lldpd control socket at /run/lldpd.socket", ENOENT};
  const PollResult r = poll();
  EXPECT_EQ(r.status, CollectStatus::kNoData);
  EXPECT_EQ(r.errors, 0u);
  EXPECT_TRUE(r.series.empty());
  EXPECT_TRUE(old.expired());
}

TEST_F(LldpNeighborCollectorTest, AFailingLldpcliIsACountedErrorNotNoData) {
  fake_->answer = Error{"/usr/sbin/lldpcli exited with 1: unable to connect to socket", EIO};
  const PollResult r = poll();
  EXPECT_EQ(r.status, CollectStatus::kFailed);
  EXPECT_EQ(r.errors, 1u);
  EXPECT_TRUE(r.series.empty());
}

TEST_F(LldpNeighborCollectorTest, ANodeWithoutWatchedInterfacesDoesNotAskLldpd) {
  topology_.netdevs.clear();
  fake_->answer = Error{"must not be asked", EIO};
  EXPECT_EQ(poll().status, CollectStatus::kNoData);
}

}  // namespace
}  // namespace fabricmon
