// `fabricmon health-check` (daemon/health_check.hpp, daemon/slurm_node.hpp): the verdict from the
// findings, the one-line output and its limit, the Slurm policy as a table, and scontrol run through
// the child-process runner (a stand-in script records its argv). The real Slurm is
// tests/deploy/slurm_health_check_test.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/health_check.hpp"
#include "daemon/slurm_node.hpp"
#include "tests/support/temp_dir.hpp"

namespace fabricmon::health {
namespace {

namespace fs = std::filesystem;

// `scontrol -o show node vm` of Slurm 22.05 (Debian 12), drained with a reason and idle.
constexpr const char* kDrainedLine =
    "NodeName=vm Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=1.25 "
    "AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=vm NodeHostName=vm Version=22.05.8 "
    "OS=Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=1 AllocMem=0 FreeMem=21735 Sockets=2 Boards=1 "
    "State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=main  "
    "BootTime=2026-11-25T23:35:12 SlurmdStartTime=2026-11-25T23:39:45 LastBusyTime=2026-11-25T23:39:48 "
    "CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s "
    "ExtSensorsWatts=0 ExtSensorsTemp=n/s Reason=fabricmon: port_down mlx5_0/1 rail 0 [root@2026-11-25T23:39:54]\n";
constexpr const char* kIdleLine =
    "NodeName=vm Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 "
    "Partitions=main  CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES= CapWatts=n/a\n";

constexpr const char* kFindings = R"({"findings":[
 {"rule":"link_errors","severity":"warning","labels":{"device":"mlx5_3","port":"1"},"since":"x","since_unix":100,
  "summary":"s","evidence":{}},
 {"rule":"port_down","severity":"critical","labels":{"device":"mlx5_2","port":"1","interface":"enp79s0np0"},
  "since":"x","since_unix":200,"summary":"down","evidence":{"state":1}},
 {"rule":"pause_storm","severity":"critical","labels":{"interface":"enp24s0np0","priority":"3"},"since":"x",
  "since_unix":150,"summary":"storm","evidence":{}},
 {"rule":"pause_storm","severity":"warning","labels":{"interface":"enp64s0np0","priority":"3"},"since":"x",
  "since_unix":50,"summary":"storm","evidence":{}}]})";

constexpr const char* kMetrics =
    "# HELP fabricmon_port_topology_info x\n# TYPE fabricmon_port_topology_info gauge\n"
    "fabricmon_port_topology_info{device=\"mlx5_2\",port=\"1\",interface=\"enp79s0np0\",pci_address=\"0000:4f:00.0\","
    "numa_node=\"0\",gpus=\"0000:4e:00.0\",role=\"compute\",rail=\"2\"} 1\n"
    "fabricmon_port_topology_info{device=\"mlx5_0\",port=\"1\",interface=\"enp24s0np0\",pci_address=\"0000:18:00.0\","
    "numa_node=\"0\",gpus=\"\",role=\"compute\",rail=\"0\"} 1\n"
    "xfabricmon_port_topology_info{device=\"bad\",port=\"1\",rail=\"9\"} 1\n";

ActiveFinding finding(std::string rule, std::string severity, std::string device, std::string port) {
  ActiveFinding f;
  f.rule = std::move(rule);
  f.severity = std::move(severity);
  f.labels = {{"device", std::move(device)}, {"port", std::move(port)}};
  return f;
}

TEST(HealthVerdict, DrainWorthyIsByRuleAndSeverityWorstFirst) {
  auto findings = parseFindings(kFindings);
  ASSERT_TRUE(findings) << findings.error().message;
  ASSERT_EQ(findings->size(), 4u);
  const Verdict v = judge(*findings, HealthCheckConfig{});
  EXPECT_EQ(v.status, Status::kProblem);
  ASSERT_EQ(v.drainWorthy.size(), 2u);
  // Both critical: the earlier start first.
  EXPECT_EQ(v.drainWorthy[0].rule, "pause_storm");
  EXPECT_EQ(v.drainWorthy[1].rule, "port_down");
  // link_errors is not in the list; a warning pause_storm is not critical.
  ASSERT_EQ(v.others.size(), 2u);
  EXPECT_EQ(v.others[0].rule, "pause_storm");  // both warnings: the earlier first
  EXPECT_EQ(v.others[1].rule, "link_errors");
}

