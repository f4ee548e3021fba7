// The command line and config error paths of the real binary (docs/contract.md §1).
#include <gtest/gtest.h>

#include "tests/integration/daemon_fixture.hpp"

namespace fabricmon::testing {
namespace {

class CliTest : public DaemonTest {};

TEST_F(CliTest, VersionAndHelpExitZero) {
  std::string out;
  EXPECT_EQ(runCommand({FABRICMON_BINARY, "--version"}, &out), 0);
  EXPECT_NE(out.find("fabricmon "), std::string::npos);
  EXPECT_EQ(runCommand({FABRICMON_BINARY, "--help"}, &out), 0);
  EXPECT_NE(out.find("check-config"), std::string::npos);
}

TEST_F(CliTest, BadUsageExitsTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {"--no-such-flag"},
      {"frobnicate"},
      {"--poll-interval", "soon"},
      {"--poll-interval", "1ms"},
      {"--listen", "nope"},
      {"--log-level", "loud"},
      {"--netdev-include", "(unclosed"},
      {"--config"},
      {"check-config"},
      {"run", "--scenario", "healthy"},
      {"demo", "--scenario", "no-such-scenario", "--listen", "127.0.0.1:0"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> argv{FABRICMON_BINARY};
    argv.insert(argv.end(), c.begin(), c.end());
    std::string out;
    EXPECT_EQ(runCommand(argv, &out), 2) << c[0] << ": " << out;
  }
}

TEST_F(CliTest, CheckConfigReportsEveryErrorWithLineAndColumn) {
  const auto file = dir_ / "bad.yaml";
  writeFile(file,
            "web:\n"
            "  listen: 127.0.0.1:19110\n"
            "poll:\n"
            "  interval: fast\n"
            "qos:\n"
            "  roce_priority: 9\n"
            "bogus_key: 1\n");
  std::string out;
  EXPECT_EQ(runCommand({FABRICMON_BINARY, "check-config", file.string()}, &out), 2);
  EXPECT_NE(out.find(file.string() + ":4:"), std::string::npos) << out;
  EXPECT_NE(out.find(file.string() + ":6:"), std::string::npos) << out;
  EXPECT_NE(out.find(file.string() + ":7:"), std::string::npos) << out;
}

TEST_F(CliTest, CheckConfigAcceptsTheShippedDefaultConfig) {
  std::string out;
  EXPECT_EQ(runCommand({FABRICMON_BINARY, "check-config", FABRICMON_DEFAULT_CONFIG}, &out), 0) << out;
}

TEST_F(CliTest, RunWithInvalidConfigExitsTwoWithoutServing) {
  const auto file = dir_ / "bad.yaml";
  writeFile(file, "poll: [1, 2\n");
  std::string out;
  EXPECT_EQ(runCommand({FABRICMON_BINARY, "--config", file.string(), "--listen", "127.0.0.1:0"}, &out), 2);
  EXPECT_NE(out.find(file.string() + ":"), std::string::npos) << out;
  EXPECT_EQ(out.find("serving"), std::string::npos) << out;
}

TEST_F(CliTest, MissingConfigFileIsAnErrorNamingTheFile) {
  std::string out;
  const auto missing = (dir_ / "missing.yaml").string();
  EXPECT_EQ(runCommand({FABRICMON_BINARY, "check-config", missing}, &out), 2);
  EXPECT_NE(out.find(missing), std::string::npos) << out;
}

}  // namespace
}  // namespace fabricmon::testing
