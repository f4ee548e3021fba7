// Files that are not files, errors that say where, and mutated configs (issue 16 items 5 and 9):
// check-config and run answer within a second with exit 2 for a FIFO, a directory or a device in
// place of a config, web-config, certificate or key; every mutation of a valid config or web-config
// gives exit 0 or exit 2 with a located message, never a crash or a hang. Then the collectors'
// input files fuzzed under a running daemon.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <random>
#include <regex>
#include <thread>

#include "tests/integration/daemon_fixture.hpp"
#include "tests/robustness/robustness_support.hpp"

namespace fabricmon::testing {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

class FilesTest : public DaemonTest {
 protected:
  struct Run {
    std::optional<int> code;
    std::string out;
    std::chrono::milliseconds took{};
  };
  Run fabricmon(std::vector<std::string> args, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    args.insert(args.begin(), FABRICMON_BINARY);
    const auto t0 = Clock::now();
    ChildProcess child(args);
    Run r;
    r.code = child.wait(limit);
    r.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
    if (!r.code) {
      child.signal(SIGKILL);
      child.wait(std::chrono::seconds(2));
    }
    r.out = child.output();
    return r;
  }
  fs::path fifo(const std::string& name) {
    const fs::path p = dir_ / name;
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
    return p;
  }
};

TEST_F(FilesTest, NonRegularFilesAreRefusedAtOnceWithExit2) {
  const fs::path cert = dir_ / "c.crt";
  writeFile(cert, "x");
  struct Case {
    std::string what;
    std::vector<std::string> args;
  };
  std::vector<Case> cases;
  for (const fs::path& bad : {fifo("config.fifo"), dir_, fs::path("/dev/zero")}) {
    cases.push_back({"config " + bad.string(), {"check-config", bad.string()}});
    cases.push_back({"run --config " + bad.string(), {"run", "--listen", "127.0.0.1:0", "--config", bad.string()}});
  }
  for (const fs::path& bad : {fifo("web.fifo"), dir_, fs::path("/dev/zero")}) {
    const fs::path cfg = dir_ / ("web-" + std::to_string(cases.size()) + ".yaml");
    writeFile(cfg, "web:\n  config_file: " + bad.string() + "\n");
    cases.push_back({"web-config " + bad.string(), {"check-config", cfg.string()}});
    cases.push_back({"run, web-config " + bad.string(), {"run", "--listen", "127.0.0.1:0", "--config", cfg.string()}});
  }
  for (const fs::path& bad : {fifo("cert.fifo"), fifo("key.fifo")}) {
    const bool isCert = bad.filename() == "cert.fifo";
    const fs::path web = dir_ / ("w-" + std::to_string(cases.size()) + ".yml");
    writeFile(web, "tls_server_config:\n  cert_file: " + (isCert ? bad.string() : cert.string()) +
                       "\n  key_file: " + (isCert ? cert.string() : bad.string()) + "\n");
    const fs::path cfg = dir_ / ("c-" + std::to_string(cases.size()) + ".yaml");
    writeFile(cfg, "web:\n  config_file: " + web.string() + "\n");
    cases.push_back({bad.filename().string(), {"check-config", cfg.string()}});
  }
  for (const auto& c : cases) {
    const Run r = fabricmon(c.args, std::chrono::seconds(3));
    ASSERT_TRUE(r.code.has_value()) << c.what << ": still running after 3 s (blocked?)";
    EXPECT_EQ(*r.code, 2) << c.what << "\n" << r.out;
    EXPECT_LT(r.took, std::chrono::seconds(1)) << c.what;
    EXPECT_TRUE(r.out.find("not a regular file") != std::string::npos) << c.what << "\n" << r.out;
  }
}

TEST_F(FilesTest, WebConfigErrorsNameTheirLineAndTheKeyThatPointedToThem) {
  const fs::path web = dir_ / "web.yml";
  writeFile(web, "tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /nonexistent.key\nbogus: 1\n");
  const fs::path cfg = dir_ / "fabricmon.yaml";
  writeFile(cfg, "# comment\nweb:\n  listen: 127.0.0.1:0\n  config_file: " + web.string() + "\n");
  const Run r = fabricmon({"check-config", cfg.string()});
  ASSERT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(cfg.string() + ":4:16: web.config_file: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(web.string() + ":2:14: tls_server_config.cert_file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(web.string() + ":4:1: bogus"), std::string::npos) << r.out;
}

// A located message: "file:line:col: ..." or "file: ..." naming the file.
bool located(const std::string& out, const std::string& file) {
  return out.find(file + ":") != std::string::npos;
}

std::string mutate(std::string text, std::mt19937& rng) {
  static const std::string kPieces[] = {"\n", ":", " ", "- ", "[", "]", "{", "}", "'", "\"", "&a", "*a",
                                        "!!binary", "---", "0", "-1", "1e999", "nan", "~", "\t", "#",
                                        "\xff\xfe", std::string(1, '\0'), "99999999999999999999",
                                        "web", "listen", "poll", "interval", "config_file", "1ms"};
  std::uniform_int_distribution<int> op(0, 3);
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t pos = text.empty() ? 0 : rng() % (text.size() + 1);
    switch (op(rng)) {
      case 0: text.insert(pos, kPieces[rng() % std::size(kPieces)]); break;
      case 1: if (!text.empty()) text.erase(std::min(pos, text.size() - 1), 1 + rng() % 8); break;
      case 2: if (!text.empty()) text[std::min(pos, text.size() - 1)] = static_cast<char>(rng()); break;
      case 3: text.insert(pos, text.substr(rng() % (text.size() + 1), rng() % 40)); break;
    }
  }
  return text;
}

