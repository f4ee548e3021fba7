// dcqcn_config over the real OFED ecn/ tree of prometheus/procfs and a hand-made mlx5 debugfs tree.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <optional>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"
#include "qos_test_support.hpp"

namespace fabricmon {
namespace {

using qos_test::countFamily;
using qos_test::openFdCount;
using qos_test::replaceFile;
using qos_test::TempDir;
using qos_test::valueOf;
using qos_test::writeFile;

const std::filesystem::path kFixtures = QOS_FIXTURE_DIR;

struct RunResult {
  std::vector<Sample> samples;
  SeriesRosterPtr roster;  ///< keeps the samples' series alive
  CollectStatus status;
  uint64_t errors;
  std::vector<std::string> unread;  ///< Batch::unread, by series key
};

class DcqcnCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string err = qos_test::unpackTtar(
        kFixtures / "procfs_fixtures_sys_class_net_eth0_incl_ecn.ttar", tmp_.path());
    ASSERT_EQ(err, "");
    sysRoot_ = tmp_.path() / "fixtures" / "sys";
    ASSERT_TRUE(std::filesystem::is_directory(sysRoot_ / "class/net/eth0/ecn/roce_np/enable"));
  }

  std::unique_ptr<Collector> make(const std::filesystem::path& root) {
    Sources sources;
    sources.sysfs = std::make_shared<const SysfsRoot>(root);
    return makeCollector("dcqcn_config", sources, Config{});
  }

  RunResult run(Collector& c, const Topology& topo) {
    RunResult r;
    Batch batch;
    CollectOutput out(batch, tracker_);
    r.status = c.collect(topo, out);
    r.errors = out.errorCount();
    r.roster = out.finish();
    r.samples = batch.samples;
    for (const SeriesPtr& s : batch.unread) r.unread.push_back(s->key);
    return r;
  }

  static Topology topology(std::vector<Netdev> netdevs, uint64_t generation = 0) {
    Topology t;
    t.netdevs = std::move(netdevs);
    t.generation = generation;
    return t;
  }

  static std::optional<double> param(const RunResult& r, const char* ifname, const char* role,
                                     const char* name) {
    return valueOf(r.samples, std::string("fabricmon_dcqcn_parameter{interface=\"") + ifname +
                                  "\",role=\"" + role + "\",parameter=\"" + name + "\"}");
  }

  TempDir tmp_;
  std::filesystem::path sysRoot_;
  ErrorTracker tracker_{"dcqcn_config"};
};

TEST_F(DcqcnCollectorTest, ExportsTheOfedEcnTree) {
  auto c = make(sysRoot_);
  const RunResult r = run(*c, topology({Netdev{"eth0", "", "mlx5_0", 1}}));
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);

  // Values as captured in the fixture: priorities 2 and 5 off for both roles, 7 off for rp only.
  const int np[8] = {1, 1, 0, 1, 1, 0, 1, 1};
  const int rp[8] = {1, 1, 0, 1, 1, 0, 1, 0};
  for (int p = 0; p < 8; ++p) {
    const std::string labels = "{interface=\"eth0\",priority=\"" + std::to_string(p) + "\"}";
    EXPECT_EQ(valueOf(r.samples, "fabricmon_dcqcn_np_enabled" + labels), np[p]) << p;
    EXPECT_EQ(valueOf(r.samples, "fabricmon_dcqcn_rp_enabled" + labels), rp[p]) << p;
  }
  auto param = [&](const char* role, const char* name) {
    return valueOf(r.samples, std::string("fabricmon_dcqcn_parameter{interface=\"eth0\",role=\"") +
                                  role + "\",parameter=\"" + name + "\"}");
  };
  EXPECT_EQ(param("np", "cnp_dscp"), 48);
  EXPECT_EQ(param("np", "cnp_802p_prio"), 6);
  EXPECT_EQ(param("np", "min_time_between_cnps"), 4);
  EXPECT_EQ(param("rp", "dce_tcp_g"), 1019);
  EXPECT_EQ(param("rp", "rpg_byte_reset"), 32767);
  EXPECT_EQ(param("rp", "rpg_time_reset"), 300);
  EXPECT_EQ(param("rp", "initial_alpha_value"), 1023);
  EXPECT_FALSE(param("np", "enable").has_value());
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcqcn_np_enabled"), 8u);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcqcn_rp_enabled"), 8u);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcqcn_parameter"),
            3u + 16u);  // 3 np files, 16 rp files
}

