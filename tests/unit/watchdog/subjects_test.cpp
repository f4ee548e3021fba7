// The rules' subjects (watchdog/subjects.hpp): the port join (one row per port, sorted, the row
// naming an interface preferred), each subject's handles finding its series by family and further
// key labels, and the index following the history in the ingest that adds or frees a series (a
// vanished series leaves no handle behind).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>

#include "model/families/ethtool.hpp"
#include "model/families/netdev.hpp"
#include "model/families/port.hpp"
#include "model/families/roce.hpp"
#include "model/families/topology.hpp"
#include "model/store.hpp"
#include "watchdog/history.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon::watchdog {
namespace {

namespace port = families::port;
namespace ethtool = families::ethtool;

SeriesPtr info(const std::string& device, const std::string& p, const std::string& iface, const std::string& layer) {
  return makeSeries(port::kPortInfo, {{"device", device}, {"port", p}, {"interface", iface}, {"link_layer", layer}});
}
SeriesPtr state(const std::string& device, const std::string& p) {
  return makeSeries(port::kPortState, {{"device", device}, {"port", p}});
}
SeriesPtr pause(const std::string& iface, const std::string& prio, const std::string& dir) {
  return makeSeries(ethtool::kPfcPauseSeconds, {{"interface", iface}, {"priority", prio}, {"direction", dir}});
}

class SubjectsTest : public ::testing::Test {
 protected:
  void publish(const std::string& collector, std::vector<testing::OwnedSample> samples) {
    auto batch = std::make_shared<Batch>();
    batch->collector = collector;
    now_ += std::chrono::seconds(1);
    batch->monotonic = now_;
    testing::writeSamples(*batch, samples);
    snapshot_.batches[collector] = std::move(batch);
    ++snapshot_.generation;
    history_.ingest(snapshot_);
  }
  const Subjects& subjects() const { return history_.subjects(); }

  History history_;
  Snapshot snapshot_;
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
};

TEST_F(SubjectsTest, PortsAreSortedAndTheRowNamingAnInterfaceWins) {
  publish("rdma_port", {{state("mlx5_1", "1"), 4},
                        {state("mlx5_0", "1"), 4},
                        {info("mlx5_0", "1", "eth0", "Ethernet"), 1},
                        {state("mlx5_0", "2"), 1}});
  const auto& ports = subjects().ports();
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0].device, "mlx5_0");
  EXPECT_EQ(ports[0].port, "1");
  EXPECT_EQ(ports[0].interface, "eth0");  // the port_info row, not port_state's
  EXPECT_TRUE(ports[0].roce());
  EXPECT_EQ(ports[1].port, "2");
  EXPECT_EQ(ports[1].interface, "");
  EXPECT_EQ(ports[2].device, "mlx5_1");
  EXPECT_EQ(subjects().byPort("mlx5_0", "2"), &ports[1]);
  EXPECT_EQ(subjects().byPort("mlx5_9", "1"), nullptr);
  // The join both ways: the port names its interface, the interface knows its port.
  ASSERT_NE(ports[0].iface, nullptr);
  EXPECT_EQ(ports[0].iface->name, "eth0");
  EXPECT_EQ(subjects().byInterface("eth0"), &ports[0]);
  EXPECT_EQ(subjects().byInterface("eth9"), nullptr);
  // Each port's handle reads its own series.
  ASSERT_NE(ports[0].in(Fam::kPortState), nullptr);
  EXPECT_EQ(ports[0].in(Fam::kPortState)->raw, 4);
  EXPECT_EQ(ports[1].in(Fam::kPortState)->raw, 1);
  EXPECT_EQ(ports[1].in(Fam::kPortRate), nullptr);
}

TEST_F(SubjectsTest, AnInterfaceFindsItsSeriesByTheirFurtherKeyLabels) {
  publish("ethtool_pfc", {{pause("eth0", "3", "rx"), 1},
                          {pause("eth0", "3", "tx"), 2},
                          {pause("eth0", "10", "rx"), 3},
                          {pause("eth1", "3", "rx"), 4},
                          {makeSeries(families::netdev::kUp, {{"interface", "eth0"}}), 1}});
  const IfaceRef* eth0 = subjects().interface("eth0");
  ASSERT_NE(eth0, nullptr);
  EXPECT_EQ(eth0->port, nullptr);  // no RDMA port names it
  ASSERT_NE(eth0->in(Fam::kPauseSeconds, "3", "tx"), nullptr);
  EXPECT_EQ(eth0->in(Fam::kPauseSeconds, "3", "tx")->raw, 2);
  EXPECT_EQ(eth0->in(Fam::kPauseSeconds, "10", "rx")->raw, 3);
  EXPECT_EQ(eth0->in(Fam::kPauseSeconds, "1", "rx"), nullptr);  // "1" is not a prefix match of "10"
  EXPECT_EQ(eth0->in(Fam::kPauseSeconds, "3"), nullptr);         // every key label must match
  EXPECT_EQ(eth0->in(Fam::kPauseSeconds, "10", "r"), nullptr);   // nor is "r" of "rx"
  EXPECT_EQ(eth0->in(Fam::kPauseSeconds, "100", "rx"), nullptr); // nor "10" of a longer want
  EXPECT_EQ(eth0->in(Fam::kPauseSeconds, "3", "rx", "x"), nullptr);  // a third label it has not
  EXPECT_EQ(eth0->in(Fam::kNetdevUp)->raw, 1);
  EXPECT_EQ(subjects().interface("eth1")->in(Fam::kPauseSeconds, "3", "rx")->raw, 4);
  EXPECT_EQ(subjects().interface("eth1")->in(Fam::kNetdevUp), nullptr);
  // Every series of a family, in key order, with its further labels.
  const auto all = eth0->inputs.all(Fam::kPauseSeconds);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(eth0->inputs.label(*all[0]), "10");
  EXPECT_EQ(eth0->inputs.label(*all[0], 1), "rx");
  EXPECT_EQ(eth0->inputs.label(*all[2]), "3");
  EXPECT_EQ(eth0->inputs.label(*all[2], 1), "tx");
}

