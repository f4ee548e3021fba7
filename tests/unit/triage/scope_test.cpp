// The scope of a fleet's problems (triage/scope.cpp) from the nodes' findings and the switch and
// rail their ports face: one node, one switch, one rail, fabric-wide, or no topology at all.
#include "triage/scope.hpp"

#include <gtest/gtest.h>

namespace fabricmon::triage {
namespace {

SeriesStat info(const std::string& family, std::map<std::string, std::string> labels) {
  SeriesStat s;
  s.name = family;
  s.labels = std::move(labels);
  s.counter = false;
  s.last = 1;
  return s;
}

/// A node of a rail-optimised cluster: ports eth0..eth3 on rails 0..3, port i facing `switches[i]`.
Evidence node(const std::string& name, const std::vector<std::string>& switches) {
  Evidence e;
  e.source = name;
  for (size_t i = 0; i < switches.size(); ++i) {
    const std::string iface = "eth" + std::to_string(i), dev = "mlx5_" + std::to_string(i);
    e.series.push_back(info("fabricmon_port_neighbor_info", {{"device", dev}, {"port", "1"}, {"interface", iface},
                                                             {"chassis_name", switches[i]}, {"source", "lldp"}}));
    e.series.push_back(info("fabricmon_port_topology_info", {{"device", dev}, {"port", "1"}, {"interface", iface},
                                                             {"role", "compute"}, {"rail", std::to_string(i)}}));
  }
  return e;
}

void sickOn(Evidence& e, std::map<std::string, std::string> labels, const std::string& rule = "pause_storm") {
  FindingSeen f;
  f.rule = rule;
  f.severity = "critical";
  f.labels = std::move(labels);
  e.findings.push_back(std::move(f));
}

Verdict verdict(const std::string& source, bool wrong, const std::string& where = "eth0 priority 3") {
  Verdict v;
  v.source = source;
  v.wrong = wrong;
  CheckResult c;
  c.id = "pfc_pause";
  c.state = wrong ? State::kProblem : State::kOk;
  c.where = where;
  v.ranked.push_back(c);
  return v;
}

struct Fleet {
  std::map<std::string, Evidence> nodes;
  FleetVerdict f;
  void add(Evidence e, bool wrong) {
    f.ranked.push_back(verdict(e.source, wrong));
    nodes[e.source] = std::move(e);
    f.nodes = nodes.size();
  }
  FleetVerdict judged() {
    setScope(f, nodes);
    return f;
  }
};

// Two pods, each with its own leaf per rail: pod A's rail i faces a-leaf-i, pod B's b-leaf-i.
std::vector<std::string> podA() { return {"a-leaf-0", "a-leaf-1", "a-leaf-2", "a-leaf-3"}; }
std::vector<std::string> podB() { return {"b-leaf-0", "b-leaf-1", "b-leaf-2", "b-leaf-3"}; }

TEST(TriageScope, NothingWrongIsNoneAndOneSickNodeIsOneNode) {
  Fleet fleet;
  fleet.add(node("n1", podA()), false);
  fleet.add(node("n2", podA()), false);
  EXPECT_EQ(fleet.judged().scope, "none");
  Evidence sick = node("n3", podA());
  sickOn(sick, {{"interface", "eth2"}, {"priority", "3"}});
  fleet.add(sick, true);
  const auto f = fleet.judged();
  EXPECT_EQ(f.scope, "one node");
  EXPECT_EQ(f.scopeReason, "n3");
}

TEST(TriageScope, SickPortsFacingOneLeafAreOneSwitch) {
  Fleet fleet;
  for (const char* n : {"a1", "a2", "a3"}) {
    Evidence e = node(n, podA());
    sickOn(e, {{"interface", "eth1"}, {"priority", "3"}});
    fleet.add(e, true);
  }
  fleet.add(node("a4", podA()), false);
  fleet.add(node("b1", podB()), false);
  const auto f = fleet.judged();
  EXPECT_EQ(f.scope, "one switch");
  EXPECT_EQ(f.scopeReason, "3 sick nodes with problems on ports facing a-leaf-1 (4 nodes of 5 face it)");
}

TEST(TriageScope, ASwitchBeatsFabricWideEvenWhenMostNodesAreSick) {
  Fleet fleet;
  for (const char* n : {"a1", "a2", "a3"}) {
    Evidence e = node(n, podA());
    sickOn(e, {{"device", "mlx5_2"}, {"port", "1"}}, "link_errors");  // a device/port finding, no interface
    fleet.add(e, true);
  }
  fleet.add(node("a4", podA()), false);
  EXPECT_EQ(fleet.judged().scope, "one switch");
  EXPECT_NE(fleet.judged().scopeReason.find("a-leaf-2"), std::string::npos);
}

TEST(TriageScope, TheSameRailBehindDifferentLeavesIsOneRail) {
  Fleet fleet;
  Evidence a = node("a1", podA()), b = node("b1", podB());
  sickOn(a, {{"interface", "eth3"}, {"priority", "3"}});
  sickOn(b, {{"interface", "eth3"}, {"priority", "3"}});
  fleet.add(a, true);
  fleet.add(b, true);
  fleet.add(node("a2", podA()), false);
  fleet.add(node("b2", podB()), false);
  const auto f = fleet.judged();
  EXPECT_EQ(f.scope, "one rail");
  EXPECT_EQ(f.scopeReason, "2 sick nodes with problems on rail 3, behind 2 different switches");
}

TEST(TriageScope, DifferentRailsAndSwitchesOnMostNodesIsFabricWide) {
  Fleet fleet;
  int i = 0;
  for (const char* n : {"a1", "a2", "b1"}) {
    Evidence e = node(n, std::string(n)[0] == 'a' ? podA() : podB());
    sickOn(e, {{"interface", "eth" + std::to_string(i++)}, {"priority", "3"}});
    fleet.add(e, true);
  }
  fleet.add(node("b2", podB()), false);
  EXPECT_EQ(fleet.judged().scope, "fabric-wide");
}

TEST(TriageScope, WithoutTopologyPauseOnOnePriorityIsOneSwitchsWorthOfNodes) {
  Fleet fleet;
  for (const char* n : {"g1", "g2"}) {
    Evidence e;
    e.source = n;
    sickOn(e, {{"interface", "eth2"}, {"priority", "3"}});
    fleet.add(e, true);
  }
  for (const char* n : {"g3", "g4", "g5"}) {
    Evidence e;
    e.source = n;
    fleet.add(e, false);
  }
  const auto f = fleet.judged();
  EXPECT_EQ(f.scope, "one switch's worth of nodes");
  EXPECT_EQ(f.scopeReason, "2 nodes pausing on priority 3 at once, 3 healthy");
}

TEST(TriageScope, ANodeWithoutTopologyAmongOthersDoesNotInventASwitch) {
  Fleet fleet;
  Evidence a = node("a1", podA());
  sickOn(a, {{"interface", "eth1"}, {"priority", "3"}});
  fleet.add(a, true);
  Evidence bare;
  bare.source = "old";  // an older fabricmon without topology: its place is unknown
  sickOn(bare, {{"interface", "eth1"}, {"priority", "3"}});
  fleet.add(bare, true);
  fleet.add(node("a2", podA()), false);
  fleet.add(node("a3", podA()), false);
  EXPECT_EQ(fleet.judged().scope, "one switch's worth of nodes");
}

}  // namespace
}  // namespace fabricmon::triage
