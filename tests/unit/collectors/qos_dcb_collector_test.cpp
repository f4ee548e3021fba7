// dcb_config over the YAML file source (tests/fixtures/qos/dcb) and the intended QoS from config.

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"
#include "qos_test_support.hpp"

namespace fabricmon {
namespace {

using qos_test::countFamily;
using qos_test::TempDir;
using qos_test::valueOf;
using qos_test::writeFile;

const std::filesystem::path kFixtures = QOS_FIXTURE_DIR;

struct RunResult {
  std::vector<Sample> samples;
  SeriesRosterPtr roster;  ///< keeps the samples' series alive
  CollectStatus status;
  uint64_t errors;
  std::set<std::string> unread;  ///< Batch::unread, by Series::key
};

class DcbCollectorTest : public ::testing::Test {
 protected:
  std::unique_ptr<Collector> make(const std::filesystem::path& dcbDir,
                                  const Config& config = Config{}) {
    Sources sources;
    sources.dcb = makeDcbFileSource(dcbDir);
    return makeCollector("dcb_config", sources, config);
  }

  RunResult run(Collector& c, std::vector<std::string> ifnames) {
    Topology topo;
    for (auto& n : ifnames) topo.netdevs.push_back(Netdev{std::move(n), "", "", 0});
    RunResult r;
    Batch batch;
    CollectOutput out(batch, tracker_);
    r.status = c.collect(topo, out);
    r.errors = out.errorCount();
    r.roster = out.finish();
    r.samples = batch.samples;
    for (const SeriesPtr& series : batch.unread) r.unread.insert(series->key);
    return r;
  }

  ErrorTracker tracker_{"dcb_config"};
};

constexpr const char* kDefaultIntent =
    "fabricmon_qos_intent_info{roce_priority=\"3\",roce_dscp=\"26\",cnp_priority=\"6\",cnp_dscp="
    "\"48\",dcqcn=\"on\"}";

TEST_F(DcbCollectorTest, ExportsPfcTrustAndDscpMap) {
  auto c = make(kFixtures / "dcb");
  const RunResult r = run(*c, {"eth0"});
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);
  for (int p = 0; p < 8; ++p) {
    EXPECT_EQ(valueOf(r.samples, "fabricmon_pfc_enabled{interface=\"eth0\",priority=\"" +
                                     std::to_string(p) + "\"}"),
              p == 3 ? 1 : 0)
        << p;
  }
  EXPECT_EQ(valueOf(r.samples, "fabricmon_dcb_trust_dscp{interface=\"eth0\"}"), 1);
  EXPECT_EQ(valueOf(r.samples, "fabricmon_dcb_dscp_priority{interface=\"eth0\",dscp=\"26\"}"), 3);
  EXPECT_EQ(valueOf(r.samples, "fabricmon_dcb_dscp_priority{interface=\"eth0\",dscp=\"48\"}"), 6);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcb_dscp_priority"), 2u);
  // The file has no counters, DCBX mode or timeout: those series are absent, not zero.
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcb_pfc_requests_total"), 0u);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcb_dcbx_mode"), 0u);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_pfc_storm_prevention_timeout_seconds"), 0u);
  EXPECT_EQ(valueOf(r.samples, kDefaultIntent), 1);
  EXPECT_EQ(r.samples.size(), 8u + 1u + 2u + 1u);
}

TEST_F(DcbCollectorTest, ExportsCountersDcbxAndStormTimeout) {
  auto c = make(kFixtures / "dcb");
  const RunResult r = run(*c, {"eth1"});
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(valueOf(r.samples, "fabricmon_dcb_trust_dscp{interface=\"eth1\"}"), 0);
  EXPECT_EQ(
      valueOf(r.samples, "fabricmon_dcb_pfc_requests_total{interface=\"eth1\",priority=\"3\"}"),
      1234);
  EXPECT_EQ(
      valueOf(r.samples, "fabricmon_dcb_pfc_requests_total{interface=\"eth1\",priority=\"4\"}"), 7);
  EXPECT_EQ(
      valueOf(r.samples, "fabricmon_dcb_pfc_indications_total{interface=\"eth1\",priority=\"3\"}"),
      5678);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcb_pfc_requests_total"), 8u);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcb_pfc_indications_total"), 8u);
  EXPECT_EQ(valueOf(r.samples, "fabricmon_dcb_dcbx_mode{interface=\"eth1\"}"), 9);
  EXPECT_EQ(
      valueOf(r.samples, "fabricmon_pfc_storm_prevention_timeout_seconds{interface=\"eth1\"}"),
      0.1);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcb_dscp_priority"), 0u);
}

