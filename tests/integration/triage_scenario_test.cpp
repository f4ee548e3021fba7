// `fabricmon triage --node` over every simulator scenario through the running daemon (issue #11):
// each scenario's verdict names its own cause first; healthy and congested say nothing is wrong
// (exit 0); a source that is down or hangs gives a clear message and exit 2 within the timeout.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <thread>

#include "tests/support/http_get.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

#include <fstream>

namespace fabricmon::testing {
namespace {

struct TriageCase {
  const char* scenario;
  const char* cause;        ///< "" = nothing wrong (exit 0)
  const char* waitForRule;  ///< a finding to wait for before asking ("" = watch `settle` seconds)
  int settle;
};

void PrintTo(const TriageCase& c, std::ostream* os) { *os << c.scenario; }

const TriageCase kCases[] = {
    {"healthy", "", "", 15},
    {"congested", "", "", 15},
    {"counter-reset", "", "", 15},
    // Busy but healthy: half the time paused with traffic flowing is suspicious at most, never the
    // verdict (before the sustained-pause window is full; see scenario_test.cpp for after).
    {"busy-pause", "", "", 10},
    {"pause-storm", "pfc_pause", "pause_storm", 0},
    {"dcqcn-np-disabled", "qos_config", "dcqcn_misconfig", 0},
    {"dcqcn-rp-disabled", "qos_config", "dcqcn_misconfig", 0},
    {"pfc-without-ecn", "qos_config", "dcqcn_misconfig", 0},
    {"link-flap", "link", "link_flap", 0},
    {"cable-errors", "link", "link_errors", 0},
    {"lossy", "roce_loss", "roce_packet_loss", 0},
    {"degraded-port", "link", "port_degraded", 0},
};

std::string field(const std::string& json, const std::string& name) {
  std::smatch m;
  if (std::regex_search(json, m, std::regex("\"" + name + "\": (\"([^\"]*)\"|null|true|false)"))) {
    return m[2].matched ? m[2].str() : m[1].str();
  }
  return "<absent>";
}

class TriageScenarioTest : public ::testing::TestWithParam<TriageCase> {};

TEST_P(TriageScenarioTest, NamesItsOwnCauseFirst) {
  const TriageCase& c = GetParam();
  ChildProcess daemon({FABRICMON_BINARY, "demo", "--scenario", c.scenario, "--config", FABRICMON_SCENARIO_CONFIG,
                       "--listen", "127.0.0.1:0"});
  const auto port = daemon.waitForPort(std::chrono::seconds(15));
  ASSERT_TRUE(port) << daemon.output();
  const auto start = std::chrono::steady_clock::now();
  if (*c.waitForRule != '\0') {
    const auto deadline = start + std::chrono::seconds(60);
    while (httpGet(*port, "/api/v1/findings").body.find(std::string("\"rule\":\"") + c.waitForRule + "\"") ==
           std::string::npos) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << c.waitForRule << " never raised\n" << daemon.output();
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  } else {
    std::this_thread::sleep_for(std::chrono::seconds(c.settle));
  }
  const std::string node = "http://127.0.0.1:" + std::to_string(*port);
  std::string out;
  const int code = runCommand({FABRICMON_BINARY, "triage", "--node", node, "--since", "60s", "--json"}, &out);
  if (*c.cause == '\0') {
    EXPECT_EQ(code, 0) << out;
    EXPECT_EQ(field(out, "wrong"), "false") << out;
    EXPECT_EQ(field(out, "cause"), "null") << out;
  } else {
    EXPECT_EQ(code, 1) << out;
    EXPECT_EQ(field(out, "cause"), c.cause) << out;
    // The top check names where and what to do next.
    EXPECT_NE(out.find("enp24s0np0"), std::string::npos) << out;
  }
  // The same verdict in text, the cause on the VERDICT line.
  std::string text;
  runCommand({FABRICMON_BINARY, "triage", "--node", node, "--since", "60s"}, &text);
  EXPECT_NE(text.find(*c.cause == '\0' ? "VERDICT: nothing wrong" : "VERDICT: "), std::string::npos) << text;
  EXPECT_EQ(text.find("\033["), std::string::npos) << "no colour when not on a terminal";
  // And on the status page's data: the daemon judges itself the same way.
  const std::string status = httpGet(*port, "/api/v1/status").body;
  const std::string want = *c.cause == '\0' ? "\"cause\":null" : std::string("\"cause\":\"") + c.cause + "\"";
  EXPECT_NE(status.find(want), std::string::npos) << status;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, TriageScenarioTest, ::testing::ValuesIn(kCases), [](const auto& info) {
  std::string name = info.param.scenario;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

// window.enabled: false (docs/configuration.md, "window"): no window, and every reader says so.
TEST(TriageSource, ANodeWithoutAWindowSaysSo) {
  TempDir dir;
  const std::string config = (dir.path() / "fabricmon.yaml").string();
  std::ofstream(config) << "window:\n  enabled: false\n";
  ChildProcess daemon({FABRICMON_BINARY, "demo", "--scenario", "healthy", "--config", config, "--listen", "127.0.0.1:0"});
  const auto port = daemon.waitForPort(std::chrono::seconds(15));
  ASSERT_TRUE(port) << daemon.output();
  const auto window = httpGet(*port, "/api/v1/window?seconds=60");
  EXPECT_EQ(window.status, 404);
  EXPECT_NE(window.body.find("recent-sample window is off"), std::string::npos) << window.body;
  const std::string status = httpGet(*port, "/api/v1/status").body;
  EXPECT_NE(status.find("\"verdict\":null"), std::string::npos) << status;
  EXPECT_NE(status.find("\"enabled\":false"), std::string::npos) << status;
  EXPECT_NE(status.find("recent-sample window is off"), std::string::npos) << status;
  EXPECT_NE(httpGet(*port, "/metrics").body.find("fabricmon_window_bytes 0"), std::string::npos);
  std::string out;
  const int code = runCommand({FABRICMON_BINARY, "triage", "--node", "http://127.0.0.1:" + std::to_string(*port)}, &out);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("recent-sample window is off"), std::string::npos) << out;
}

TEST(TriageSource, ANodeThatIsDownIsExit2WithAClearMessage) {
  // A port nobody listens on: bind one, note it, close it.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  std::string out;
  const int code = runCommand({FABRICMON_BINARY, "triage", "--node",
                               "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port))},
                              &out);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("no answer from the node"), std::string::npos) << out;
}

TEST(TriageSource, ANodeThatHangsIsExit2WithinTheTimeout) {
  // Listens but never answers: the backlog accepts the connection, nobody reads.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 8), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const auto start = std::chrono::steady_clock::now();
  std::string out;
  const int code = runCommand({FABRICMON_BINARY, "triage", "--timeout", "1s", "--node",
                               "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port))},
                              &out);
  const auto took = std::chrono::steady_clock::now() - start;
  ::close(fd);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("timed out"), std::string::npos) << out;
  EXPECT_LT(took, std::chrono::seconds(4));
}

TEST(TriageSource, BadUsageIsExit2) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--bogus"}, {"--since", "5x"}, {"--node", "ftp://x"},
        {"--prometheus", "http://127.0.0.1:1", "--selector", "instance=x"}, {"--selector", "{a=\"b\"}"},
        {"--node", "http://a", "--prometheus", "http://b"}}) {
    std::vector<std::string> argv{FABRICMON_BINARY, "triage"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::string out;
    EXPECT_EQ(runCommand(argv, &out), 2) << args.front() << ": " << out;
    EXPECT_NE(out.find("fabricmon triage:"), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace fabricmon::testing