// Lookups by further labels against what was published, over label values that are prefixes of
// one another, empty, or hold characters that sort below and above the key's separator.
TEST_F(SubjectsTest, EveryLookupFindsExactlyThePublishedSeries) {
  const std::vector<std::string> values = {"", "1", "10", "100", "1a", "1 ", "1\x01", "2", "a", "a\x7f", "\xc3\xa9"};
  std::mt19937 random(5);
  for (int round = 0; round < 40; ++round) {
    std::map<std::pair<std::string, std::string>, double> published;
    std::vector<testing::OwnedSample> samples;
    for (const auto& prio : values) {
      for (const auto& dir : values) {
        if (std::uniform_int_distribution<int>(0, 2)(random) != 0) continue;
        const double raw = double(samples.size() + 1);
        published[{prio, dir}] = raw;
        samples.push_back({pause("eth" + std::to_string(round), prio, dir), raw});
      }
    }
    publish("ethtool_pfc", std::move(samples));
    const IfaceRef* iface = subjects().interface("eth" + std::to_string(round));
    ASSERT_NE(iface, nullptr);
    for (const auto& prio : values) {
      for (const auto& dir : values) {
        const Tracked* got = iface->in(Fam::kPauseSeconds, prio, dir);
        const auto want = published.find({prio, dir});
        if (want == published.end()) {
          EXPECT_EQ(got, nullptr) << "round " << round << " \"" << prio << "\" \"" << dir << "\"";
        } else {
          ASSERT_NE(got, nullptr) << "round " << round << " \"" << prio << "\" \"" << dir << "\"";
          EXPECT_EQ(got->raw, want->second) << "round " << round << " \"" << prio << "\" \"" << dir << "\"";
        }
      }
    }
    // A published pair asked for with a third label the series do not have: never a match.
    for (const auto& [pair, raw] : published) {
      EXPECT_EQ(iface->in(Fam::kPauseSeconds, pair.first, pair.second, "y"), nullptr)
          << "round " << round << " \"" << pair.first << "\" \"" << pair.second << "\"";
    }
    // A port's family with one further label: its key ends at that label, so a series' further
    // labels can equal the wanted one exactly (the only hw counter a rule reads, among others).
    publish("rdma_port", {{state("mlx5_0", "1"), 4}});
    std::vector<testing::OwnedSample> hw;
    for (const char* name : {"roce_adp_retran", "roce_adp_retrans", "roce_adp_retrans_to", "roce_adp_retrant"}) {
      hw.push_back({makeSeries(families::roce::kHwCounter, {{"device", "mlx5_0"}, {"port", "1"}, {"counter", name}}),
                    double(round)});
    }
    publish("hw_counters", std::move(hw));
    ASSERT_EQ(subjects().ports().size(), 1u);
    const PortRef& port = subjects().ports()[0];
    ASSERT_NE(port.in(Fam::kHwCounter, "roce_adp_retrans"), nullptr) << "round " << round;
    EXPECT_EQ(port.in(Fam::kHwCounter, "roce_adp_retrans")->raw, double(round));
    EXPECT_EQ(port.in(Fam::kHwCounter, "roce_adp_retran"), nullptr);
    EXPECT_EQ(port.in(Fam::kHwCounter, "roce_adp_retrans", "x"), nullptr);
  }
}

TEST_F(SubjectsTest, TheIndexFollowsSeriesThatAppearAndGo) {
  publish("rdma_port", {{state("mlx5_0", "1"), 4}, {info("mlx5_0", "1", "eth0", "Ethernet"), 1}});
  publish("ethtool_pfc", {{pause("eth0", "3", "rx"), 1}});
  ASSERT_NE(subjects().interface("eth0")->in(Fam::kPauseSeconds, "3", "rx"), nullptr);
  EXPECT_EQ(subjects().interface("eth0")->port->device, "mlx5_0");
  // The device goes: its port and the port's interface with it, in the same ingest.
  publish("rdma_port", {});
  EXPECT_TRUE(subjects().ports().empty());
  ASSERT_NE(subjects().interface("eth0"), nullptr);  // still has its pause series
  EXPECT_EQ(subjects().interface("eth0")->port, nullptr);
  publish("ethtool_pfc", {{pause("eth0", "3", "tx"), 1}});  // rx vanished, tx appeared
  EXPECT_EQ(subjects().interface("eth0")->in(Fam::kPauseSeconds, "3", "rx"), nullptr);
  EXPECT_NE(subjects().interface("eth0")->in(Fam::kPauseSeconds, "3", "tx"), nullptr);
  EXPECT_EQ(history_.size(), 1u);
}

TEST_F(SubjectsTest, ALabelBeyondTheKeyThatChangesIsReadFresh) {
  // port_info's link_layer is not a key label: the subject must not keep a view of the old series.
  publish("rdma_port", {{info("mlx5_0", "1", "ib0", "InfiniBand"), 1}});
  EXPECT_TRUE(subjects().ports()[0].infiniband());
  publish("rdma_port", {{info("mlx5_0", "1", "ib0", "Ethernet"), 1}});
  ASSERT_EQ(subjects().ports().size(), 1u);
  EXPECT_EQ(subjects().ports()[0].linkLayer, "Ethernet");
}

}  // namespace
}  // namespace fabricmon::watchdog
