// What the running daemon offers beyond plain /metrics: the RoCE series of every simulated port,
// the secured endpoint (web.config_file: TLS + basic auth) and the textfile output.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/integration/daemon_fixture.hpp"
#include "tests/support/tls_test_support.hpp"

namespace fabricmon::testing {
namespace {

bool has(const std::string& body, const std::string& needle) { return body.find(needle) != std::string::npos; }

// The files a process has mapped (/proc/PID/maps), one path per line.
std::string mappedFiles(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  std::string line, out;
  while (std::getline(in, line)) {
    if (const size_t slash = line.find('/'); slash != std::string::npos) out += line.substr(slash) + "\n";
  }
  return out;
}

class OutputsTest : public DaemonTest {};

TEST_F(OutputsTest, EveryRocePortShowsPauseEcnCnpAndQosConfigurationSeries) {
  auto& sim = simulate("congested");
  auto args = nodeArgs();
  args.insert(args.end(), {"--poll-interval", "200ms"});
  ASSERT_NE(start(args), 0);
  const std::string body = scrapeUntil([](const std::string& b) {
    return has(b, "fabricmon_dcqcn_np_enabled") && has(b, "fabricmon_pfc_enabled") &&
           has(b, "fabricmon_roce_cnp_sent_total");
  });
  unsigned roce = 0;
  for (const auto& port : sim.ports()) {
    if (port.linkLayer != "Ethernet") continue;
    ++roce;
    SCOPED_TRACE(port.interface);
    const std::string ifc = "{interface=\"" + port.interface + "\"";
    const std::string dev = "{device=\"" + port.device + "\",port=\"" + std::to_string(port.port) + "\"}";
    for (const char* dir : {"rx", "tx"}) {
      EXPECT_FALSE(std::isnan(seriesValue(
          body, "fabricmon_pfc_pause_seconds_total" + ifc + ",priority=\"3\",direction=\"" + dir + "\"}")));
    }
    EXPECT_FALSE(std::isnan(seriesValue(body, "fabricmon_pfc_pause_frames_received_total" + ifc + ",priority=\"3\"}")));
    EXPECT_FALSE(std::isnan(seriesValue(body, "fabricmon_priority_ecn_marked_packets_total" + ifc + ",priority=\"3\"}")));
    EXPECT_FALSE(std::isnan(seriesValue(body, "fabricmon_roce_ecn_marked_packets_total" + dev)));
    EXPECT_FALSE(std::isnan(seriesValue(body, "fabricmon_roce_cnp_sent_total" + dev)));
    EXPECT_FALSE(std::isnan(seriesValue(body, "fabricmon_roce_cnp_handled_total" + dev)));
    EXPECT_EQ(seriesValue(body, "fabricmon_pfc_enabled" + ifc + ",priority=\"3\"}"), 1);
    EXPECT_EQ(seriesValue(body, "fabricmon_pfc_enabled" + ifc + ",priority=\"0\"}"), 0);
    EXPECT_EQ(seriesValue(body, "fabricmon_dcqcn_np_enabled" + ifc + ",priority=\"3\"}"), 1);
    EXPECT_EQ(seriesValue(body, "fabricmon_dcqcn_rp_enabled" + ifc + ",priority=\"3\"}"), 1);
    EXPECT_EQ(seriesValue(body, "fabricmon_dcb_trust_dscp" + ifc + "}"), 1);
  }
  EXPECT_EQ(roce, 8u);
  EXPECT_TRUE(has(body, "fabricmon_qos_intent_info{"));
}

TEST_F(OutputsTest, WebConfigServesTlsWithBasicAuthOnly) {
  const test_util::TempDir tls;
  const std::string problem = test_util::makeCertificates(tls.path());
  if (!problem.empty()) GTEST_SKIP() << "cannot make test certificates: " << problem;
  if (!test_util::haveProgram("curl")) GTEST_SKIP() << "curl is not installed";
  const std::string hash = test_util::bcryptHash("s3cret");
  ASSERT_FALSE(hash.empty());
  const std::string webConfig = tls.write("web.yml", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                                                     "basic_auth_users:\n  prometheus: '" + hash + "'\n");
  writeFile(dir_ / "fabricmon.yaml", "web:\n  config_file: " + webConfig + "\n");
  simulate();
  auto args = nodeArgs();
  args.insert(args.end(), {"--config", (dir_ / "fabricmon.yaml").string()});
  ASSERT_NE(start(args), 0);
  EXPECT_TRUE(has(daemon_->output(), "serving https://"));
  // TLS and basic auth come from the module, loaded because the web config asks for them.
  const std::string maps = mappedFiles(daemon_->pid());
  EXPECT_TRUE(has(maps, "/fabricmon-tls.so")) << maps;
  EXPECT_TRUE(has(maps, "/libssl.so")) << maps;
  const std::string url = "https://127.0.0.1:" + std::to_string(port_) + "/metrics";

  const auto good = test_util::curl(tls, url, {"--cacert", tls.file("ca.crt"), "-u", "prometheus:s3cret"});
  EXPECT_EQ(good.status, 200) << good.output;
  EXPECT_TRUE(has(good.body, "fabricmon_build_info")) << good.body.substr(0, 200);
  const auto wrong = test_util::curl(tls, url, {"--cacert", tls.file("ca.crt"), "-u", "prometheus:guess"});
  EXPECT_EQ(wrong.status, 401);
  const auto anonymous = test_util::curl(tls, url, {"--cacert", tls.file("ca.crt")});
  EXPECT_EQ(anonymous.status, 401);
  const auto untrusted = test_util::curl(tls, url, {"-u", "prometheus:s3cret"});
  EXPECT_EQ(untrusted.exitCode, 60) << "curl without the CA must refuse the certificate";
  EXPECT_EQ(httpGet(port_, "/metrics").status, 0) << "plain HTTP gets no HTTP answer from the TLS port";
  EXPECT_EQ(stop(), std::optional<int>(0));
}

// Plain HTTP needs no cryptography: OpenSSL and libcrypt (~1.8 MiB resident when mapped) stay out of
// the process (exporters/tls_module.hpp).
TEST_F(OutputsTest, PlainHttpMapsNoCryptographyLibrary) {
  simulate();
  ASSERT_NE(start(nodeArgs()), 0);
  ASSERT_EQ(httpGet(port_, "/metrics").status, 200);
  const std::string maps = mappedFiles(daemon_->pid());
  ASSERT_TRUE(has(maps, "/libc.so")) << "maps not readable: " << maps;
  for (const char* library : {"/fabricmon-tls.so", "/libssl.so", "/libcrypto.so", "/libcrypt.so"}) {
    EXPECT_FALSE(has(maps, library)) << library << " is mapped:\n" << maps;
  }
  EXPECT_EQ(stop(), std::optional<int>(0));
}

TEST_F(OutputsTest, BrokenWebConfigIsABadConfigForRunAndCheckConfig) {
  writeFile(dir_ / "web.yml", "tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /nonexistent.key\n");
  writeFile(dir_ / "fabricmon.yaml", "web:\n  config_file: " + (dir_ / "web.yml").string() + "\n");
  std::string out;
  EXPECT_EQ(runCommand({FABRICMON_BINARY, "check-config", (dir_ / "fabricmon.yaml").string()}, &out), 2);
  EXPECT_TRUE(has(out, "nonexistent.crt")) << out;
  EXPECT_EQ(runCommand({FABRICMON_BINARY, "--config", (dir_ / "fabricmon.yaml").string(), "--listen",
                        "127.0.0.1:0", "--sysfs-root", dir_.string()},
                       &out),
            2);
  EXPECT_TRUE(has(out, "web.config_file")) << out;
}

TEST_F(OutputsTest, TextfileOutputHoldsTheSameExposition) {
  simulate();
  const auto prom = dir_ / "textfile" / "fabricmon.prom";
  std::filesystem::create_directories(prom.parent_path());
  writeFile(dir_ / "fabricmon.yaml", "poll:\n  interval: 200ms\ntextfile:\n  path: " + prom.string() +
                                         "\n  interval: 1s\n");
  auto args = nodeArgs();
  args.insert(args.end(), {"--config", (dir_ / "fabricmon.yaml").string()});
  ASSERT_NE(start(args), 0);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline && !has(text, "fabricmon_port_state{device=\"mlx5_0\"")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::ifstream in(prom);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_TRUE(has(text, "fabricmon_port_state{device=\"mlx5_0\"")) << text.substr(0, 300);
  EXPECT_TRUE(has(text, "# TYPE fabricmon_build_info gauge"));
  for (const auto& entry : std::filesystem::directory_iterator(prom.parent_path())) {
    EXPECT_EQ(entry.path().filename(), "fabricmon.prom") << "no temporary file is left behind";
  }
  EXPECT_EQ(stop(), std::optional<int>(0));
}

// top -H, ps -L and perf tell the daemon's threads apart by the names the kernel keeps for them
// (/proc/PID/task/TID/comm): each collector, the pipeline and the HTTP server carry their own.
TEST_F(OutputsTest, ThreadsCarryTheNamesOfTheirJobs) {
  simulate();
  ASSERT_NE(start(nodeArgs()), 0);
  scrapeUntil([](const std::string& b) { return has(b, "fabricmon_roce_cnp_sent_total"); });
  std::multiset<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator(
           "/proc/" + std::to_string(daemon_->pid()) + "/task")) {
    std::ifstream in(task.path() / "comm");
    std::string name;
    if (std::getline(in, name)) names.insert(name);
  }
  std::string all;
  for (const auto& n : names) all += n + " ";
  for (const char* job : {"pipeline", "discovery", "hw_counters", "ethtool_pfc", "netdev_link"}) {
    EXPECT_EQ(names.count(job), 1u) << job << " in: " << all;
  }
  EXPECT_GE(names.count("http"), 1u) << all;  // one per HTTP thread (daemon/app.cpp, kHttpThreads)
  EXPECT_EQ(names.count("fabricmon"), 1u) << "only the main thread keeps the program's name: " << all;
  EXPECT_EQ(stop(), std::optional<int>(0));
}

}  // namespace
}  // namespace fabricmon::testing