TEST_F(DcqcnCollectorTest, SeriesAreBuiltOnceAndFollowTheTree) {
  auto c = make(sysRoot_);
  const Topology topo = topology({Netdev{"eth0", "", "mlx5_0", 1}});
  const RunResult first = run(*c, topo);
  writeFile(sysRoot_ / "class/net/eth0/ecn/roce_np/cnp_dscp", "46\n");  // re-read every run
  const RunResult second = run(*c, topo);
  ASSERT_EQ(first.samples.size(), second.samples.size());
  for (size_t i = 0; i < first.samples.size(); ++i) {
    EXPECT_EQ(first.samples[i].series, second.samples[i].series)
        << first.samples[i].series->key;
  }
  EXPECT_EQ(
      valueOf(second.samples,
              "fabricmon_dcqcn_parameter{interface=\"eth0\",role=\"np\",parameter=\"cnp_dscp\"}"),
      46);
}

TEST_F(DcqcnCollectorTest, UnreadableFileIsOneSkippedValue) {
  auto c = make(sysRoot_);
  const auto rpEnable3 = sysRoot_ / "class/net/eth0/ecn/roce_rp/enable/3";
  const auto gd = sysRoot_ / "class/net/eth0/ecn/roce_rp/rpg_gd";
  std::filesystem::remove(rpEnable3);
  ASSERT_EQ(::mkfifo(rpEnable3.c_str(), 0644), 0);  // blocking file: must not hang the collector
  writeFile(gd, "N/A\n");                           // not a number
  const RunResult r = run(*c, topology({Netdev{"eth0", "", "mlx5_0", 1}}));
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 2u);
  EXPECT_EQ(tracker_.failingCount(), 2u);
  EXPECT_FALSE(valueOf(r.samples, "fabricmon_dcqcn_rp_enabled{interface=\"eth0\",priority=\"3\"}")
                   .has_value());
  EXPECT_FALSE(
      valueOf(r.samples,
              "fabricmon_dcqcn_parameter{interface=\"eth0\",role=\"rp\",parameter=\"rpg_gd\"}")
          .has_value());
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcqcn_rp_enabled"), 7u);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcqcn_parameter"), 18u);
  // Unknown this run, not gone: the watchdog holds what it judged of them.
  EXPECT_EQ(r.unread, (std::vector<std::string>{
                          "fabricmon_dcqcn_rp_enabled{interface=\"eth0\",priority=\"3\"}",
                          "fabricmon_dcqcn_parameter{interface=\"eth0\",role=\"rp\",parameter=\"rpg_gd\"}"}));

  // Once the files read again the failures end.
  std::filesystem::remove(rpEnable3);
  writeFile(rpEnable3, "1\n");
  writeFile(gd, "11\n");
  const RunResult again = run(*c, topology({Netdev{"eth0", "", "mlx5_0", 1}}));
  EXPECT_EQ(again.errors, 0u);
  EXPECT_EQ(tracker_.failingCount(), 0u);
  EXPECT_EQ(valueOf(again.samples, "fabricmon_dcqcn_rp_enabled{interface=\"eth0\",priority=\"3\"}"),
            1);
}

TEST_F(DcqcnCollectorTest, NoTreeIsNoDataNotAnError) {
  auto c = make(sysRoot_);
  // eth1 has no class/net directory at all; lo-like interfaces have one but no ecn/.
  std::filesystem::create_directories(sysRoot_ / "class/net/lo");
  const RunResult r = run(*c, topology({Netdev{"eth1", "", "", 0}, Netdev{"lo", "", "", 0}}));
  EXPECT_EQ(r.status, CollectStatus::kNoData);
  EXPECT_TRUE(r.samples.empty());
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(run(*c, topology({})).status, CollectStatus::kNoData);
}

