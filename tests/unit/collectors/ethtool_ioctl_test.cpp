// The ioctl source through its seam: a fake kernel that fills the real ethtool_sset_info /
// ethtool_gstrings / ethtool_stats structs the way net/ethtool/ioctl.c does (it writes as many
// entries as the driver has *now*, whatever count user space passed) and checks every write
// against the buffer size, so a too-small buffer fails the test instead of corrupting memory.

#include "collectors/sources/ethtool_ioctl.hpp"

#include <gtest/gtest.h>
#include <linux/ethtool.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "collectors/error_tracker.hpp"
#include "collectors/registry.hpp"

namespace fabricmon {
namespace {

using StatList = std::vector<std::pair<std::string, uint64_t>>;

struct FakeIface {
  StatList stats;
  bool hasStatsSet = true;  // false: GSSET_INFO clears the ETH_SS_STATS bit
  int error = 0;            // returned by every ioctl on this interface (e.g. EOPNOTSUPP)
};

struct FakeKernelState {
  std::map<std::string, FakeIface> ifaces;
  int nextFd = 40;
  int opens = 0;
  std::vector<int> closed;
  int openError = 0;  // next openSocket fails with this errno, once
  std::vector<uint32_t> cmds;
  std::vector<int> fdsUsed;
  bool overflow = false;
  /// Runs before each ioctl with the number of ioctls so far (0-based) and the command.
  std::function<void(size_t index, uint32_t cmd, const std::string& ifname)> beforeIoctl;

  size_t count(uint32_t cmd) const {
    return static_cast<size_t>(std::count(cmds.begin(), cmds.end(), cmd));
  }
};

class FakeKernel final : public EthtoolIoctlInterface {
 public:
  explicit FakeKernel(std::shared_ptr<FakeKernelState> s) : s_(std::move(s)) {}

  Result<int> openSocket() override {
    if (s_->openError != 0) return sysError("socket", std::exchange(s_->openError, 0));
    ++s_->opens;
    return s_->nextFd++;
  }
  void closeSocket(int fd) override { s_->closed.push_back(fd); }

  int doIoctl(int fd, const std::string& ifname, void* data, size_t size) override {
    uint32_t cmd;
    std::memcpy(&cmd, data, sizeof cmd);
    if (s_->beforeIoctl) s_->beforeIoctl(s_->cmds.size(), cmd, ifname);
    s_->cmds.push_back(cmd);
    s_->fdsUsed.push_back(fd);
    auto it = s_->ifaces.find(ifname);
    if (it == s_->ifaces.end()) return ENODEV;
    const FakeIface& iface = it->second;
    if (iface.error != 0) return iface.error;
    const uint32_t n = static_cast<uint32_t>(iface.stats.size());
    switch (cmd) {
      case ETHTOOL_GSSET_INFO: {
        if (size < offsetof(ethtool_sset_info, data) + sizeof(uint32_t)) return fail();
        auto* info = static_cast<ethtool_sset_info*>(data);
        const bool asked = info->sset_mask & (1ULL << ETH_SS_STATS);
        info->sset_mask = 0;
        if (asked && iface.hasStatsSet) {
          info->sset_mask = 1ULL << ETH_SS_STATS;
          std::memcpy(static_cast<char*>(data) + offsetof(ethtool_sset_info, data), &n, sizeof n);
        }
        return 0;
      }
      case ETHTOOL_GSTRINGS: {
        if (!iface.hasStatsSet) return EOPNOTSUPP;
        if (size < offsetof(ethtool_gstrings, data) + size_t{n} * ETH_GSTRING_LEN) return fail();
        auto* g = static_cast<ethtool_gstrings*>(data);
        g->len = n;
        for (uint32_t i = 0; i < n; ++i) {
          char* slot = reinterpret_cast<char*>(g->data) + size_t{i} * ETH_GSTRING_LEN;
          std::memset(slot, 0, ETH_GSTRING_LEN);
          std::memcpy(slot, iface.stats[i].first.data(),
                      std::min<size_t>(ETH_GSTRING_LEN, iface.stats[i].first.size()));
        }
        return 0;
      }
      case ETHTOOL_GSTATS: {
        if (!iface.hasStatsSet) return EOPNOTSUPP;
        if (size < offsetof(ethtool_stats, data) + size_t{n} * sizeof(uint64_t)) return fail();
        auto* st = static_cast<ethtool_stats*>(data);
        st->n_stats = n;
        for (uint32_t i = 0; i < n; ++i) st->data[i] = iface.stats[i].second;
        return 0;
      }
      default:
        return EOPNOTSUPP;
    }
  }

