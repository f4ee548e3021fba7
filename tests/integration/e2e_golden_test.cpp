// End-to-end golden files (issue 26 item 7): the real fabricmon binary, every collector of the
// registry enabled (the default; peer_port only where MADs exist, see writeConfig), over each
// real-format fixture tree; its /metrics, normalised,
// must equal tests/fixtures/golden/e2e/<case>.prom.
//
// Cases, found, not listed by hand:
//   * every sysfs tree of tests/fixtures/realdata/ and tests/fixtures/handmade/ (*.ttar), with the
//     other sources pointed at nothing (an empty directory, an LLDP file without neighbours), so no
//     answer comes from the machine running the test; a collector that can read a capture instead
//     of the kernel (its own `collectors.<name>.file` key, e.g. devlink_health) reads
//     `<stem>.<name>.*` beside the tree when there is one, else a file that is not there;
//   * `sim`: the simulated GPU node at t = 0 (sim::Simulator, seed 1: byte-identical files) with every
//     file source -- ethtool -S, DCB, FEC, module EEPROMs, LLDP, the kernel log -- and the Slurm job
//     of tests/fixtures/slurm;
//   * `demo`: `fabricmon demo`, the only way to MADs without an InfiniBand fabric (peer_port); its node
//     moves while it runs, so only the series are compared (every value written as `V`).
// Normalised: only the families of the registry's collectors (their families()) are kept; the
// daemon's own metrics, the watchdog's and the window's vary with timing and are dropped.
// Every collector of the registry must have a sample in at least one golden file.
//
// Regenerate (then review with git diff):
//   FABRICMON_UPDATE_GOLDEN=1 build/tests/integration/e2e_golden_test
// (tests/fixtures/README.md, "golden/e2e/").

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "collectors/registry.hpp"
#include "config/config_loader.hpp"
#include "tests/integration/daemon_fixture.hpp"
#include "tests/unit/collectors/rdma_test_support.hpp"

namespace fabricmon::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = FABRICMON_SOURCE_DIR "/tests/fixtures";
const fs::path kGoldenDir = kFixtures / "golden" / "e2e";

