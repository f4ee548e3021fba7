// Real-kernel tests (issue #3 point 6): the daemon on the real /sys, the real SIOCETHTOOL and
// RTM_GETDCB paths, against a veth pair in a private network namespace. The test process moves into
// fresh network and mount namespaces before any test runs and mounts a sysfs that shows that
// namespace's interfaces (what `ip netns exec` does). Without the privilege for that, every test is
// skipped with the reason.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>

#include <cmath>
#include <cstring>

#include "tests/integration/daemon_fixture.hpp"

namespace fabricmon::testing {
namespace {

std::string gNamespaceError;  // empty when the private namespace is ready

std::string enterPrivateNetworkNamespace() {
  if (::unshare(CLONE_NEWNET | CLONE_NEWNS) != 0) return std::string("unshare: ") + std::strerror(errno);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("make / private: ") + std::strerror(errno);
  }
  if (::mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0) return std::string("mount sysfs: ") + std::strerror(errno);
  std::string out;
  if (runCommand({"ip", "link", "set", "lo", "up"}, &out) != 0) return "ip link set lo up: " + out;
  if (runCommand({"ip", "link", "add", "fmvetha", "type", "veth", "peer", "name", "fmvethb"}, &out) != 0) {
    return "ip link add veth: " + out;
  }
  for (const char* dev : {"fmvetha", "fmvethb"}) {
    if (runCommand({"ip", "link", "set", dev, "up"}, &out) != 0) return std::string("ip link set up: ") + out;
  }
  return {};
}

class RealKernelTest : public DaemonTest {
 protected:
  void SetUp() override {
    if (!gNamespaceError.empty()) GTEST_SKIP() << "cannot create a private network namespace: " << gNamespaceError;
    DaemonTest::SetUp();
    writeFile(dir_ / "veth.yaml",
              "poll:\n  interval: 500ms\n  slow_interval: 1s\n"
              "netdev:\n  include: ['^fmvetha$']\n"
              "ethtool:\n  stats_include: ['^peer_ifindex$', '^rx_queue_0_packets$']\n");
    // Real sources: the real /sys, and no --ethtool-dir / --dcb-dir, so ioctl and netlink are used.
    ASSERT_NE(start({"--config", (dir_ / "veth.yaml").string(), "--sysfs-root", "/sys"}), 0);
  }
};

TEST_F(RealKernelTest, CarrierFlapsOfThePeerAreSeenWithinTwoPollIntervals) {
  const std::string series = "fabricmon_netdev_carrier_changes_total{interface=\"fmvetha\"}";
  const std::string first = scrapeUntil([&](const std::string& b) { return !std::isnan(seriesValue(b, series)); });
  const double before = seriesValue(first, series);
  ASSERT_FALSE(std::isnan(before)) << first;
  constexpr int kFlaps = 3;
  for (int i = 0; i < kFlaps; ++i) {
    ASSERT_EQ(runCommand({"ip", "link", "set", "fmvethb", "down"}), 0);
    ASSERT_EQ(runCommand({"ip", "link", "set", "fmvethb", "up"}), 0);
  }
  const auto flapped = std::chrono::steady_clock::now();
  const std::string after =
      scrapeUntil([&](const std::string& b) { return seriesValue(b, series) >= before + 2 * kFlaps; },
                  std::chrono::seconds(5));
  const auto seen = std::chrono::steady_clock::now() - flapped;
  EXPECT_EQ(seriesValue(after, series), before + 2 * kFlaps);
  // Two poll intervals (2 x 500 ms) plus scrape/render slack.
  EXPECT_LE(std::chrono::duration_cast<std::chrono::milliseconds>(seen).count(), 1000 + 400);
}

TEST_F(RealKernelTest, EthtoolIoctlReturnsVethStatsThroughTheIncludeList) {
  const std::string series = "fabricmon_ethtool_stat_total{interface=\"fmvetha\",stat=\"peer_ifindex\"}";
  const std::string body = scrapeUntil([&](const std::string& b) { return !std::isnan(seriesValue(b, series)); });
  EXPECT_GT(seriesValue(body, series), 0) << body.substr(0, 3000);
  // Only the included stats are exported.
  EXPECT_EQ(body.find("stat=\"tx_queue_0_xdp_xmit\""), std::string::npos);
}

TEST_F(RealKernelTest, DcbOnVethHasNoSeriesAndNoError) {
  const std::string up = "fabricmon_collector_up{collector=\"dcb_config\"}";
  const std::string body = scrapeUntil([&](const std::string& b) { return seriesValue(b, up) == 1; });
  EXPECT_EQ(seriesValue(body, up), 1);
  EXPECT_EQ(seriesValue(body, "fabricmon_collector_errors_total{collector=\"dcb_config\"}"), 0);
  EXPECT_EQ(body.find("fabricmon_pfc_enabled{interface=\"fmvetha\""), std::string::npos);
  EXPECT_EQ(body.find("fabricmon_dcqcn_np_enabled{interface=\"fmvetha\""), std::string::npos);
}

}  // namespace
}  // namespace fabricmon::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (::getuid() != 0) {
    fabricmon::testing::gNamespaceError = "not running as root";
  } else {
    fabricmon::testing::gNamespaceError = fabricmon::testing::enterPrivateNetworkNamespace();
  }
  return RUN_ALL_TESTS();
}
