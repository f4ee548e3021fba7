// The demo's InfiniBand far end (sim/demo_mad_source.cpp) through the real peer_port collector,
// over a tree the simulator writes: the demo node's InfiniBand port gets its switch neighbour and
// the switch's counters mirror ours; a port whose link is down gets no answer from across the cable.
#include "sim/demo_mad_source.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "collectors/error_tracker.hpp"
#include "collectors/peer_port_collector.hpp"
#include "sim/simulator.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon {
namespace {

namespace fs = std::filesystem;

class DemoMadSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::SimOptions options;
    options.root = dir_;
    sim_ = std::make_unique<sim::Simulator>(options);
    ASSERT_TRUE(sim_->init().ok());
    ASSERT_TRUE(sim_->tick(std::chrono::seconds(2)).ok());
    sysfs_ = std::make_shared<SysfsRoot>(dir_ / "sys");
    for (const auto& p : sim_->ports()) {
      if (p.linkLayer == "InfiniBand") ib_ = p.device;
    }
    ASSERT_FALSE(ib_.empty());
  }
  std::map<std::string, double> poll(Collector& c, uint64_t* errors = nullptr) {
    Batch batch;
    CollectOutput out(batch, errors_);
    const std::vector<Sample>& samples = batch.samples;
    c.collect(Topology{}, out);
    if (errors != nullptr) *errors = out.errorCount();
    std::map<std::string, double> byKey;
    for (const Sample& s : samples) byKey[s.series->key] = s.value;
    return byKey;
  }
  uint64_t counter(const std::string& name) {
    std::ifstream in(dir_ / "sys/class/infiniband" / ib_ / "ports/1/counters" / name);
    uint64_t v = 0;
    in >> v;
    return v;
  }

  testing::TempDir tmp_{"fabricmon-demo-mad"};
  const fs::path& dir_ = tmp_.path();
  std::unique_ptr<sim::Simulator> sim_;
  std::shared_ptr<SysfsRoot> sysfs_;
  std::string ib_;
  ErrorTracker errors_{"peer_port"};
};

TEST_F(DemoMadSourceTest, TheInfinibandPortFacesItsPodsLeafAndTheCountersMirrorOurs) {
  auto collector = makePeerPortCollector(std::shared_ptr<MadSource>(makeDemoMadSource(sysfs_, "su2", 7)));
  const auto m = poll(*collector);
  const std::string port = R"(device=")" + ib_ + R"(",port="1")";
  bool identified = false;
  for (const auto& [key, value] : m) {
    if (key.starts_with("fabricmon_port_neighbor_info{" + port)) {
      EXPECT_NE(key.find(R"(chassis_name="su2-ib-leaf")"), std::string::npos) << key;
      EXPECT_NE(key.find(R"(port_id="7")"), std::string::npos) << key;
      EXPECT_NE(key.find(R"(source="mad")"), std::string::npos) << key;
      identified = true;
    }
  }
  EXPECT_TRUE(identified) << "no fabricmon_port_neighbor_info for " << ib_;
  // What the switch port sent us is what we received (sysfs data counters are 4-byte words).
  ASSERT_TRUE(m.count("fabricmon_peer_port_transmit_bytes_total{" + port + "}"));
  EXPECT_EQ(m.at("fabricmon_peer_port_transmit_bytes_total{" + port + "}"), 4.0 * counter("port_rcv_data"));
  EXPECT_EQ(m.at("fabricmon_peer_port_receive_bytes_total{" + port + "}"), 4.0 * counter("port_xmit_data"));
  EXPECT_GT(counter("port_rcv_data"), 0u);
  EXPECT_EQ(m.at("fabricmon_peer_port_link_width_active_lanes{" + port + "}"), 4.0);
}

TEST_F(DemoMadSourceTest, ADownLinkHasNoNeighbour) {
  auto collector = makePeerPortCollector(std::shared_ptr<MadSource>(makeDemoMadSource(sysfs_, "su1", 1)));
  auto hasNeighbour = [](const std::map<std::string, double>& m) {
    return std::any_of(m.begin(), m.end(), [](const auto& kv) { return kv.first.starts_with("fabricmon_peer_port_info"); });
  };
  EXPECT_TRUE(hasNeighbour(poll(*collector)));
  std::ofstream(dir_ / "sys/class/infiniband" / ib_ / "ports/1/state", std::ios::trunc) << "1: DOWN\n";
  std::ofstream(dir_ / "sys/class/infiniband" / ib_ / "ports/1/phys_state", std::ios::trunc) << "2: Polling\n";
  uint64_t errors = 0;
  EXPECT_FALSE(hasNeighbour(poll(*collector, &errors))) << "a neighbour across a down link";
  EXPECT_EQ(errors, 0u) << "a down port is not queried, so it is no MAD error";
}

}  // namespace
}  // namespace fabricmon