 private:
  int fail() {
    s_->overflow = true;
    return EFAULT;
  }
  std::shared_ptr<FakeKernelState> s_;
};

struct Fixture {
  std::shared_ptr<FakeKernelState> kernel = std::make_shared<FakeKernelState>();
  std::unique_ptr<EthtoolSource> source =
      makeEthtoolIoctlSource(std::make_unique<FakeKernel>(kernel));
};

StatList mlx5Prio(unsigned pfcPrio, uint64_t base) {
  StatList s;
  for (unsigned p = 0; p < 8; ++p) {
    const std::string rx = "rx_prio" + std::to_string(p), tx = "tx_prio" + std::to_string(p);
    s.emplace_back(rx + "_bytes", base + p);
    s.emplace_back(rx + "_packets", base + 10 + p);
    s.emplace_back(rx + "_discards", base + 20 + p);
    s.emplace_back(tx + "_bytes", base + 30 + p);
    s.emplace_back(tx + "_packets", base + 40 + p);
    if (p == pfcPrio) {  // en_stats.c: pause names only for priorities with PFC enabled
      s.emplace_back(rx + "_pause", base + 50);
      s.emplace_back(rx + "_pause_duration", base + 51);
      s.emplace_back(tx + "_pause", base + 52);
      s.emplace_back(tx + "_pause_duration", base + 53);
      s.emplace_back(rx + "_pause_transition", base + 54);
    }
  }
  return s;
}

TEST(EthtoolIoctlSourceTest, NamesAndValuesAlignedAndTrimmed) {
  Fixture f;
  const std::string name32(ETH_GSTRING_LEN, 'x');  // fills the slot: no NUL terminator
  f.kernel->ifaces["eth0"].stats = {
      {"rx_packets", 5}, {"rx_prio3_pause ", 7}, {name32, 9}, {"  lead", 11}};
  auto r = f.source->read("eth0");
  ASSERT_TRUE(r) << r.error().message;
  const StatList want = {{"rx_packets", 5}, {"rx_prio3_pause", 7}, {name32, 9}, {"lead", 11}};
  EXPECT_EQ(r->pairs(), want);
  EXPECT_TRUE(r->issues.empty());
  EXPECT_EQ(f.kernel->cmds,
            (std::vector<uint32_t>{ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS}));
  EXPECT_FALSE(f.kernel->overflow);
}

TEST(EthtoolIoctlSourceTest, OneSocketForEveryCallAndInterface) {
  Fixture f;
  f.kernel->ifaces["eth0"].stats = {{"a", 1}};
  f.kernel->ifaces["eth1"].stats = {{"b", 2}, {"c", 3}};
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(f.source->read("eth0"));
    ASSERT_TRUE(f.source->read("eth1"));
  }
  EXPECT_EQ(f.kernel->opens, 1);
  EXPECT_EQ(f.kernel->count(ETHTOOL_GSTATS), 10u);  // one GSTATS per interface per read
  for (int fd : f.kernel->fdsUsed) EXPECT_EQ(fd, 40);
  EXPECT_TRUE(f.kernel->closed.empty());
  f.source.reset();
  EXPECT_EQ(f.kernel->closed, std::vector<int>{40});
}

// PFC switched on for priority 3 between the calls of one read: 5 names appear.
struct GrowCase {
  const char* name;
  size_t growBeforeCall;  // index of the ioctl before which the set grows
  size_t wantGstats;
};
void PrintTo(const GrowCase& c, std::ostream* os) { *os << c.name; }

class EthtoolIoctlGrowTest : public ::testing::TestWithParam<GrowCase> {};

TEST_P(EthtoolIoctlGrowTest, RereadsAndNeverMisaligns) {
  Fixture f;
  f.kernel->ifaces["eth0"].stats = mlx5Prio(99, 1000);  // no PFC
  const StatList grown = mlx5Prio(3, 1000);
  f.kernel->beforeIoctl = [&](size_t index, uint32_t, const std::string&) {
    if (index == GetParam().growBeforeCall) f.kernel->ifaces["eth0"].stats = grown;
  };
  auto r = f.source->read("eth0");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->pairs(), grown);
  EXPECT_FALSE(f.kernel->overflow);
  EXPECT_EQ(f.kernel->count(ETHTOOL_GSTATS), GetParam().wantGstats);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, EthtoolIoctlGrowTest,
    ::testing::Values(GrowCase{"before_gstrings", 1, 1},  // caught by GSTRINGS len
                      GrowCase{"before_gstats", 2, 2}),   // caught by GSTATS n_stats
    [](const auto& info) { return std::string(info.param.name); });

