// The runbook's checks (triage/checks.hpp): which check a finding makes a problem, how problems
// rank, and what the raw numbers alone say.
#include "triage/checks.hpp"

#include <gtest/gtest.h>

#include "triage/evidence.hpp"
#include "watchdog/rules/rule.hpp"

namespace fabricmon::triage {
namespace {

FindingSeen finding(std::string rule, std::string severity, std::string reason = "") {
  FindingSeen f;
  f.rule = std::move(rule);
  f.severity = std::move(severity);
  f.labels = {{"interface", "eth0"}};
  if (!reason.empty()) f.labels["reason"] = reason;
  f.summary = "s";
  return f;
}

SeriesStat counter(std::string name, double increase, double rate, double peak, std::map<std::string, std::string> labels = {{"interface", "eth0"}}) {
  SeriesStat s;
  s.name = std::move(name);
  s.labels = std::move(labels);
  s.increase = increase;
  s.rate = rate;
  s.peakRate = peak;
  return s;
}

/// Evidence with data for every check, all quiet.
Evidence quiet() {
  Evidence e;
  e.source = "test";
  for (const Check& c : checks()) {
    for (auto f : c.families) e.series.push_back(counter(std::string(f), 0, 0, 0));
  }
  return e;
}

struct Case {
  std::vector<FindingSeen> findings;
  std::string cause;  ///< "" = nothing wrong
};

TEST(TriageChecks, EachRuleMakesItsOwnStepTheCause) {
  const Case cases[] = {
      {{finding("pause_storm", "critical", "storm")}, "pfc_pause"},
      {{finding("dcqcn_misconfig", "warning", "np_disabled")}, "qos_config"},
      {{finding("link_flap", "warning")}, "link"},
      {{finding("link_errors", "warning", "symbol_errors")}, "link"},
      {{finding("port_degraded", "warning")}, "link"},
      {{finding("roce_packet_loss", "critical", "local_ack_timeouts"), finding("lossless_drop", "warning")}, "roce_loss"},
      {{finding("ib_congestion", "warning")}, "ib_congestion"},
      {{finding("nic_driver_error", "critical", "mlx5_fw_fatal")}, "nic_health"},
      // A wedged NIC explains the loss and the flaps around it.
      {{finding("roce_packet_loss", "critical"), finding("link_flap", "warning"),
        finding("nic_driver_error", "critical", "mlx5_cmd_no_completion")},
       "nic_health"},
      {{finding("link_ber", "warning", "degrading")}, "physical"},
      // FEC giving up explains the loss it causes.
      {{finding("roce_packet_loss", "critical"), finding("link_ber", "critical", "uncorrectable")}, "physical"},
      // Causes before their symptoms: a misconfigured QoS explains the pause it causes; a bad
      // link explains the loss.
      {{finding("pause_storm", "critical", "storm"), finding("dcqcn_misconfig", "warning")}, "qos_config"},
      {{finding("roce_packet_loss", "critical"), finding("link_errors", "warning")}, "link"},
      {{}, ""},
  };
  for (const Case& c : cases) {
    Evidence e = quiet();
    e.findings = c.findings;
    const Verdict v = judge(e);
    ASSERT_EQ(v.ranked.size(), checks().size());
    EXPECT_EQ(v.wrong, !c.cause.empty()) << c.cause;
    if (!c.cause.empty()) {
      EXPECT_EQ(v.ranked.front().id, c.cause);
      EXPECT_EQ(v.ranked.front().state, State::kProblem);
      EXPECT_FALSE(v.ranked.front().action.empty());
      EXPECT_EQ(v.ranked.front().where, "eth0");
    }
  }
}

// A rule added to the watchdog's table must be given a runbook step here, or its findings would
// never make triage say something is wrong.
TEST(TriageChecks, EveryWatchdogRuleBelongsToExactlyOneStep) {
  ASSERT_GE(watchdog::ruleTable().size(), 7u);
  for (const watchdog::RuleDef* rule : watchdog::ruleTable()) {
    size_t owners = 0;
    for (const Check& c : checks()) owners += c.id == rule->triageStep ? 1 : 0;
    EXPECT_EQ(owners, 1u) << rule->name << " names triage step '" << rule->triageStep
                          << "', which is no check";
  }
}

TEST(TriageChecks, TheRestKeepTheRunbookOrder) {
  Evidence e = quiet();
  e.findings = {finding("roce_packet_loss", "critical")};
  const Verdict v = judge(e);
  int last = 0;
  for (size_t i = 1; i < v.ranked.size(); ++i) {
    EXPECT_GT(v.ranked[i].step, last);
    last = v.ranked[i].step;
  }
}

TEST(TriageChecks, HighPausePeaksWithoutAFindingAreSuspiciousNotWrong) {
  Evidence e = quiet();
  e.series.push_back(counter("fabricmon_pfc_pause_seconds_total", 30, 0.1, 0.8,
                             {{"interface", "eth1"}, {"priority", "3"}}));
  const Verdict v = judge(e);
  EXPECT_FALSE(v.wrong);
  const auto& pause = v.ranked.front();
  ASSERT_EQ(pause.id, "pfc_pause");
  EXPECT_EQ(pause.state, State::kSuspicious);
  EXPECT_EQ(pause.where, "eth1 priority 3");
}

TEST(TriageChecks, NormalCongestionIsOk) {
  Evidence e = quiet();
  e.series.push_back(counter("fabricmon_roce_ecn_marked_packets_total", 5000, 50, 80));
  e.series.push_back(counter("fabricmon_roce_cnp_sent_total", 4000, 40, 70));
  e.series.push_back(counter("fabricmon_pfc_pause_seconds_total", 1, 0.03, 0.05, {{"interface", "eth0"}, {"priority", "3"}}));
  const Verdict v = judge(e);
  EXPECT_FALSE(v.wrong);
  for (const auto& c : v.ranked) EXPECT_EQ(c.state, State::kOk) << c.id;
}

// Four RoCE ports, PFC and DCQCN on priority 3 only (the common setup): the configuration check
// names the lossless priority once, not the 56 priorities where DCQCN is off by design; a lossless
// priority with DCQCN off, and a half-configured one, are named.
TEST(TriageChecks, QosConfigListsOnlyTheLosslessPrioritiesAndMismatches) {
  auto gauge = [](std::string name, std::string iface, int prio, double value) {
    SeriesStat s;
    s.name = std::move(name);
    s.counter = false;
    s.labels = {{"interface", std::move(iface)}, {"priority", std::to_string(prio)}};
    s.last = value;
    return s;
  };
  Evidence e;
  e.source = "test";
  for (std::string iface : {"eth0", "eth1", "eth2", "eth3"}) {
    for (int p = 0; p < 8; ++p) {
      e.series.push_back(gauge("fabricmon_pfc_enabled", iface, p, p == 3));
      e.series.push_back(gauge("fabricmon_dcqcn_np_enabled", iface, p, p == 3));
      e.series.push_back(gauge("fabricmon_dcqcn_rp_enabled", iface, p, p == 3));
    }
  }
  auto qos = [](const Evidence& ev) {
    for (const auto& c : judge(ev).ranked) {
      if (c.id == "qos_config") return c;
    }
    return CheckResult{};
  };
  using Numbers = std::vector<std::pair<std::string, std::string>>;
  CheckResult healthy = qos(e);
  EXPECT_EQ(healthy.numbers, (Numbers{{"lossless priorities", "3 (eth0 eth1 eth2 eth3)"}}));
  EXPECT_EQ(healthy.summary, "DCQCN enabled where configured");

  for (auto& s : e.series) {
    // eth1: the notification point off on the lossless priority; eth2: priority 5 half-configured.
    if (s.label("interface") == "eth1" && s.label("priority") == "3" && s.name == "fabricmon_dcqcn_np_enabled") s.last = 0;
    if (s.label("interface") == "eth2" && s.label("priority") == "5" && s.name == "fabricmon_dcqcn_np_enabled") s.last = 1;
  }
  CheckResult broken = qos(e);
  EXPECT_EQ(broken.numbers, (Numbers{{"dcqcn_np_enabled eth1 priority 3", "0"},
                                     {"dcqcn_rp_enabled eth2 priority 5", "0"},
                                     {"lossless priorities", "3 (eth0 eth1 eth2 eth3)"}}));
  EXPECT_EQ(broken.summary, "DCQCN off on some priorities");
}

// The physical step calls normal only what it measured: a node whose NICs report no corrected bits
// (ionic; ice, which counts codewords; InfiniBand ports) has optics and uncorrectable codewords to
// show, not a pre-FEC BER.
TEST(TriageChecks, ThePhysicalStepCallsNormalOnlyWhatItMeasured) {
  auto physical = [](const Evidence& ev) {
    for (const auto& c : judge(ev).ranked) {
      if (c.id == "physical") return c;
    }
    return CheckResult{};
  };
  auto gauge = [](std::string name, std::map<std::string, std::string> labels, double value) {
    SeriesStat s;
    s.name = std::move(name);
    s.counter = false;
    s.labels = std::move(labels);
    s.last = value;
    return s;
  };
  auto numberOf = [](const CheckResult& c, const std::string& name) {
    for (const auto& [k, v] : c.numbers) {
      if (k == name) return v;
    }
    return std::string("(none)");
  };
  Evidence e;
  e.source = "test";
  e.series.push_back(counter("fabricmon_fec_uncorrectable_blocks_total", 0, 0, 0));
  e.series.push_back(gauge("fabricmon_transceiver_rx_power_watts", {{"interface", "eth0"}, {"lane", "0"}}, 8e-4));
  e.series.push_back(
      gauge("fabricmon_transceiver_rx_power_threshold_watts", {{"interface", "eth0"}, {"level", "low_warning"}}, 1e-4));
  CheckResult noBer = physical(e);
  EXPECT_EQ(noBer.state, State::kOk);
  EXPECT_EQ(noBer.summary, "optical power within normal; no pre-FEC BER reported (no corrected-bit counts)");
  EXPECT_EQ(numberOf(noBer, "worst pre-FEC BER"), "not reported");

  // The same node with its corrected bits and the bits received: the margin is measured.
  e.series.push_back(counter("fabricmon_phy_corrected_bit_errors_total", 40, 0, 0));
  e.series.push_back(counter("fabricmon_phy_received_bytes_total", 5e11, 0, 0));
  CheckResult measured = physical(e);
  EXPECT_EQ(measured.state, State::kOk);
  EXPECT_EQ(measured.summary, "FEC margin and optical power within normal");
  EXPECT_EQ(numberOf(measured, "worst pre-FEC BER"), "1e-11");
  EXPECT_EQ(numberOf(measured, "ports whose pre-FEC margin is not judged"), "(none)");

  // The watchdog lists two ports it cannot judge (from Prometheus): the step counts them by reason.
  // A node of InfiniBand ports alone has that and nothing else: it says so, not "no data".
  Evidence ib;
  ib.source = "test";
  for (const char* dev : {"mlx5_8", "mlx5_9"}) {
    ib.series.push_back(gauge("fabricmon_watchdog_link_ber_unjudged_info",
                              {{"device", dev}, {"port", "1"}, {"interface", ""}, {"why", "no_fec_counters"}}, 1));
  }
  CheckResult unjudged = physical(ib);
  EXPECT_EQ(unjudged.state, State::kOk);
  EXPECT_EQ(unjudged.summary, "nothing abnormal; no pre-FEC BER reported (no corrected-bit counts)");
  EXPECT_EQ(numberOf(unjudged, "ports whose pre-FEC margin is not judged"), "2 (no_fec_counters 2)");

  // An InfiniBand port whose PMAs answer PortExtendedSpeedsCounters: both ends' BER over its rate;
  // the switch's end close to RS(544,514)'s limit makes the step suspicious, and names the port.
  Evidence link;
  link.source = "test";
  const std::map<std::string, std::string> port{{"device", "mlx5_8"}, {"port", "1"}};
  link.series.push_back(gauge("fabricmon_port_rate_bytes_per_second", port, 5e10));
  link.series.push_back(counter("fabricmon_port_fec_corrected_symbols_total", 1.2e6, 4000, 4000, port));
  link.series.push_back(counter("fabricmon_peer_port_fec_corrected_symbols_total", 2e9, 2e7, 2e7, port));
  link.series.push_back(counter("fabricmon_peer_port_fec_uncorrectable_blocks_total", 0, 0, 0, port));
  CheckResult ibBer = physical(link);
  EXPECT_EQ(ibBer.state, State::kSuspicious);
  EXPECT_EQ(ibBer.summary, "pre-FEC BER close to the FEC's limit");
  EXPECT_EQ(numberOf(ibBer, "worst pre-FEC BER"), "5e-05");
  EXPECT_NE(ibBer.where.find("mlx5_8"), std::string::npos) << ibBer.where;
  link.series[2].rate = 4000;  // healthy at both ends: measured, and normal
  CheckResult ibOk = physical(link);
  EXPECT_EQ(ibOk.state, State::kOk);
  EXPECT_EQ(ibOk.summary, "FEC margin within normal");
  EXPECT_EQ(numberOf(ibOk, "worst pre-FEC BER"), "1e-08");
  // A counter stopped at its 32-bit maximum (the node's window shows its value) is no BER of 0.
  link.series[1].rate = 0;
  link.series[1].last = 4294967295.0;
  link.series[2].rate = 0;
  EXPECT_EQ(numberOf(physical(link), "worst pre-FEC BER"), "0");
  link.series[2].last = 4294967295.0;
  EXPECT_EQ(numberOf(physical(link), "worst pre-FEC BER"), "not reported");
}

TEST(TriageChecks, StepsWithoutSeriesSayNoData) {
  Evidence e;
  const Verdict v = judge(e);
  EXPECT_FALSE(v.wrong);
  for (const auto& c : v.ranked) EXPECT_EQ(c.state, State::kNoData) << c.id;
}

TEST(TriageEvidence, ParsesTheNodeEndpointsAndRejectsAnythingElse) {
  auto ev = parseNodeEvidence(
      R"({"seconds":60,"covered_seconds":42,"series":[{"name":"fabricmon_pfc_pause_seconds_total","labels":{"interface":"eth0","priority":"3"},"type":"counter","increase":4,"rate":0.1,"peak_rate":1}]})",
      R"({"findings":[{"rule":"pause_storm","severity":"critical","labels":{"interface":"eth0","reason":"storm"},"summary":"x","evidence":{"rx_pause_fraction":1,"bad":null}}]})");
  ASSERT_TRUE(ev) << ev.error().message;
  EXPECT_EQ(ev->windowSeconds, 42);
  ASSERT_EQ(ev->series.size(), 1u);
  EXPECT_EQ(ev->series[0].peakRate, 1);
  ASSERT_EQ(ev->findings.size(), 1u);
  EXPECT_EQ(ev->findings[0].label("reason"), "storm");
  EXPECT_EQ(ev->findings[0].evidence.size(), 1u);
  EXPECT_FALSE(parseNodeEvidence("<html>", R"({"findings":[]})"));
  EXPECT_FALSE(parseNodeEvidence(R"({"series":[]})", "not json"));
}

// Found by tests/fuzz/triage_json_fuzz.cpp: a field of another type than the contract's ("type": 4,
// "rule": []) made json::value() throw out of `fabricmon triage --node` (std::terminate). Such a
// field now counts as absent.
TEST(TriageEvidence, FieldsOfAnotherTypeCountAsAbsent) {
  auto ev = parseNodeEvidence(
      R"({"series":[{"name":"fabricmon_port_state","type":4,"last":4},{"name":"x","type":"gauge"}]})",
      R"({"findings":[{"rule":[],"severity":2,"summary":{"a":1},"labels":{"port":"1"}}]})");
  ASSERT_TRUE(ev) << ev.error().message;
  ASSERT_EQ(ev->series.size(), 2u);
  EXPECT_TRUE(ev->series[0].counter);  // as when "type" is missing
  EXPECT_FALSE(ev->series[1].counter);
  ASSERT_EQ(ev->findings.size(), 1u);
  EXPECT_EQ(ev->findings[0].rule, "");
  EXPECT_EQ(ev->findings[0].severity, "");
  EXPECT_EQ(ev->findings[0].summary, "");
  EXPECT_EQ(ev->findings[0].label("port"), "1");
}

}  // namespace
}  // namespace fabricmon::triage