bool updating() {
  const char* v = std::getenv("FABRICMON_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Family name -> the collectors that may emit it, from each registry collector's families().
std::map<std::string, std::set<std::string>> collectorFamilies() {
  static const std::map<std::string, std::set<std::string>> kMap = [] {
    std::map<std::string, std::set<std::string>> out;
    const fs::path dir = makeTempDir("e2e-families");
    SourcesConfig sc;
    sc.sysfsRoot = dir.string();
    sc.ethtoolDir = dir.string();
    sc.dcbDir = dir.string();
    const Sources sources = makeSources(sc);
    const Config config;
    for (const CollectorEntry* entry : collectorRegistry()) {
      const auto collector = entry->make(sources, config);
      for (const FamilyDef* f : collector->families()) out[std::string(f->name)].insert(std::string(entry->name));
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return out;
  }();
  return kMap;
}

/// The family of a sample or comment line ("" for none).
std::string familyOf(const std::string& line) {
  if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
    const auto end = line.find(' ', 7);
    return line.substr(7, end == std::string::npos ? std::string::npos : end - 7);
  }
  if (line.empty() || line[0] == '#') return "";
  const auto end = line.find_first_of("{ ");
  return line.substr(0, end);
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Keeps the collectors' families; with `maskValues`, every sample's value becomes `V`. A wall-clock
/// time (`*_timestamp_seconds`: a kernel log record's time is boot time + its offset) is always `T`.
std::string normalise(const std::string& text, bool maskValues) {
  const auto families = collectorFamilies();
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const std::string family = familyOf(line);
    if (family.empty() || families.count(family) == 0) continue;
    if (line[0] != '#') {
      if (endsWith(family, "_timestamp_seconds")) {
        line = line.substr(0, line.rfind(' ')) + " T";
      } else if (maskValues) {
        line = line.substr(0, line.rfind(' ')) + " V";
      }
    }
    out += line + "\n";
  }
  return out;
}

/// Collectors with at least one sample in `normalised`. A family that two collectors emit counts for
/// the one its `source` label names (fabricmon_port_neighbor_info: `lldp` from lldp_neighbors, `mad`
/// from peer_port; docs/contract.md §4); one without such a label counts for neither.
std::set<std::string> collectorsIn(const std::string& normalised) {
  static const std::map<std::string, std::string> kBySource = {{"lldp", "lldp_neighbors"}, {"mad", "peer_port"}};
  const auto families = collectorFamilies();
  std::set<std::string> out;
  std::istringstream in(normalised);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto it = families.find(familyOf(line));
    if (it == families.end()) continue;
    if (it->second.size() == 1) {
      out.insert(*it->second.begin());
      continue;
    }
    for (const auto& [source, collector] : kBySource) {
      if (line.find("source=\"" + source + "\"") != std::string::npos && it->second.count(collector)) {
        out.insert(collector);
      }
    }
  }
  return out;
}

struct Case {
  std::string name;
  std::function<std::vector<std::string>(const fs::path& dir)> prepare;  ///< fabricmon's arguments
  bool maskValues = false;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

/// The config every case runs with: every collector every 100 ms (the goldens are read once the
/// output holds still), nothing written outside the case's directory, and the Slurm paths either
/// of tests/fixtures/slurm or of nothing.
/// `withMads`: peer_port's MADs come only from the kernel's umad devices (or the demo's own source),
/// never from files, so over a file tree it does not apply and is off: a test machine with an
/// InfiniBand HCA must not leak its fabric into a golden file.
/// The collectors that can read a capture instead of the kernel: those whose own settings declare a
/// `file` key, found by asking the config loader, so a new one needs no line here.
const std::vector<std::string>& captureCollectors() {
  static const std::vector<std::string> names = [] {
    ConfigSchema schema;
    for (const CollectorEntry* c : collectorRegistry()) schema.collectors.push_back({c->name, c->bindSettings});
    std::vector<std::string> out;
    for (const CollectorEntry* c : collectorRegistry()) {
      const std::string probe = "collectors:\n  " + std::string(c->name) + ":\n    file: /capture\n";
      if (loadConfigText(probe, "probe.yaml", schema).ok()) out.emplace_back(c->name);
    }
    return out;
  }();
  return names;
}

/// `captures`: `<stem>` of a fixture tree; each capture collector reads `<stem>.<name>.*` beside it
/// when there is one, else (and without a stem) a file that is not there: no data, never the
/// machine's kernel.
void writeConfig(const fs::path& dir, bool withJob, bool fileSources, bool withMads = false,
                 const fs::path& captures = {}) {
  const fs::path none = dir / "none";
  const fs::path slurm = kFixtures / "slurm";
  std::ostringstream y;
  y << "poll:\n  interval: 100ms\n  slow_interval: 100ms\n"
    << "collectors:\n  transceiver:\n    interval: 100ms\n";
  for (const std::string& name : captureCollectors()) {
    fs::path file = none / (name + ".capture");
    if (!captures.empty()) {
      for (const auto& e : fs::directory_iterator(captures.parent_path())) {
        const std::string f = e.path().filename().string();
        if (f.starts_with(captures.filename().string() + "." + name + ".")) file = e.path();
      }
    }
    y << "  " << name << ":\n    file: " << file.string() << "\n";
  }
  y << (withMads ? "" : "  peer_port:\n    enabled: false\n")
    << "state:\n  path: " << (dir / "state.json").string() << "\n"
    << "slurm_jobs:\n  spool_dir: " << none.string() << "\n"
    << "  cgroup_root: " << (withJob ? slurm / "cgroup" : none).string() << "\n"
    << "  proc_root: " << (withJob ? slurm / "proc" : none).string() << "\n";
  if (withJob) y << "  gpu_job_map_dir: " << (slurm / "gpu_job_map").string() << "\n";
  if (fileSources) {
    // No neighbour (lldpcli's own answer then), and a kernel log with nothing in it yet.
    writeFile(dir / "lldp.json", "{\"lldp\": [{}]}\n");
    y << "sources:\n  lldp_file: " << (dir / "lldp.json").string() << "\n  kmsg_file: " << (dir / "kmsg").string()
      << "\n";
  }
  writeFile(dir / "fabricmon.yaml", y.str());
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* group : {"realdata", "handmade"}) {
    std::vector<fs::path> trees;
    for (const auto& e : fs::directory_iterator(kFixtures / group)) {
      if (e.path().extension() == ".ttar") trees.push_back(e.path());
    }
    std::sort(trees.begin(), trees.end());
    for (const fs::path& ttar : trees) {
      out.push_back({std::string(group) + "_" + ttar.stem().string(), [ttar](const fs::path& dir) {
                       unpackTtar(ttar, dir / "sys");
                       fs::create_directories(dir / "empty");
                       writeConfig(dir, false, true, false, ttar.parent_path() / ttar.stem());
                       const std::string empty = (dir / "empty").string();
                       // Every interface of the tree, not only those behind RDMA ports: some trees
                       // have no RDMA device at all.
                       return std::vector<std::string>{"run", "--config", (dir / "fabricmon.yaml").string(),
                                                       "--sysfs-root", (dir / "sys").string(), "--ethtool-dir",
                                                       empty, "--dcb-dir", empty, "--fec-dir", empty,
                                                       "--module-eeprom-dir", empty, "--netdev-include", ".*"};
                     }});
    }
  }
  out.push_back({"sim", [](const fs::path& dir) {
                   sim::SimOptions o;
                   o.root = dir / "node";
                   o.managementNic = true;  // as fabricmon demo's node
                   o.lldpPod = "su1";
                   sim::Simulator simulator(o);
                   const auto st = simulator.init();  // the node at t = 0; never ticked
                   EXPECT_TRUE(st.ok()) << st.error().message;
                   writeConfig(dir, true, false);
                   const fs::path n = dir / "node";
                   std::ostringstream extra;
                   extra << "sources:\n  lldp_file: " << (n / "lldp" / "neighbors.json").string()
                         << "\n  kmsg_file: " << (n / "kmsg").string() << "\n";
                   std::ofstream(dir / "fabricmon.yaml", std::ios::app) << extra.str();
                   return std::vector<std::string>{"run", "--config", (dir / "fabricmon.yaml").string(),
                                                   "--sysfs-root", (n / "sys").string(), "--ethtool-dir",
                                                   (n / "ethtool").string(), "--dcb-dir", (n / "dcb").string(),
                                                   "--fec-dir", (n / "fec").string(), "--module-eeprom-dir",
                                                   (n / "module_eeprom").string()};
                 }});
  out.push_back({"demo",
                 [](const fs::path& dir) {
                   writeConfig(dir, true, false, true);
                   return std::vector<std::string>{"demo", "--config", (dir / "fabricmon.yaml").string()};
                 },
                 true});
  return out;
}

/// Runs the case and returns its normalised /metrics once it holds still.
std::string runCase(const Case& c, const fs::path& dir) {
  // TMPDIR: the demo's node is made in the case's directory, removed with it.
  std::vector<std::string> argv{"env", "TMPDIR=" + dir.string(), FABRICMON_BINARY};
  const auto args = c.prepare(dir);
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--listen", "127.0.0.1:0"});
  ChildProcess daemon(argv);
  const auto port = daemon.waitForPort(std::chrono::seconds(20));
  if (!port) {
    ADD_FAILURE() << c.name << ": the daemon did not start:\n" << daemon.output();
    return "";
  }
  // Every collector runs every 100 ms: the output is taken once three scrapes 400 ms apart agree.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::string last;
  int same = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    const auto r = httpGet(*port, "/metrics");
    if (r.status != 200) continue;
    const std::string now = normalise(r.body, c.maskValues);
    same = !now.empty() && now == last ? same + 1 : 0;
    last = now;
    if (same == 2) {
      daemon.signal(SIGTERM);
      daemon.wait(std::chrono::seconds(5));
      return now;
    }
  }
  ADD_FAILURE() << c.name << ": /metrics did not hold still for 400 ms within 30 s\n" << daemon.output();
  return last;
}

