// The fabricsim command line: --once writes the tree, --list-scenarios lists them, bad usage
// exits 2. (The real-time loop and SIGTERM handling are exercised by hand; unit tests do not
// sleep.)

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "sim/simulator.hpp"
#include "sim_test_util.hpp"

#include <filesystem>

namespace fabricmon::sim {
namespace {

using test::readFile;

struct ToolRun {
  int exitCode = -1;
  std::string out;
};

ToolRun runTool(const std::string& args) {
  ToolRun r;
  const std::string cmd = std::string(FABRICSIM_PATH) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) r.out += buf;
  const int status = ::pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(FabricsimTool, OnceWritesTheNodeAndPrintsTheDaemonFlags) {
  test::TempDir dir;
  const ToolRun r =
      runTool("--root " + dir.path().string() + " --scenario pause-storm --once --roce-ports 2");
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("--sysfs-root " + dir.path().string() + "/sys"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("affected: mlx5_0 port 1 (enp24s0np0) priority 3"), std::string::npos)
      << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "sys/class/infiniband/mlx5_2/ports/1/rate"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "sys/class/infiniband/mlx5_3"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "ethtool/enp64s0np0"));
}

TEST(FabricsimTool, ListsEveryScenario) {
  const ToolRun r = runTool("--list-scenarios");
  EXPECT_EQ(r.exitCode, 0);
  for (auto name : Simulator::scenarios())
    EXPECT_NE(r.out.find(std::string(name) + " "), std::string::npos) << name;
}

TEST(FabricsimTool, VendorAndCounterRefresh) {
  test::TempDir dir;
  const ToolRun r = runTool("--root " + dir.path().string() +
                            " --vendor bnxt --counter-refresh 250ms --once --roce-ports 1 --no-infiniband");
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("bnxt NICs, counters refreshed every 0.25 s"), std::string::npos) << r.out;
  const auto ethtool = readFile(dir.path() / "ethtool/enp24s0np0");
  EXPECT_NE(ethtool.find("rx_pfc_ena_frames_pri3: "), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "sys/class/net/enp24s0np0/device/driver"));
  EXPECT_EQ(std::filesystem::read_symlink(dir.path() / "sys/class/net/enp24s0np0/device/driver")
                .filename(),
            "bnxt_en");
}

TEST(FabricsimTool, BadUsageExitsTwo) {
  test::TempDir dir;
  const std::string root = " --root " + dir.path().string();
  const std::string cases[] = {"",
                               "--scenario healthy",
                               root + " --scenario nope",
                               root + " --interval 0s",
                               root + " --interval soon",
                               root + " --roce-ports 99",
                               root + " --vendor qlogic",
                               root + " --counter-refresh soon",
                               root + " --counter-refresh -1s",
                               root + " --bogus"};
  for (const std::string& args : cases) {
    EXPECT_EQ(runTool(args).exitCode, 2) << args;
  }
}

}  // namespace
}  // namespace fabricmon::sim