TEST_F(DcqcnCollectorTest, ReadsUpstreamDebugfsCcParamsByPciAddress) {
  auto c = make(kFixtures / "debugfs");  // kernel/debug/mlx5/0000:17:00.0/cc_params
  const RunResult r = run(*c, topology({Netdev{"ens1f0np0", "0000:17:00.0", "mlx5_0", 1},
                                        Netdev{"ens2f0np0", "0000:31:00.0", "mlx5_1", 1}}));
  EXPECT_EQ(r.status, CollectStatus::kOk);
  EXPECT_EQ(r.errors, 0u);
  auto param = [&](const char* ifname, const char* role, const char* name) {
    return valueOf(r.samples, std::string("fabricmon_dcqcn_parameter{interface=\"") + ifname +
                                  "\",role=\"" + role + "\",parameter=\"" + name + "\"}");
  };
  EXPECT_EQ(param("ens1f0np0", "np", "np_cnp_dscp"), 48);
  EXPECT_EQ(param("ens1f0np0", "np", "np_cnp_prio"), 6);
  EXPECT_EQ(param("ens1f0np0", "np", "np_cnp_prio_mode"), 1);
  EXPECT_EQ(param("ens1f0np0", "rp", "rp_time_reset"), 300);
  EXPECT_EQ(param("ens1f0np0", "rp", "rp_dce_tcp_g"), 1019);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcqcn_parameter"),
            20u);  // 16 rp_ + 4 np_ files in cong.c
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcqcn_np_enabled"),
            0u);  // debugfs has no per-priority enable
  for (const auto& s : r.samples) EXPECT_EQ(s.series->label("interface"), "ens1f0np0");
}

TEST_F(DcqcnCollectorTest, DebugfsIgnoresUnprefixedFilesAndKeepsSignedValues) {
  TempDir root;
  const auto cc = root.path() / "kernel/debug/mlx5/0000:17:00.0/cc_params";
  writeFile(cc / "rp_max_rate", "0\n");
  writeFile(cc / "np_cnp_dscp", "-1\n");  // cong.c prints its u32 values with %d
  writeFile(cc / "README", "not a parameter\n");
  auto c = make(root.path());
  const RunResult r = run(*c, topology({Netdev{"eth0", "0000:17:00.0", "mlx5_0", 1}}));
  EXPECT_EQ(r.errors, 0u);
  EXPECT_EQ(countFamily(r.samples, "fabricmon_dcqcn_parameter"), 2u);
  EXPECT_EQ(
      valueOf(
          r.samples,
          "fabricmon_dcqcn_parameter{interface=\"eth0\",role=\"np\",parameter=\"np_cnp_dscp\"}"),
      -1);
}

// The 35 value files of the fixture's eth0 (3 np + 16 rp parameters, 8 + 8 enable files).
constexpr size_t kFixtureValues = 35;

TEST_F(DcqcnCollectorTest, KeepsFilesOpenAndRereadsThemEveryRun) {
  auto c = make(sysRoot_);
  const Topology topo = topology({Netdev{"eth0", "", "mlx5_0", 1}});
  const size_t fdsBefore = openFdCount();
  const RunResult first = run(*c, topo);
  const size_t fdsAfterFirst = openFdCount();
  EXPECT_GE(fdsAfterFirst, fdsBefore + kFixtureValues);  // one kept descriptor per value file
  EXPECT_EQ(valueOf(first.samples, "fabricmon_dcqcn_np_enabled{interface=\"eth0\",priority=\"3\"}"),
            1);

  // `echo 0 > ecn/roce_np/enable/3`: written in place, seen through the kept descriptor.
  writeFile(sysRoot_ / "class/net/eth0/ecn/roce_np/enable/3", "0\n");
  writeFile(sysRoot_ / "class/net/eth0/ecn/roce_rp/rpg_time_reset", "600\n");
  const RunResult second = run(*c, topo);
  EXPECT_EQ(second.errors, 0u);
  EXPECT_EQ(
      valueOf(second.samples, "fabricmon_dcqcn_np_enabled{interface=\"eth0\",priority=\"3\"}"), 0);
  EXPECT_EQ(param(second, "eth0", "rp", "rpg_time_reset"), 600);
  EXPECT_EQ(second.samples.size(), first.samples.size());
  EXPECT_EQ(openFdCount(), fdsAfterFirst);  // nothing opened again

  // The interface leaves the topology: its descriptors close.
  EXPECT_EQ(run(*c, topology({}, 1)).status, CollectStatus::kNoData);
  EXPECT_EQ(openFdCount(), fdsBefore);
}