TEST_F(DcbCollectorTest, BrokenFileSkipsOnlyThatInterfaceAndMissingFileIsSilent) {
  auto c = make(kFixtures / "dcb");
  const RunResult r = run(*c, {"broken0", "eth0", "eth9"});  // eth9: no file = no DCB information
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(tracker_.failingCount(), 1u);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_pfc_enabled"), 8u);
  for (const auto& s : r.samples) {
    if (s.series->family->name != "fabricmon_qos_intent_info") {
      EXPECT_EQ(s.series->label("interface"), "eth0");
    }
  }
}

TEST_F(DcbCollectorTest, EveryInterfaceFailingIsAFailedRun) {
  TempDir dir;
  writeFile(dir.path() / "eth0", "");
  writeFile(dir.path() / "eth1", "pfc_enabled: [9]\n");
  auto c = make(dir.path());
  const RunResult r = run(*c, {"eth0", "eth1"});
  EXPECT_EQ(r.status, CollectStatus::kFailed);
  EXPECT_EQ(r.errors, 2u);
  EXPECT_EQ(valueOf(r.samples, kDefaultIntent), 1);  // the intent does not depend on the source
}

TEST_F(DcbCollectorTest, IntentFollowsConfig) {
  Config config;
  config.qos.rocePriority = 4;
  config.qos.roceDscp = 34;
  config.qos.cnpPriority = 7;
  config.qos.cnpDscp = 56;
  config.qos.dcqcnEnabled = false;
  auto c = make(kFixtures / "dcb", config);
  const RunResult r = run(*c, {});
  EXPECT_EQ(r.status, CollectStatus::kOk);
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_EQ(r.samples[0].series->key,
            "fabricmon_qos_intent_info{roce_priority=\"4\",roce_dscp=\"34\",cnp_priority=\"7\",cnp_"
            "dscp=\"56\","
            "dcqcn=\"off\"}");
  EXPECT_EQ(r.samples[0].value, 1);
}

TEST_F(DcbCollectorTest, FollowsFileChangesAndDropsVanishedDscpEntries) {
  TempDir dir;
  writeFile(dir.path() / "eth0",
            "pfc_enabled: [3]\ntrust: dscp\ndscp_to_priority: {26: 3, 48: 6}\n");
  auto c = make(dir.path());
  const RunResult first = run(*c, {"eth0"});
  writeFile(dir.path() / "eth0", "pfc_enabled: []\ntrust: pcp\ndscp_to_priority: {26: 4}\n");
  const RunResult second = run(*c, {"eth0"});
  EXPECT_EQ(valueOf(second.samples, "fabricmon_pfc_enabled{interface=\"eth0\",priority=\"3\"}"), 0);
  EXPECT_EQ(valueOf(second.samples, "fabricmon_dcb_trust_dscp{interface=\"eth0\"}"), 0);
  EXPECT_EQ(valueOf(second.samples, "fabricmon_dcb_dscp_priority{interface=\"eth0\",dscp=\"26\"}"),
            4);
  EXPECT_FALSE(
      valueOf(second.samples, "fabricmon_dcb_dscp_priority{interface=\"eth0\",dscp=\"48\"}")
          .has_value());
  // The same series objects are reused from one run to the next.
  EXPECT_EQ(first.samples.front().series, second.samples.front().series);
}

TEST_F(DcbCollectorTest, FamiliesListEveryEmittedName) {
  auto c = make(kFixtures / "dcb");
  const RunResult r = run(*c, {"eth0", "eth1"});
  for (const auto& s : r.samples) {
    bool listed = false;
    for (const FamilyDef* f : c->families()) listed |= f == s.series->family;
    EXPECT_TRUE(listed) << s.series->key;
  }
  EXPECT_EQ(c->families().size(), 8u);
}