TEST(HealthVerdict, TheListsAreConfiguration) {
  HealthCheckConfig config;
  config.drainRules = {"link_errors"};
  config.drainSeverities = {"warning"};
  const Verdict v = judge(*parseFindings(kFindings), config);
  EXPECT_EQ(v.status, Status::kProblem);
  ASSERT_EQ(v.drainWorthy.size(), 1u);
  EXPECT_EQ(v.drainWorthy[0].rule, "link_errors");

  config.drainRules = {"optics_degraded"};  // a rule this build may not have: never matches
  EXPECT_EQ(judge(*parseFindings(kFindings), config).status, Status::kOk);
}

TEST(HealthVerdict, NoFindingsIsOk) {
  const Verdict v = judge(*parseFindings(R"({"findings":[]})"), HealthCheckConfig{});
  EXPECT_EQ(v.status, Status::kOk);
  EXPECT_EQ(verdictLine(v, 80), "OK");
}

TEST(HealthVerdict, NotAFindingsDocumentIsAnError) {
  for (const char* bad : {"", "[]", "{\"findings\":3}", "{\"findings\":[{\"severity\":\"x\"}]}", "<html>"}) {
    EXPECT_FALSE(parseFindings(bad)) << bad;
  }
}

TEST(HealthVerdict, RailsComeFromTheTopologyInfoLines) {
  const Rails rails = parseTopologyRails(kMetrics);
  EXPECT_EQ(rails.byPort.at("mlx5_2/1"), "2");
  EXPECT_EQ(rails.byInterface.at("enp24s0np0"), "0");
  EXPECT_FALSE(rails.byPort.contains("bad/1"));  // another metric whose name ends the same
}

TEST(HealthLine, NamesTheWorstFindingItsPortAndRail) {
  Verdict v = judge(*parseFindings(kFindings), HealthCheckConfig{});
  v.drainWorthy[0].rail = "0";
  EXPECT_EQ(verdictLine(v, 80), "pause_storm enp24s0np0 prio 3 rail 0 (+1 more)");
  ActiveFinding down = finding("port_down", "critical", "mlx5_2", "1");
  down.labels["interface"] = "enp79s0np0";
  down.rail = "2";
  EXPECT_EQ(down.subject(), "port_down mlx5_2/1 enp79s0np0 rail 2");
}

TEST(HealthLine, OkSaysWhatIsActiveButNotDrainWorthy) {
  Verdict v;
  v.status = Status::kOk;
  v.others = {finding("link_errors", "warning", "mlx5_3", "1")};
  EXPECT_EQ(verdictLine(v, 80), "OK: 1 finding, not drain-worthy: link_errors mlx5_3/1");
}

TEST(HealthLine, NeverLongerThanTheLimit) {
  Verdict v;
  v.status = Status::kUnknown;
  v.unknownReason = std::string(300, 'x');
  for (unsigned limit : {20u, 80u, 200u}) {
    const std::string line = verdictLine(v, limit);
    EXPECT_EQ(line.size(), limit);
    EXPECT_TRUE(line.ends_with("..."));
    EXPECT_EQ(line.find('\n'), std::string::npos);
  }
  // A cut inside a UTF-8 sequence backs up to its start.
  const std::string cut = shorten("abcd\xC3\xA9\xC3\xA9\xC3\xA9", 8);  // "abcdééé"
  EXPECT_EQ(cut, "abcd...");
  EXPECT_EQ(shorten("line one\nline two", 80), "line one line two");
}

