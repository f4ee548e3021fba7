// The real SIOCETHTOOL source against the running kernel, on veth pairs inside a private network
// namespace (a forked child calls unshare(CLONE_NEWNET), so nothing leaks into the host).
// Skipped, with the reason, where unshare or `ip` is unavailable.

#include <gtest/gtest.h>
#include <net/if.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "collectors/sources/ethtool_ioctl.hpp"
#include "collectors/sources/ethtool_source.hpp"
#include "collectors/sources/ethtool_text.hpp"

namespace fabricmon {
namespace {

constexpr int kSkipExit = 77;

/// What the child reported: tab-separated lines "KIND\tfield\tfield...".
struct ChildReport {
  int exitCode = -1;
  std::vector<std::vector<std::string>> lines;
  std::string skipReason;

  std::vector<std::vector<std::string>> of(const std::string& kind) const {
    std::vector<std::vector<std::string>> out;
    for (const auto& l : lines) {
      if (!l.empty() && l[0] == kind) out.push_back(l);
    }
    return out;
  }
};

bool run(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

std::string capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

/// Runs `body` in a forked child inside a fresh network namespace; the child writes its report
/// to `out` and returns its exit code (kSkipExit with a "SKIP\treason" line to skip).
ChildReport inNetns(const std::function<int(FILE* out)>& body) {
  ChildReport report;
  int fds[2];
  if (::pipe(fds) != 0) {
    report.skipReason = std::string("pipe: ") + std::strerror(errno);
    return report;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    FILE* out = ::fdopen(fds[1], "w");
    int code;
    if (::unshare(CLONE_NEWNET) != 0) {
      std::fprintf(out, "SKIP\tunshare(CLONE_NEWNET) failed: %s (needs CAP_SYS_ADMIN)\n",
                   std::strerror(errno));
      code = kSkipExit;
    } else if (!run("ip -V")) {
      std::fprintf(out, "SKIP\tthe `ip` command (iproute2) is not installed\n");
      code = kSkipExit;
    } else {
      code = body(out);
    }
    std::fclose(out);
    ::_exit(code);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  report.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::istringstream ls(line);
    for (std::string f; std::getline(ls, f, '\t');) fields.push_back(f);
    if (!fields.empty() && fields[0] == "SKIP" && fields.size() > 1) report.skipReason = fields[1];
    report.lines.push_back(std::move(fields));
  }
  return report;
}

void report(FILE* out, const char* kind, const std::string& a, const std::string& b = {}) {
  std::fprintf(out, "%s\t%s\t%s\n", kind, a.c_str(), b.c_str());
}

bool addVethPair(FILE* out, const std::string& queues) {
  if (!run("ip link add vethA " + queues + " type veth peer name vethB " + queues) ||
      !run("ip link set vethA up") || !run("ip link set vethB up")) {
    std::fprintf(out, "SKIP\tcould not create a veth pair (no veth module?)\n");
    return false;
  }
  return true;
}

void reportStats(FILE* out, const char* kind, const Result<EthtoolStats>& r) {
  if (!r) {
    report(out, (std::string(kind) + "_ERR").c_str(), std::to_string(r.error().errnum),
           r.error().message);
    return;
  }
  for (const auto& [name, value] : r->pairs()) report(out, kind, name, std::to_string(value));
}

TEST(EthtoolKernelTest, VethStatsMatchEthtoolCommand) {
  const ChildReport rep = inNetns([](FILE* out) {
    if (!addVethPair(out, "")) return kSkipExit;
    report(out, "IFINDEX_B", std::to_string(::if_nametoindex("vethB")));
    report(out, "IFINDEX_A", std::to_string(::if_nametoindex("vethA")));
    auto source = makeEthtoolIoctlSource();
    reportStats(out, "A", source->read("vethA"));
    reportStats(out, "B", source->read("vethB"));
    reportStats(out, "LO", source->read("lo"));
    reportStats(out, "GONE", source->read("nosuchif0"));
    if (run("ethtool --version")) {
      std::istringstream text(capture("ethtool -S vethA"));
      for (std::string line; std::getline(text, line);) report(out, "TOOL", line);
    }
    return 0;
  });
  if (rep.exitCode == kSkipExit) GTEST_SKIP() << rep.skipReason;
  ASSERT_EQ(rep.exitCode, 0);

  std::map<std::string, std::string> a, b;
  std::vector<std::string> aOrder;
  for (const auto& l : rep.of("A")) {
    a[l[1]] = l[2];
    aOrder.push_back(l[1]);
  }
  for (const auto& l : rep.of("B")) b[l[1]] = l[2];
  ASSERT_TRUE(rep.of("A_ERR").empty()) << rep.of("A_ERR")[0][2];
  ASSERT_FALSE(aOrder.empty());
  // veth_get_ethtool_stats (drivers/net/veth.c): peer_ifindex first, then per-queue stats.
  EXPECT_EQ(aOrder.front(), "peer_ifindex");
  EXPECT_EQ(a["peer_ifindex"], rep.of("IFINDEX_B").at(0)[1]);
  EXPECT_EQ(b["peer_ifindex"], rep.of("IFINDEX_A").at(0)[1]);
  EXPECT_TRUE(a.count("rx_queue_0_drops"));
  EXPECT_TRUE(a.count("tx_queue_0_xdp_xmit"));

  // loopback has no ETH_SS_STATS set; an unknown name is ENODEV.
  ASSERT_EQ(rep.of("LO_ERR").size(), 1u);
  EXPECT_EQ(rep.of("LO_ERR")[0][1], std::to_string(EOPNOTSUPP));
  ASSERT_EQ(rep.of("GONE_ERR").size(), 1u);
  EXPECT_EQ(rep.of("GONE_ERR")[0][1], std::to_string(ENODEV));

  const auto tool = rep.of("TOOL");
  if (tool.empty()) {
    std::cout
        << "[ note ] ethtool binary not installed: skipped the comparison with `ethtool -S`\n";
    return;
  }
  std::string text;
  for (const auto& l : tool) text += l[1] + "\n";
  auto parsed = parseEthtoolText(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->pairs().size(), aOrder.size());
  for (size_t i = 0; i < aOrder.size(); ++i) {
    EXPECT_EQ(parsed->pairs()[i].first, aOrder[i]) << "position " << i;
    EXPECT_EQ(std::to_string(parsed->pairs()[i].second), a[aOrder[i]]) << aOrder[i];
  }
}

TEST(EthtoolKernelTest, StatSetChangesWithChannelCount) {
  const ChildReport rep = inNetns([](FILE* out) {
    if (!run("ethtool --version")) {
      std::fprintf(out, "SKIP\tthe ethtool binary is needed to change channels (ethtool -L)\n");
      return kSkipExit;
    }
    if (!addVethPair(out, "numtxqueues 4 numrxqueues 4")) return kSkipExit;
    auto source = makeEthtoolIoctlSource();
    EthtoolStats stats;  // one buffer reused across polls, as the collector does
    if (auto st = source->readInto("vethA", stats); !st) return 2;
    report(out, "BEFORE", std::to_string(stats.pairs().size()));
    for (const auto& [n, v] : stats.pairs()) report(out, "BEFORE_NAME", n);
    if (!run("ethtool -L vethA rx 2 tx 2")) {
      std::fprintf(out, "SKIP\tethtool -L on veth not supported by this kernel\n");
      return kSkipExit;
    }
    if (auto st = source->readInto("vethA", stats); !st) return 3;
    report(out, "AFTER", std::to_string(stats.pairs().size()));
    for (const auto& [n, v] : stats.pairs()) report(out, "AFTER_NAME", n);
    std::istringstream text(capture("ethtool -S vethA"));
    for (std::string line; std::getline(text, line);) report(out, "TOOL", line);
    return 0;
  });
  if (rep.exitCode == kSkipExit) GTEST_SKIP() << rep.skipReason;
  ASSERT_EQ(rep.exitCode, 0);
  auto names = [&](const char* kind) {
    std::vector<std::string> v;
    for (const auto& l : rep.of(kind)) v.push_back(l[1]);
    return v;
  };
  const auto before = names("BEFORE_NAME");
  const auto after = names("AFTER_NAME");
  EXPECT_GT(before.size(), after.size());
  EXPECT_NE(std::find(before.begin(), before.end(), "rx_queue_3_drops"), before.end());
  EXPECT_EQ(std::find(after.begin(), after.end(), "rx_queue_3_drops"), after.end());
  EXPECT_NE(std::find(after.begin(), after.end(), "rx_queue_1_drops"), after.end());

  std::string text;
  for (const auto& l : rep.of("TOOL")) text += l[1] + "\n";
  auto parsed = parseEthtoolText(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  std::vector<std::string> toolNames;
  for (const auto& [n, v] : parsed->pairs()) toolNames.push_back(n);
  EXPECT_EQ(after, toolNames);
}

// Cost of one read (GSSET_INFO + GSTRINGS + GSTATS) on a veth: reported, and every read must
// return the same, aligned set.
TEST(EthtoolKernelTest, ReadCostOnVeth) {
  constexpr int kReads = 10000;
  const ChildReport rep = inNetns([](FILE* out) {
    if (!addVethPair(out, "")) return kSkipExit;
    auto source = makeEthtoolIoctlSource();
    EthtoolStats stats;
    if (auto st = source->readInto("vethA", stats); !st) return 2;
    const auto first = stats.pairs();
    int bad = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kReads; ++i) {
      if (auto st = source->readInto("vethA", stats); !st) ++bad;
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (stats.pairs().size() != first.size() || stats.pairs()[0] != first[0]) ++bad;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count() / kReads;
    report(out, "COST", std::to_string(ns), std::to_string(first.size()));
    report(out, "BAD", std::to_string(bad));
    return 0;
  });
  if (rep.exitCode == kSkipExit) GTEST_SKIP() << rep.skipReason;
  ASSERT_EQ(rep.exitCode, 0);
  ASSERT_EQ(rep.of("BAD").at(0)[1], "0");
  const auto cost = rep.of("COST").at(0);
  ::testing::Test::RecordProperty("ns_per_read", cost[1]);
  std::cout << "[ cost ] ioctl read of vethA (" << cost[2] << " stats): " << cost[1]
            << " ns per read over " << kReads << " reads\n";
  EXPECT_GT(std::stoll(cost[1]), 0);
}

}  // namespace
}  // namespace fabricmon