TEST_F(DcbCollectorTest, DscpValuesUpdateInPlaceAndTheSetFollowsTheFile) {
  TempDir dir;
  const auto file = dir.path() / "eth0";
  writeFile(file, "pfc_enabled: [3]\ndscp_to_priority: {26: 3, 48: 6}\n");
  auto c = make(dir.path());
  auto seriesOf = [](const RunResult& r, std::string_view dscp) -> const Series* {
    for (const auto& s : r.samples) {
      if (s.series->label("dscp") == dscp) return s.series;
    }
    return nullptr;
  };
  const std::string k26 = "fabricmon_dcb_dscp_priority{interface=\"eth0\",dscp=\"26\"}";
  const std::string k46 = "fabricmon_dcb_dscp_priority{interface=\"eth0\",dscp=\"46\"}";
  const std::string k48 = "fabricmon_dcb_dscp_priority{interface=\"eth0\",dscp=\"48\"}";
  const RunResult first = run(*c, {"eth0"});
  EXPECT_EQ(valueOf(first.samples, k26), 3);

  writeFile(file, "pfc_enabled: [3]\ndscp_to_priority: {26: 4, 48: 6}\n");  // same DSCP set
  const RunResult second = run(*c, {"eth0"});
  EXPECT_EQ(valueOf(second.samples, k26), 4);
  EXPECT_EQ(valueOf(second.samples, k48), 6);
  EXPECT_EQ(seriesOf(first, "26"), seriesOf(second, "26"));

  writeFile(file, "pfc_enabled: [3]\ndscp_to_priority: {26: 4, 46: 5}\n");  // 48 out, 46 in
  const RunResult third = run(*c, {"eth0"});
  EXPECT_EQ(valueOf(third.samples, k26), 4);
  EXPECT_EQ(valueOf(third.samples, k46), 5);
  EXPECT_FALSE(valueOf(third.samples, k48).has_value());
  EXPECT_EQ(countFamily(third.samples, "fabricmon_dcb_dscp_priority"), 2u);
  EXPECT_EQ(seriesOf(first, "26"), seriesOf(third, "26"));

  writeFile(file, "pfc_enabled: [3]\n");  // no map at all
  const RunResult fourth = run(*c, {"eth0"});
  EXPECT_EQ(countFamily(fourth.samples, "fabricmon_dcb_dscp_priority"), 0u);
}

TEST_F(DcbCollectorTest, InterfaceLeavingTheTopologyFreesItsSeries) {
  auto c = make(kFixtures / "dcb");
  std::weak_ptr<const Series> eth0Series;
  {
    const RunResult both = run(*c, {"eth0", "eth1"});
    for (size_t i = 0; i < both.samples.size(); ++i) {
      if (both.samples[i].series->label("interface") == "eth0") eth0Series = both.roster->series[i];
    }
  }
  ASSERT_FALSE(eth0Series.expired());
  const RunResult one = run(*c, {"eth1"});
  EXPECT_TRUE(eth0Series.expired());
  for (const auto& s : one.samples) EXPECT_NE(s.series->label("interface"), "eth0");
  const RunResult back = run(*c, {"eth0", "eth1"});
  EXPECT_EQ(valueOf(back.samples, "fabricmon_dcb_trust_dscp{interface=\"eth0\"}"), 1);
}

TEST_F(DcbCollectorTest, BrokenFileAfterAGoodOneIsAnErrorNotTheOldValue) {
  TempDir dir;
  const auto file = dir.path() / "eth0";
  writeFile(file, "pfc_enabled: [3]\ntrust: dscp\ndscp_to_priority: {26: 3}\n");
  writeFile(dir.path() / "eth1", "pfc_enabled: [3]\n");
  auto c = make(dir.path());
  const RunResult good = run(*c, {"eth0", "eth1"});
  ASSERT_EQ(good.errors, 0u);
  EXPECT_TRUE(good.unread.empty());
  writeFile(file, "pfc_enabled: [3]\ntrust: vlan\n");
  const RunResult broken = run(*c, {"eth0", "eth1"});
  EXPECT_EQ(broken.errors, 1u);
  EXPECT_EQ(countFamily(broken.samples, "fabricmon_pfc_enabled"), 8u);  // eth1's
  EXPECT_EQ(valueOf(broken.samples, "fabricmon_pfc_enabled{interface=\"eth0\",priority=\"3\"}"), std::nullopt);
  // Not read is not gone: every series of eth0's last good read is unread, no other.
  std::set<std::string> expected;
  for (const Sample& s : good.samples) {
    if (s.series->label("interface") == "eth0") expected.insert(s.series->key);
  }
  EXPECT_EQ(expected.size(), 10u);  // 8 priorities, trust, one DSCP
  EXPECT_EQ(broken.unread, expected);
  writeFile(file, "pfc_enabled: [3]\n");
  const RunResult fixed = run(*c, {"eth0", "eth1"});
  EXPECT_EQ(fixed.errors, 0u);
  EXPECT_TRUE(fixed.unread.empty());
  EXPECT_EQ(valueOf(fixed.samples, "fabricmon_pfc_enabled{interface=\"eth0\",priority=\"3\"}"), 1);
}

}  // namespace
}  // namespace fabricmon