TEST_F(FilesTest, MutatedConfigsExit0Or2WithALocatedMessage) {
  const std::string base = readFileText(FABRICMON_SOURCE_DIR "/config/fabricmon.yaml");
  ASSERT_FALSE(base.empty());
  std::mt19937 rng(16);
  const fs::path cfg = dir_ / "m.yaml";
  int rejected = 0;
  const int kCases = 300;
  for (int i = 0; i < kCases; ++i) {
    writeFile(cfg, mutate(base, rng));
    const Run r = fabricmon({"check-config", cfg.string()});
    ASSERT_TRUE(r.code.has_value()) << "hang on mutation " << i;
    ASSERT_TRUE(*r.code == 0 || *r.code == 2) << "exit " << *r.code << " on mutation " << i << "\n" << r.out;
    if (*r.code == 2) {
      ++rejected;
      EXPECT_TRUE(located(r.out, cfg.string())) << r.out;
    }
  }
  std::printf("config mutation: %d cases, %d rejected with a located message, 0 crashes\n", kCases, rejected);
}

TEST_F(FilesTest, MutatedWebConfigsExit0Or2WithALocatedMessage) {
  const fs::path web = dir_ / "web.yml";
  const fs::path cfg = dir_ / "fabricmon.yaml";
  writeFile(cfg, "web:\n  config_file: " + web.string() + "\n");
  const std::string base =
      "tls_server_config:\n  cert_file: /nonexistent.crt\n  key_file: /nonexistent.key\n"
      "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.pem\n"
      "  min_version: TLS12\n  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n"
      "basic_auth_users:\n  alice: $2y$10$abcdefghijklmnopqrstuuVCh3pxHBmVqsnEetv8LNPYOfNzq3ZuW\n";
  std::mt19937 rng(1616);
  const int kCases = 200;
  for (int i = 0; i < kCases; ++i) {
    writeFile(web, mutate(base, rng));
    const Run r = fabricmon({"check-config", cfg.string()});
    ASSERT_TRUE(r.code.has_value()) << "hang on mutation " << i;
    ASSERT_TRUE(*r.code == 0 || *r.code == 2) << "exit " << *r.code << "\n" << r.out;
    if (*r.code == 2) {
      EXPECT_TRUE(located(r.out, cfg.string() + ":2:16")) << r.out;
      EXPECT_TRUE(located(r.out, web.string())) << r.out;
    }
  }
}

