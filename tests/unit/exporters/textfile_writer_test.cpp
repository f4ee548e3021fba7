// writeTextfile: atomic replacement, cleanup on failure, and the real node_exporter reading it.

#include "exporters/textfile_writer.hpp"

#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "tests/support/http_get.hpp"
#include "tests/support/process.hpp"
#include "tests/support/tls_test_support.hpp"

namespace fabricmon {
namespace {

// A check that cannot run must not pass: scripts/install-deps installs every test tool, so a
// missing one is a broken CI machine, not a reason to skip (issue 16 item 8).
constexpr const char* kMissingTool = "not installed (scripts/install-deps installs it): ";

using namespace std::chrono_literals;
using test_util::readFile;
using test_util::TempDir;

std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

const std::string kExposition =
    "# HELP fabricmon_port_state State of the RDMA port (4 = ACTIVE).\n"
    "# TYPE fabricmon_port_state gauge\n"
    "fabricmon_port_state{device=\"mlx5_0\",port=\"1\"} 4\n"
    "# HELP fabricmon_port_transmit_bytes_total Bytes transmitted by the port.\n"
    "# TYPE fabricmon_port_transmit_bytes_total counter\n"
    "fabricmon_port_transmit_bytes_total{device=\"mlx5_0\",port=\"1\"} 1.234e+12\n";

TEST(WriteTextfile, WritesExactlyTheTextAndLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string path = dir.file("fabricmon.prom");
  ASSERT_TRUE(writeTextfile(path, kExposition).ok());
  EXPECT_EQ(readFile(path), kExposition);
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"fabricmon.prom"});
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u & ~[] { mode_t m = ::umask(0); ::umask(m); return m; }());

  // Replacing with a shorter text leaves no tail of the old one.
  ASSERT_TRUE(writeTextfile(path, "x 1\n").ok());
  EXPECT_EQ(readFile(path), "x 1\n");
  ASSERT_TRUE(writeTextfile(path, "").ok());
  EXPECT_EQ(readFile(path), "");
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"fabricmon.prom"});
}

TEST(WriteTextfile, AReaderSeesTheOldOrTheNewFileNeverAPart) {
  TempDir dir;
  const std::string path = dir.file("fabricmon.prom");
  // Two texts of different sizes, large enough to need several write(2) chunks to be cut apart.
  const std::string a = std::string(300000, 'a') + "\n";
  const std::string b = std::string(200000, 'b') + "\n";
  ASSERT_TRUE(writeTextfile(path, a).ok());
  std::atomic<bool> done{false};
  std::atomic<int> torn{0}, reads{0};
  std::thread reader([&] {
    while (!done) {
      const std::string seen = readFile(path);
      ++reads;
      if (seen != a && seen != b) ++torn;
    }
  });
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(writeTextfile(path, i % 2 ? a : b).ok());
  done = true;
  reader.join();
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"fabricmon.prom"});
}

TEST(WriteTextfile, FailuresNameThePathAndCleanUp) {
  TempDir dir;
  const std::string missing = dir.file("absent/fabricmon.prom");
  Status s = writeTextfile(missing, kExposition);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("write textfile " + missing), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("ENOENT"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().errnum, ENOENT);

  // The target is a directory: the rename fails after the temporary file was written.
  ASSERT_EQ(::mkdir(dir.file("taken.prom").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(dir.file("taken.prom/inside").c_str(), 0755), 0);
  s = writeTextfile(dir.file("taken.prom"), kExposition);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("(rename "), std::string::npos) << s.error().message;
  EXPECT_EQ(listDir(dir.path()), std::vector<std::string>{"taken.prom"});  // no temporary left

  if (::geteuid() != 0) {
    ASSERT_EQ(::mkdir(dir.file("ro").c_str(), 0555), 0);
    s = writeTextfile(dir.file("ro/fabricmon.prom"), kExposition);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find(dir.file("ro/fabricmon.prom")), std::string::npos);
    EXPECT_EQ(s.error().errnum, EACCES);
  }
}

uint16_t freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST(WriteTextfile, NodeExporterServesTheFileWithoutScrapeError) {
  ASSERT_TRUE(test_util::haveProgram("prometheus-node-exporter")) << kMissingTool << "prometheus-node-exporter";
  TempDir dir;
  ASSERT_TRUE(writeTextfile(dir.file("fabricmon.prom"), kExposition).ok());
  const uint16_t port = freePort();
  testing::ChildProcess exporter({"prometheus-node-exporter", "--collector.textfile.directory=" + dir.path(),
                                  "--collector.disable-defaults", "--collector.textfile",
                                  "--web.listen-address=127.0.0.1:" + std::to_string(port)});
  ASSERT_TRUE(exporter.waitForOutput("Listening on", 10s)) << exporter.output();
  auto r = testing::httpGet(port, "/metrics");
  ASSERT_EQ(r.status, 200) << exporter.output();
  EXPECT_EQ(testing::seriesValue(r.body, "node_textfile_scrape_error"), 0) << r.body;
  EXPECT_EQ(testing::seriesValue(r.body, "fabricmon_port_state{device=\"mlx5_0\",port=\"1\"}"), 4) << r.body;
  EXPECT_EQ(testing::seriesValue(r.body, "fabricmon_port_transmit_bytes_total{device=\"mlx5_0\",port=\"1\"}"), 1.234e12);
  EXPECT_NE(r.body.find("# TYPE fabricmon_port_transmit_bytes_total counter"), std::string::npos);

  // A rewrite is picked up at the next scrape, with no error and no stray temporary file read.
  ASSERT_TRUE(writeTextfile(dir.file("fabricmon.prom"),
                            "# TYPE fabricmon_port_state gauge\nfabricmon_port_state{device=\"mlx5_0\",port=\"1\"} 1\n")
                  .ok());
  r = testing::httpGet(port, "/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(testing::seriesValue(r.body, "node_textfile_scrape_error"), 0);
  EXPECT_EQ(testing::seriesValue(r.body, "fabricmon_port_state{device=\"mlx5_0\",port=\"1\"}"), 1);
  EXPECT_TRUE(std::isnan(testing::seriesValue(r.body, "fabricmon_port_transmit_bytes_total{device=\"mlx5_0\",port=\"1\"}")));

  exporter.signal(SIGTERM);
  EXPECT_TRUE(exporter.wait(10s).has_value());
}

}  // namespace
}  // namespace fabricmon