TEST(SlurmNodeParse, ReadsStateFlagsAndReasonOfScontrolOneLiner) {
  auto n = parseScontrolNode(kDrainedLine);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(n->name, "vm");
  EXPECT_EQ(n->base, "IDLE");
  EXPECT_TRUE(n->drained());
  EXPECT_EQ(n->reason, "fabricmon: port_down mlx5_0/1 rail 0");
  EXPECT_TRUE(n->drainedByUs());

  auto idle = parseScontrolNode(kIdleLine);
  ASSERT_TRUE(idle);
  EXPECT_EQ(idle->base, "IDLE");
  EXPECT_FALSE(idle->drained());
  EXPECT_EQ(idle->reason, "");

  auto down = parseScontrolNode("NodeName=n1 State=DOWN+DRAIN+NOT_RESPONDING Reason=Not responding [slurm@t]");
  ASSERT_TRUE(down);
  EXPECT_EQ(down->base, "DOWN");
  EXPECT_TRUE(down->flags.contains("NOT_RESPONDING"));
  EXPECT_EQ(down->reason, "Not responding");

  EXPECT_FALSE(parseScontrolNode("Node vm not found"));
}

TEST(SlurmPolicy, Table) {
  const std::string ours = "fabricmon: port_down mlx5_2/1 rail 2";
  Verdict problem, ok, unknown;
  problem.status = Status::kProblem;
  problem.drainWorthy = {finding("port_down", "critical", "mlx5_2", "1")};
  ok.status = Status::kOk;
  unknown.status = Status::kUnknown;
  auto node = [](std::string state, std::string reason) {
    auto n = parseScontrolNode("NodeName=vm State=" + state + (reason.empty() ? "" : " Reason=" + reason + " [root@t]"));
    EXPECT_TRUE(n);
    return *n;
  };
  struct Row {
    const char* what;
    SlurmNode node;
    const Verdict* verdict;
    SlurmAction expected;
  } const rows[] = {
      {"idle, fault -> drain", node("IDLE", ""), &problem, SlurmAction::kDrain},
      {"running a job, fault -> drain (DRAINING: the job finishes)", node("ALLOCATED", ""), &problem, SlurmAction::kDrain},
      {"drained by us, same fault -> nothing", node("IDLE+DRAIN", ours), &problem, SlurmAction::kNone},
      {"drained by us, other fault -> reason updated", node("IDLE+DRAIN", "fabricmon: link_flap x"), &problem,
       SlurmAction::kDrain},
      {"admin drain, fault -> left alone", node("IDLE+DRAIN", "admin: memory test"), &problem, SlurmAction::kNone},
      {"admin drain, healthy -> left alone", node("IDLE+DRAIN", "admin: memory test"), &ok, SlurmAction::kNone},
      {"admin drain that mentions fabricmon later -> left alone", node("IDLE+DRAIN", "see fabricmon: x"), &ok,
       SlurmAction::kNone},
      {"drained by us, healthy -> resume", node("IDLE+DRAIN", ours), &ok, SlurmAction::kResume},
      {"draining by us, healthy -> resume", node("ALLOCATED+DRAIN", ours), &ok, SlurmAction::kResume},
      {"drained by us but down -> not resumed", node("DOWN+DRAIN", ours), &ok, SlurmAction::kNone},
      {"drained by us, not responding -> not resumed", node("IDLE+DRAIN+NOT_RESPONDING", ours), &ok,
       SlurmAction::kNone},
      {"drained by us, reboot requested -> not resumed", node("IDLE+DRAIN+REBOOT_REQUESTED", ours), &ok,
       SlurmAction::kNone},
      {"down for another cause, healthy -> nothing", node("DOWN", "Not responding"), &ok, SlurmAction::kNone},
      {"healthy, idle -> nothing", node("IDLE", ""), &ok, SlurmAction::kNone},
      {"unknown, drained by us -> nothing", node("IDLE+DRAIN", ours), &unknown, SlurmAction::kNone},
      {"unknown, idle -> nothing", node("IDLE", ""), &unknown, SlurmAction::kNone},
  };
  for (const Row& r : rows) {
    const SlurmDecision d = decide(r.node, *r.verdict, ours);
    EXPECT_EQ(d.action, r.expected) << r.what << ": " << d.why;
    EXPECT_FALSE(d.why.empty()) << r.what;
    if (d.action == SlurmAction::kDrain) EXPECT_EQ(d.reason, ours) << r.what;
  }
}