TEST_F(DcqcnCollectorTest, ReCreatedEcnTreeIsListedAgain) {
  auto c = make(sysRoot_);
  const Topology topo = topology({Netdev{"eth0", "", "mlx5_0", 1}});
  const RunResult first = run(*c, topo);
  ASSERT_EQ(countFamily(first.samples, "fabricmon_dcqcn_parameter"), 19u);

  // The netdev is re-created under the same name and generation (between two discovery runs):
  // a new ecn/ tree with other files and values, while the old one is still on disk elsewhere.
  const auto ecn = sysRoot_ / "class/net/eth0/ecn";
  std::filesystem::rename(ecn, tmp_.path() / "old_ecn");
  writeFile(ecn / "roce_np/cnp_dscp", "40\n");
  writeFile(ecn / "roce_np/enable/3", "0\n");
  writeFile(ecn / "roce_rp/rpg_time_reset", "150\n");
  writeFile(ecn / "roce_rp/enable/3", "1\n");
  const RunResult second = run(*c, topo);
  EXPECT_EQ(second.status, CollectStatus::kOk);
  EXPECT_EQ(second.errors, 0u);
  EXPECT_EQ(param(second, "eth0", "np", "cnp_dscp"), 40);
  EXPECT_EQ(param(second, "eth0", "rp", "rpg_time_reset"), 150);
  EXPECT_FALSE(param(second, "eth0", "rp", "rpg_gd").has_value());  // not in the new tree
  EXPECT_EQ(countFamily(second.samples, "fabricmon_dcqcn_parameter"), 2u);
  EXPECT_EQ(countFamily(second.samples, "fabricmon_dcqcn_np_enabled"), 1u);
  EXPECT_EQ(
      valueOf(second.samples, "fabricmon_dcqcn_np_enabled{interface=\"eth0\",priority=\"3\"}"), 0);

  // The tree vanishes: no series and no error; it comes back: listed and read again.
  std::filesystem::remove_all(ecn);
  const RunResult gone = run(*c, topo);
  EXPECT_EQ(gone.status, CollectStatus::kNoData);
  EXPECT_TRUE(gone.samples.empty());
  EXPECT_EQ(gone.errors, 0u);
  std::filesystem::rename(tmp_.path() / "old_ecn", ecn);
  const RunResult back = run(*c, topo);
  EXPECT_EQ(back.errors, 0u);
  EXPECT_EQ(back.samples.size(), first.samples.size());
  EXPECT_EQ(param(back, "eth0", "rp", "rpg_gd"), param(first, "eth0", "rp", "rpg_gd"));
}

TEST_F(DcqcnCollectorTest, FilesAddedRemovedOrReplacedInTheTreeShowOnTheNextRun) {
  auto c = make(sysRoot_);
  const Topology topo = topology({Netdev{"eth0", "", "mlx5_0", 1}});
  const RunResult first = run(*c, topo);
  const auto np = sysRoot_ / "class/net/eth0/ecn/roce_np";
  const auto rp = sysRoot_ / "class/net/eth0/ecn/roce_rp";

  replaceFile(rp / "rpg_gd", "9\n");  // a new inode: the kept descriptor reads the old one
  writeFile(np / "cnp_new_param", "5\n");
  std::filesystem::remove(np / "min_time_between_cnps");
  std::filesystem::remove(rp / "enable/7");
  const RunResult second = run(*c, topo);
  EXPECT_EQ(second.errors, 0u);
  EXPECT_EQ(param(second, "eth0", "rp", "rpg_gd"), 9);
  EXPECT_EQ(param(second, "eth0", "np", "cnp_new_param"), 5);
  EXPECT_FALSE(param(second, "eth0", "np", "min_time_between_cnps").has_value());
  EXPECT_EQ(countFamily(second.samples, "fabricmon_dcqcn_rp_enabled"), 7u);
  EXPECT_EQ(countFamily(second.samples, "fabricmon_dcqcn_parameter"), 19u);
  // A file listed again keeps its series.
  auto seriesOf = [](const RunResult& r, std::string_view parameter) -> const Series* {
    for (const auto& s : r.samples) {
      if (s.series->label("parameter") == parameter) return s.series;
    }
    return nullptr;
  };
  ASSERT_NE(seriesOf(first, "rpg_gd"), nullptr);
  EXPECT_EQ(seriesOf(first, "rpg_gd"), seriesOf(second, "rpg_gd"));
  EXPECT_EQ(seriesOf(first, "cnp_dscp"), seriesOf(second, "cnp_dscp"));

  // Replaced by a FIFO: one skipped value, not a hang; a regular file again: read again.
  std::filesystem::remove(rp / "rpg_gd");
  ASSERT_EQ(::mkfifo((rp / "rpg_gd").c_str(), 0644), 0);
  const RunResult fifo = run(*c, topo);
  EXPECT_EQ(fifo.errors, 1u);
  EXPECT_FALSE(param(fifo, "eth0", "rp", "rpg_gd").has_value());
  EXPECT_EQ(countFamily(fifo.samples, "fabricmon_dcqcn_parameter"), 18u);
  const RunResult stillFifo = run(*c, topo);  // a per-poll error, every poll
  EXPECT_EQ(stillFifo.errors, 1u);
  replaceFile(rp / "rpg_gd", "12\n");
  const RunResult fixed = run(*c, topo);
  EXPECT_EQ(fixed.errors, 0u);
  EXPECT_EQ(tracker_.failingCount(), 0u);
  EXPECT_EQ(param(fixed, "eth0", "rp", "rpg_gd"), 12);
}