class E2eGolden : public ::testing::TestWithParam<Case> {};

TEST_P(E2eGolden, MetricsMatchTheGoldenFile) {
  const Case& c = GetParam();
  const fs::path dir = makeTempDir("e2e-" + c.name);
  const std::string got = runCase(c, dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
  ASSERT_FALSE(got.empty()) << c.name;
  const fs::path golden = kGoldenDir / (c.name + ".prom");
  if (updating()) {
    fs::create_directories(kGoldenDir);
    std::ofstream(golden, std::ios::binary) << got;
    GTEST_SKIP() << "wrote " << golden;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden
                                  << " is missing; regenerate: FABRICMON_UPDATE_GOLDEN=1 "
                                     "build/tests/integration/e2e_golden_test";
  const std::string want = readText(golden);
  if (got != want) {
    // The first differing lines, then the rule to regenerate.
    std::istringstream g(got), w(want);
    std::string gl, wl, diff;
    int shown = 0;
    for (int n = 1; shown < 10 && (std::getline(g, gl) || std::getline(w, wl)); ++n) {
      if (!std::getline(w, wl)) wl = "<end>";
      if (gl != wl) {
        diff += "line " + std::to_string(n) + "\n  golden: " + wl + "\n  now:    " + gl + "\n";
        ++shown;
      }
      gl.clear();
    }
    ADD_FAILURE() << c.name << ": /metrics differs from " << golden << "\n"
                  << diff
                  << "If the change is intended: FABRICMON_UPDATE_GOLDEN=1 build/tests/integration/e2e_golden_test "
                     "and review git diff tests/fixtures/golden/e2e";
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, E2eGolden, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// Every collector of the registry shows in some golden file, and every golden file has its case.
TEST(E2eGoldenCoverage, EveryCollectorHasASampleInSomeGolden) {
  std::set<std::string> covered, caseNames;
  for (const Case& c : cases()) caseNames.insert(c.name);
  ASSERT_TRUE(fs::is_directory(kGoldenDir)) << kGoldenDir;
  for (const auto& e : fs::directory_iterator(kGoldenDir)) {
    if (e.path().extension() != ".prom") continue;
    EXPECT_TRUE(caseNames.count(e.path().stem().string())) << e.path() << " has no case: remove it";
    const auto in = collectorsIn(readText(e.path()));
    covered.insert(in.begin(), in.end());
  }
  for (const CollectorEntry* entry : collectorRegistry()) {
    EXPECT_TRUE(covered.count(std::string(entry->name)))
        << "collector " << entry->name << " has no sample in any golden file of " << kGoldenDir;
  }
}

// A capture beside a fixture tree (`<stem>.<collector>.<ext>`) is read by a collector that reads
// captures, and where it came from is said where it is used: a format without comments (JSON) cannot
// carry the header a ttar has, so the collector's own test names the file and its shape
// (tests/fixtures/README.md, "handmade/").
TEST(E2eGoldenCoverage, EveryCaptureBesideATreeIsReadAndSaysWhereItCameFrom) {
  const std::vector<std::string>& readers = captureCollectors();
  size_t captures = 0;
  for (const char* group : {"realdata", "handmade"}) {
    std::set<std::string> stems;
    for (const auto& e : fs::directory_iterator(kFixtures / group)) {
      if (e.path().extension() == ".ttar") stems.insert(e.path().stem().string());
    }
    for (const auto& e : fs::directory_iterator(kFixtures / group)) {
      const std::string file = e.path().filename().string();
      const size_t dot = file.find('.');
      if (dot == std::string::npos || !stems.count(file.substr(0, dot)) || e.path().extension() == ".ttar") continue;
      const size_t end = file.find('.', dot + 1);
      const std::string collector = file.substr(dot + 1, end == std::string::npos ? std::string::npos : end - dot - 1);
      ++captures;
      EXPECT_NE(std::find(readers.begin(), readers.end(), collector), readers.end())
          << e.path() << ": no collector named '" << collector << "' reads a capture (collectors.<name>.file)";
      const fs::path test = fs::path(FABRICMON_SOURCE_DIR) / "tests/unit/collectors" / (collector + "_test.cpp");
      const std::string cited = "tests/fixtures/" + std::string(group) + "/" + file;
      EXPECT_NE(readText(test).find(cited), std::string::npos)
          << test << " does not name " << cited << " (say there where the capture came from)";
    }
  }
  EXPECT_GT(captures, 0u) << "no capture beside any tree: this test checks nothing";
}

}  // namespace
}  // namespace fabricmon::testing