// Random bytes, huge files, binary, non-UTF-8 and device nodes written over the collectors' input
// files while the daemon polls: it keeps serving, every exported value is finite or a real NaN-free
// number, and its descriptors stay bounded.
TEST_F(FilesTest, FuzzedInputFilesNeverCrashOrExportNonFiniteValues) {
  simulate();
  ASSERT_GT(start(nodeArgs()), 0);
  const pid_t pid = daemon_->pid();
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir_ / "node")) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  ASSERT_GT(files.size(), 50u);
  std::mt19937 rng(9);
  // The baseline is the daemon's steady descriptor count: collectors open their kept files on their
  // first runs (the slow ones later than the fast), so wait until the count holds for 1.5 s.
  size_t fds0 = fdCount(pid);
  for (auto stableSince = Clock::now(), giveUp = Clock::now() + std::chrono::seconds(15);
       Clock::now() - stableSince < std::chrono::milliseconds(1500) && Clock::now() < giveUp;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const size_t now = fdCount(pid);
    if (now != fds0) {
      fds0 = now;
      stableSince = Clock::now();
    }
  }
  const auto end = Clock::now() + std::chrono::seconds(20);
  int rounds = 0;
  while (Clock::now() < end && rounds < 400) {
    ++rounds;
    const fs::path& f = files[rng() % files.size()];
    std::string content;
    switch (rng() % 6) {
      case 0: for (int i = 0; i < 64; ++i) content += static_cast<char>(rng()); break;
      case 1: content.assign(200000, '9'); break;
      case 2: content = "\xff\xfe\xfd nan inf -1 1e300\n"; break;
      case 3: content = "nan Gb/sec\n"; break;
      case 4: content = std::string("1\0" "2", 3); break;
      case 5: {
        std::error_code ec;
        fs::remove(f, ec);
        fs::create_symlink("/dev/zero", f, ec);
        continue;
      }
    }
    std::error_code ec;
    fs::remove(f, ec);  // a symlink from case 5 must not redirect the write to /dev/zero
    writeFile(f, content);
    std::this_thread::sleep_for(std::chrono::milliseconds(25));  // spread over several polls
    if (rounds % 20 == 0) {
      const auto r = httpGet(port_, "/metrics");
      ASSERT_EQ(r.status, 200) << daemon_->output().substr(0, 3000);
      EXPECT_EQ(r.body.find(" NaN\n"), std::string::npos);
      EXPECT_EQ(r.body.find(" +Inf\n"), std::string::npos);
      EXPECT_EQ(r.body.find(" -Inf\n"), std::string::npos);
    }
  }
  EXPECT_FALSE(daemon_->wait(std::chrono::milliseconds(1)).has_value());
  EXPECT_LT(fdCount(pid), fds0 + 64);
  std::printf("file fuzzing: %d writes over %zu files, daemon up, fds %zu -> %zu\n", rounds, files.size(), fds0,
              fdCount(pid));
  EXPECT_EQ(stop(std::chrono::seconds(5)), 0);
}

// Devices vanish and come back for a while; descriptors and memory do not grow with the churn.
TEST_F(FilesTest, DeviceChurnLeaksNeitherDescriptorsNorMemory) {
  simulate();
  ASSERT_GT(start(nodeArgs()), 0);
  const pid_t pid = daemon_->pid();
  const fs::path ib = dir_ / "node/sys/class/infiniband";
  std::vector<fs::path> devices;
  for (const auto& e : fs::directory_iterator(ib)) devices.push_back(e.path());
  ASSERT_FALSE(devices.empty());
  const fs::path parked = dir_ / "parked";
  fs::create_directories(parked);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const size_t fds0 = fdCount(pid);
  const long rss0 = rssKiB(pid);
  for (int round = 0; round < 20; ++round) {
    const fs::path& d = devices[static_cast<size_t>(round) % devices.size()];
    fs::rename(d, parked / d.filename());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fs::rename(parked / d.filename(), d);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(httpGet(port_, "/metrics").status, 200);
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const size_t fds1 = fdCount(pid);
  const long rss1 = rssKiB(pid);
  std::printf("device churn: 20 rounds, fds %zu -> %zu, RSS %ld -> %ld KiB\n", fds0, fds1, rss0, rss1);
  EXPECT_LE(fds1, fds0 + 8);
  EXPECT_LT(rss1, rss0 + 16 * 1024);
  EXPECT_EQ(stop(std::chrono::seconds(5)), 0);
}

}  // namespace
}  // namespace fabricmon::testing