TEST_F(DcqcnCollectorTest, NonNumericValueIsSkippedEveryRunUntilFixedInPlace) {
  auto c = make(sysRoot_);
  const Topology topo = topology({Netdev{"eth0", "", "mlx5_0", 1}});
  const auto gd = sysRoot_ / "class/net/eth0/ecn/roce_rp/rpg_gd";
  run(*c, topo);
  writeFile(gd, "N/A\n");
  for (int i = 0; i < 2; ++i) {
    const RunResult bad = run(*c, topo);
    EXPECT_EQ(bad.errors, 1u) << i;
    EXPECT_FALSE(param(bad, "eth0", "rp", "rpg_gd").has_value()) << i;  // never the old value
  }
  writeFile(gd, "7\n");
  const RunResult good = run(*c, topo);
  EXPECT_EQ(good.errors, 0u);
  EXPECT_EQ(param(good, "eth0", "rp", "rpg_gd"), 7);
}

TEST_F(DcqcnCollectorTest, TopologyChangesListAgainAndDropLeavers) {
  TempDir root;
  const auto cc0 = root.path() / "kernel/debug/mlx5/0000:17:00.0/cc_params";
  const auto cc1 = root.path() / "kernel/debug/mlx5/0000:31:00.0/cc_params";
  writeFile(cc0 / "rp_time_reset", "300\n");
  writeFile(cc1 / "rp_time_reset", "200\n");
  auto c = make(root.path());
  const RunResult one = run(*c, topology({Netdev{"eth0", "0000:17:00.0", "mlx5_0", 1}}, 1));
  EXPECT_EQ(param(one, "eth0", "rp", "rp_time_reset"), 300);

  // A second interface joins; the first keeps its series.
  const RunResult two = run(*c, topology({Netdev{"eth0", "0000:17:00.0", "mlx5_0", 1},
                                          Netdev{"eth1", "0000:31:00.0", "mlx5_1", 1}},
                                         2));
  EXPECT_EQ(param(two, "eth1", "rp", "rp_time_reset"), 200);
  EXPECT_EQ(one.samples[0].series, two.samples[0].series);

  // eth0 leaves, and eth1 now sits on the other PCI function (renamed netdev).
  const RunResult moved = run(*c, topology({Netdev{"eth1", "0000:17:00.0", "mlx5_0", 1}}, 3));
  ASSERT_EQ(moved.samples.size(), 1u);
  EXPECT_EQ(param(moved, "eth1", "rp", "rp_time_reset"), 300);
}

TEST_F(DcqcnCollectorTest, ReCreatedDebugfsDirectoryIsListedAgain) {
  TempDir root;
  const auto cc = root.path() / "kernel/debug/mlx5/0000:17:00.0/cc_params";
  writeFile(cc / "rp_time_reset", "300\n");
  writeFile(cc / "np_cnp_dscp", "48\n");
  auto c = make(root.path());
  const Topology topo = topology({Netdev{"eth0", "0000:17:00.0", "mlx5_0", 1}});
  const RunResult first = run(*c, topo);
  EXPECT_EQ(param(first, "eth0", "rp", "rp_time_reset"), 300);

  // mlx5 reloaded: debugfs_remove_recursive and a new cc_params directory.
  std::filesystem::rename(cc, root.path() / "old_cc_params");
  writeFile(cc / "rp_time_reset", "100\n");
  writeFile(cc / "np_cnp_prio", "6\n");
  const RunResult second = run(*c, topo);
  EXPECT_EQ(second.errors, 0u);
  EXPECT_EQ(param(second, "eth0", "rp", "rp_time_reset"), 100);
  EXPECT_EQ(param(second, "eth0", "np", "np_cnp_prio"), 6);
  EXPECT_FALSE(param(second, "eth0", "np", "np_cnp_dscp").has_value());
}

}  // namespace
}  // namespace fabricmon
