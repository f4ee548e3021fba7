#include "daemon/cli.hpp"
#include "daemon/config_schema.hpp"

#include <gtest/gtest.h>

namespace fabricmon {
namespace {

TEST(CliTest, DefaultsToRun) {
  auto r = parseCommandLine({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->command, Command::kRun);
  EXPECT_FALSE(r->configPath);
}

TEST(CliTest, ParsesEveryOverrideInBothForms) {
  auto r = parseCommandLine({"run", "--config", "/tmp/f.yaml", "--listen=127.0.0.1:0", "--sysfs-root", "/x",
                             "--ethtool-dir", "/e", "--dcb-dir=/d", "--module-eeprom-dir", "/m", "--netdev-include", "^eth", "--netdev-include",
                             "^ib", "--poll-interval", "250ms", "--log-level", "debug"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r->configPath, "/tmp/f.yaml");
  Config c;
  c.netdev.include = {"old"};
  applyOverrides(r->overrides, c);
  EXPECT_EQ(c.web.listen, "127.0.0.1:0");
  EXPECT_EQ(c.sources.sysfsRoot, "/x");
  EXPECT_EQ(*c.sources.ethtoolDir, "/e");
  EXPECT_EQ(*c.sources.dcbDir, "/d");
  EXPECT_EQ(*c.sources.moduleEepromDir, "/m");
  EXPECT_EQ(c.netdev.include, (std::vector<std::string>{"^eth", "^ib"}));  // the flag replaces the key
  EXPECT_EQ(c.poll.interval, std::chrono::milliseconds(250));
  EXPECT_EQ(c.log.level, "debug");
}

TEST(CliTest, WithoutFlagsTheConfigValuesStay) {
  auto r = parseCommandLine({"run"});
  ASSERT_TRUE(r.ok());
  Config c;
  c.web.listen = "10.0.0.1:1";
  c.netdev.include = {"keep"};
  applyOverrides(r->overrides, c);
  EXPECT_EQ(c.web.listen, "10.0.0.1:1");
  EXPECT_EQ(c.netdev.include, std::vector<std::string>{"keep"});
}

TEST(CliTest, DemoTakesAScenario) {
  auto r = parseCommandLine({"demo", "--scenario", "pause-storm"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->command, Command::kDemo);
  EXPECT_EQ(r->demo.scenario, "pause-storm");
  EXPECT_EQ(r->demo.faultPort, 0u);
}

TEST(CliTest, DemoTakesTheFaultedPort) {
  auto r = parseCommandLine({"demo", "--scenario", "pause-storm", "--fault-port", "3"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->demo.faultPort, 3u);
  EXPECT_FALSE(parseCommandLine({"demo", "--fault-port", "x"}).ok());
  EXPECT_FALSE(parseCommandLine({"demo", "--fault-port", "-1"}).ok());
  EXPECT_FALSE(parseCommandLine({"run", "--fault-port", "1"}).ok());
}

TEST(CliTest, CheckConfigTakesExactlyOneFile) {
  auto r = parseCommandLine({"check-config", "/etc/x.yaml"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->command, Command::kCheckConfig);
  EXPECT_EQ(*r->configPath, "/etc/x.yaml");
  EXPECT_FALSE(parseCommandLine({"check-config"}).ok());
  EXPECT_FALSE(parseCommandLine({"check-config", "a", "b"}).ok());
}

TEST(CliTest, RejectsBadUsage) {
  const std::vector<std::vector<std::string>> cases = {
      {"--bogus"}, {"launch"}, {"--listen"}, {"--listen", "x"}, {"--poll-interval", "0ms"},
      {"--poll-interval", "abc"}, {"--log-level", "verbose"}, {"--netdev-include", "[a-"},
      {"run", "--scenario", "healthy"},
  };
  for (const auto& c : cases) {
    EXPECT_FALSE(parseCommandLine(c).ok()) << c[0];
  }
}

TEST(CliTest, AFlagCannotBreakTheConfigsCrossFieldRules) {
  Config c;
  EXPECT_TRUE(checkOverridden(c, configSchema()).ok());
  auto r = parseCommandLine({"--poll-interval", "2m"});
  ASSERT_TRUE(r.ok());
  applyOverrides(r->overrides, c);
  const Status st = checkOverridden(c, configSchema());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("poll.stale_after"), std::string::npos) << st.error().message;
}

TEST(CliTest, AFlagIsCheckedAgainstEveryRulesWindows) {
  // With stale_after and peak_window long enough, what 90s still breaks is a rule's own window
  // (dcqcn_misconfig's 60s), which only the rule table knows of.
  Config c;
  c.poll.staleAfter = std::chrono::minutes(20);
  c.watchdog.peakWindow = std::chrono::minutes(5);
  auto r = parseCommandLine({"--poll-interval", "90s"});
  ASSERT_TRUE(r.ok());
  applyOverrides(r->overrides, c);
  const Status st = checkOverridden(c, configSchema());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("watchdog.rules."), std::string::npos) << st.error().message;
}

TEST(CliTest, HelpAndVersionWinOverEverythingAfterThem) {
  EXPECT_EQ(parseCommandLine({"--help"})->command, Command::kHelp);
  EXPECT_EQ(parseCommandLine({"run", "--version"})->command, Command::kVersion);
}

}  // namespace
}  // namespace fabricmon