class SlurmScontrolTest : public ::testing::Test {
 protected:
  /// A stand-in scontrol: prints `show` as the node and appends each argv element on its own line
  /// to a log, so the test sees exactly what was passed (no shell in between).
  void script(const std::string& showLine) {
    const fs::path path = tmp_.path() / "scontrol";
    std::ofstream(path) << "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done >>" << (tmp_.path() / "argv.log").string()
                        << "\necho ---- >>" << (tmp_.path() / "argv.log").string() << "\n"
                        << "case \"$2\" in show) echo '" << showLine << "';; esac\n";
    fs::permissions(path, fs::perms::owner_all);
    config_.slurm.scontrol = path.string();
    config_.slurm.nodeName = "gpu017";
  }
  std::string log() const {
    std::ifstream in(tmp_.path() / "argv.log");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  testing::TempDir tmp_{"fabricmon-scontrol"};
  HealthCheckConfig config_;
};

TEST_F(SlurmScontrolTest, DrainPassesTheReasonAsOneArgumentWithoutAShell) {
  script("NodeName=gpu017 State=IDLE ThreadsPerCore=1");
  Verdict problem;
  problem.status = Status::kProblem;
  const std::string reason = "fabricmon: port_down mlx5_2/1 \"quoted\" $(touch x) rail 2";
  std::string node;
  auto d = applySlurm(config_, problem, reason, false, node);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(node, "gpu017");
  EXPECT_EQ(d->action, SlurmAction::kDrain);
  EXPECT_EQ(log(), "[-o]\n[show]\n[node]\n[gpu017]\n----\n[update]\n[nodename=gpu017]\n[state=drain]\n[reason=" +
                       reason + "]\n----\n");
  EXPECT_FALSE(fs::exists(tmp_.path() / "x"));
}

TEST_F(SlurmScontrolTest, DryRunOnlyReads) {
  script("NodeName=gpu017 State=IDLE+DRAIN Reason=fabricmon: link_flap x [root@t]");
  Verdict ok;
  ok.status = Status::kOk;
  std::string node;
  auto d = applySlurm(config_, ok, "fabricmon: -", true, node);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->action, SlurmAction::kResume);
  EXPECT_EQ(log(), "[-o]\n[show]\n[node]\n[gpu017]\n----\n");  // no update
}

TEST_F(SlurmScontrolTest, UnknownVerdictDoesNotEvenAsk) {
  script("NodeName=gpu017 State=IDLE");
  Verdict unknown;
  unknown.status = Status::kUnknown;
  std::string node;
  auto d = applySlurm(config_, unknown, "fabricmon: -", false, node);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->action, SlurmAction::kNone);
  EXPECT_EQ(log(), "");
}

TEST_F(SlurmScontrolTest, AFailingScontrolIsAnErrorWithItsMessage) {
  const fs::path path = tmp_.path() / "scontrol";
  std::ofstream(path) << "#!/bin/sh\necho 'slurm_load_node error: Unable to contact slurm controller' >&2\nexit 1\n";
  fs::permissions(path, fs::perms::owner_all);
  config_.slurm.scontrol = path.string();
  Verdict problem;
  problem.status = Status::kProblem;
  std::string node;
  auto d = applySlurm(config_, problem, "fabricmon: x", false, node);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("Unable to contact slurm controller"), std::string::npos) << d.error().message;
}

TEST_F(SlurmScontrolTest, AHungScontrolIsKilledAtItsTimeout) {
  const fs::path path = tmp_.path() / "scontrol";
  std::ofstream(path) << "#!/bin/sh\nexec sleep 30\n";
  fs::permissions(path, fs::perms::owner_all);
  config_.slurm.scontrol = path.string();
  config_.slurm.timeout = std::chrono::milliseconds(200);
  Verdict problem;
  problem.status = Status::kProblem;
  std::string node;
  auto d = applySlurm(config_, problem, "fabricmon: x", false, node);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().errnum, ETIMEDOUT) << d.error().message;
}

}  // namespace
}  // namespace fabricmon::health