TEST(EthtoolIoctlSourceTest, ShrinkBeforeGstatsIsRereadToo) {
  Fixture f;
  f.kernel->ifaces["eth0"].stats = mlx5Prio(3, 1000);
  const StatList shrunk = mlx5Prio(99, 2000);
  f.kernel->beforeIoctl = [&](size_t index, uint32_t, const std::string&) {
    if (index == 2) f.kernel->ifaces["eth0"].stats = shrunk;
  };
  auto r = f.source->read("eth0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->pairs(), shrunk);
}

TEST(EthtoolIoctlSourceTest, SetThatKeepsChangingGivesEagain) {
  Fixture f;
  f.kernel->ifaces["eth0"].stats = {{"a", 1}};
  f.kernel->beforeIoctl = [&](size_t, uint32_t cmd, const std::string&) {
    if (cmd == ETHTOOL_GSTATS) f.kernel->ifaces["eth0"].stats.emplace_back("more", 1);
  };
  auto r = f.source->read("eth0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, EAGAIN);
  EXPECT_EQ(f.kernel->count(ETHTOOL_GSTATS), 3u);
  EXPECT_FALSE(f.kernel->overflow);
}

// Priority 3 -> 4 keeps the count: only GSTRINGS on every read notices the new names.
TEST(EthtoolIoctlSourceTest, RenameAtSameCountBetweenReadsIsSeen) {
  Fixture f;
  f.kernel->ifaces["eth0"].stats = mlx5Prio(3, 1000);
  EthtoolStats out;
  ASSERT_TRUE(f.source->readInto("eth0", out));
  EXPECT_EQ(out.pairs(), mlx5Prio(3, 1000));
  EXPECT_FALSE(out.namesUnchanged);  // first fill: nothing to compare with
  const EthtoolNamesPtr firstList = out.names;  // held, so its address is not reused

  f.kernel->ifaces["eth0"].stats = mlx5Prio(4, 5000);
  ASSERT_EQ(mlx5Prio(4, 5000).size(), mlx5Prio(3, 1000).size());
  ASSERT_TRUE(f.source->readInto("eth0", out));
  EXPECT_EQ(out.pairs(), mlx5Prio(4, 5000));
  EXPECT_FALSE(out.namesUnchanged);  // same count, other names: the consumer must remap
  EXPECT_NE(out.names, firstList);  // another list (shared with any interface that has it)
  const EthtoolNames* secondList = out.names.get();

  f.kernel->ifaces["eth0"].stats = mlx5Prio(4, 7000);
  ASSERT_TRUE(f.source->readInto("eth0", out));
  EXPECT_EQ(out.pairs(), mlx5Prio(4, 7000));
  EXPECT_TRUE(out.namesUnchanged);  // only values moved: the consumer keeps its mapping
  EXPECT_EQ(out.names.get(), secondList);  // and the list is kept, not rebuilt
}

struct ErrorCase {
  const char* name;
  std::function<void(FakeKernelState&)> setup;
  int wantErrno;
};
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

class EthtoolIoctlErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(EthtoolIoctlErrorTest, MapsToErrno) {
  Fixture f;
  GetParam().setup(*f.kernel);
  auto r = f.source->read("eth0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, GetParam().wantErrno) << r.error().message;
  EXPECT_NE(r.error().message.find("eth0"), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, EthtoolIoctlErrorTest,
    ::testing::Values(
        ErrorCase{"vanished", [](FakeKernelState&) {}, ENODEV},
        ErrorCase{"vanishes_before_gstats",
                  [](FakeKernelState& k) {
                    k.ifaces["eth0"].stats = {{"a", 1}};
                    k.beforeIoctl = [&k](size_t i, uint32_t, const std::string&) {
                      if (i == 2) k.ifaces.erase("eth0");
                    };
                  },
                  ENODEV},
        ErrorCase{"no_get_sset_count",
                  [](FakeKernelState& k) { k.ifaces["eth0"].error = EOPNOTSUPP; }, EOPNOTSUPP},
        ErrorCase{"stats_bit_cleared",
                  [](FakeKernelState& k) { k.ifaces["eth0"].hasStatsSet = false; }, EOPNOTSUPP},
        ErrorCase{"zero_stats", [](FakeKernelState& k) { k.ifaces["eth0"].stats = {}; },
                  EOPNOTSUPP},
        ErrorCase{"permission", [](FakeKernelState& k) { k.ifaces["eth0"].error = EPERM; }, EPERM}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(EthtoolIoctlSourceTest, SocketFailureIsRetriedNextRead) {
  Fixture f;
  f.kernel->ifaces["eth0"].stats = {{"a", 1}};
  f.kernel->openError = EMFILE;
  auto r = f.source->read("eth0");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, EMFILE);
  EXPECT_TRUE(f.kernel->cmds.empty());
  ASSERT_TRUE(f.source->read("eth0"));
  EXPECT_EQ(f.kernel->opens, 1);
}

TEST(EthtoolIoctlSourceTest, OverlongInterfaceNameIsRejectedWithoutIoctl) {
  Fixture f;
  auto r = f.source->read("a_name_longer_than_ifnamsiz");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().errnum, EINVAL);
  EXPECT_TRUE(f.kernel->cmds.empty());
}

// ---- the collector over the ioctl seam ----

struct CollectorRun {
  std::vector<Sample> samples;
  SeriesRosterPtr roster;  ///< keeps the samples' series alive
  uint64_t errors = 0;
  CollectStatus status{};
  const Sample* find(std::string_view key) const {
    for (const auto& s : samples) {
      if (s.series->key == key) return &s;
    }
    return nullptr;
  }
};

CollectorRun collectOnce(Collector& c, const Topology& topo, ErrorTracker& tracker) {
  CollectorRun run;
  Batch batch;
  CollectOutput out(batch, tracker);
  run.status = c.collect(topo, out);
  run.errors = out.errorCount();
  run.roster = out.finish();
  run.samples = batch.samples;
  return run;
}

Topology topologyOf(std::initializer_list<const char*> names) {
  Topology t;
  for (const char* n : names) t.netdevs.push_back(Netdev{n, "", "", 0});
  return t;
}

TEST(EthtoolPfcOverIoctlTest, NoStatsIsSilentVanishedIsAnError) {
  auto kernel = std::make_shared<FakeKernelState>();
  kernel->ifaces["ens1"].stats = mlx5Prio(3, 1000);
  kernel->ifaces["lo"].error = EOPNOTSUPP;
  kernel->ifaces["veth0"].hasStatsSet = false;
  Sources sources;
  sources.ethtool = makeEthtoolIoctlSource(std::make_unique<FakeKernel>(kernel));
  auto collector = makeCollector("ethtool_pfc", sources, Config{});
  ErrorTracker tracker("ethtool_pfc");
  const Topology topo = topologyOf({"ens1", "gone0", "lo", "veth0"});

  auto run = collectOnce(*collector, topo, tracker);
  EXPECT_EQ(run.status, CollectStatus::kOk);
  EXPECT_EQ(run.errors, 1u);  // gone0 (ENODEV) only
  EXPECT_EQ(tracker.failingCount(), 1u);
  const Sample* s = run.find(
      R"(fabricmon_pfc_pause_seconds_total{interface="ens1",priority="3",direction="rx"})");
  ASSERT_NE(s, nullptr);
  EXPECT_DOUBLE_EQ(s->value, 1051 * 1e-6);
  // 8 x (rx bytes, packets, discards, tx bytes, packets) + 5 pause names of priority 3
  EXPECT_EQ(run.samples.size(), 45u);

  // PFC moves to priority 4 at the same count: the series follow the names.
  kernel->ifaces["ens1"].stats = mlx5Prio(4, 2000);
  run = collectOnce(*collector, topo, tracker);
  EXPECT_EQ(run.samples.size(), 45u);
  EXPECT_EQ(run.find(R"(fabricmon_pfc_pause_frames_received_total{interface="ens1",priority="3"})"),
            nullptr);
  s = run.find(R"(fabricmon_pfc_pause_frames_received_total{interface="ens1",priority="4"})");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->value, 2050);
}

TEST(EthtoolPfcOverIoctlTest, RepeatedDriverNameCountsOnce) {
  auto kernel = std::make_shared<FakeKernelState>();
  kernel->ifaces["ens1"].stats = {
      {"rx_prio0_bytes", 10}, {"rx_prio0_bytes", 99}, {"tx_prio0_bytes", 20}};
  Sources sources;
  sources.ethtool = makeEthtoolIoctlSource(std::make_unique<FakeKernel>(kernel));
  auto collector = makeCollector("ethtool_pfc", sources, Config{});
  ErrorTracker tracker("ethtool_pfc");
  for (int poll = 0; poll < 2; ++poll) {
    auto run = collectOnce(*collector, topologyOf({"ens1"}), tracker);
    ASSERT_EQ(run.samples.size(), 2u);
    EXPECT_EQ(
        run.find(R"(fabricmon_priority_receive_bytes_total{interface="ens1",priority="0"})")->value,
        10);
  }
}

}  // namespace
}  // namespace fabricmon
