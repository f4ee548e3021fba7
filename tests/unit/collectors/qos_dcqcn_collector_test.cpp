// dcqcn_config over the real OFED ecn/ tree of prometheus/procfs and a hand-made mlx5 debugfs tree.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "collectors/dcqcn_config_collector.hpp"
#include "collectors/error_tracker.hpp"
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
  CollectStatus status;
  uint64_t errors;
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
    return makeDcqcnConfigCollector(sources, Config{});
  }

  RunResult run(Collector& c, const Topology& topo) {
    RunResult r;
    CollectOutput out(r.samples, tracker_);
    r.status = c.collect(topo, out);
    r.errors = out.errorCount();
    return r;
  }

  static Topology topology(std::vector<Netdev> netdevs) {
    Topology t;
    t.netdevs = std::move(netdevs);
    return t;
  }

  TempDir tmp_;
  std::filesystem::path sysRoot_;
  ErrorTracker tracker_{"dcqcn_config"};
};

TEST_F(DcqcnCollectorTest, ExportsTheOfedEcnTree) {
  auto c = make(sysRoot_);
  EXPECT_EQ(c->name(), "dcqcn_config");
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
    EXPECT_EQ(first.samples[i].series.get(), second.samples[i].series.get())
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

}  // namespace
}  // namespace fabricmon
