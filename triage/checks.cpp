#include "triage/checks.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

#include "watchdog/rules/rule.hpp"

namespace fabricmon::triage {

std::string_view stateName(State s) {
  switch (s) {
    case State::kProblem: return "problem";
    case State::kSuspicious: return "suspicious";
    case State::kOk: return "ok";
    case State::kNoData: return "no data";
  }
  return "unknown";
}

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string percent(double fraction) { return fmt("%.1f %%", fraction * 100); }
std::string perSecond(double rate) { return fmt("%.3g/s", rate); }
std::string count(double n) { return fmt("%.0f", n); }

std::string whereOf(const std::map<std::string, std::string>& labels) {
  auto get = [&](const char* k) {
    auto it = labels.find(k);
    return it == labels.end() ? std::string() : it->second;
  };
  std::string w = get("interface");
  if (w.empty() && !get("device").empty()) w = get("device") + " port " + get("port");
  if (!get("priority").empty()) w += (w.empty() ? "" : " ") + std::string("priority ") + get("priority");
  return w;
}

/// The series of `family` with the highest `key`, or nullptr.
const SeriesStat* top(const Evidence& ev, const std::string& family, double SeriesStat::*key) {
  const SeriesStat* best = nullptr;
  for (const SeriesStat* s : ev.family(family)) {
    if (!best || s->*key > best->*key) best = s;
  }
  return best;
}

double sumOf(const Evidence& ev, const std::string& family, double SeriesStat::*key) {
  double total = 0;
  for (const SeriesStat* s : ev.family(family)) total += s->*key;
  return total;
}

// A priority paused this much of some second is worth a look even with no finding; PFC at work
// under normal congestion stays within a few percent (docs/rules.md, pause_storm).
constexpr double kSuspiciousPause = 0.25;

void judgePause(const Evidence& ev, CheckResult& r) {
  const SeriesStat* peak = top(ev, "fabricmon_pfc_pause_seconds_total", &SeriesStat::peakRate);
  if (!peak) peak = top(ev, "fabricmon_global_pause_seconds_total", &SeriesStat::peakRate);
  const double storms = sumOf(ev, "fabricmon_pause_storm_warning_events_total", &SeriesStat::increase) +
                        sumOf(ev, "fabricmon_pause_storm_error_events_total", &SeriesStat::increase);
  if (peak) {
    r.numbers.emplace_back("peak pause fraction", percent(std::min(1.0, peak->peakRate)));
    r.numbers.emplace_back("average pause fraction", percent(std::min(1.0, peak->rate)));
    if (r.where.empty()) r.where = whereOf(peak->labels);
  }
  r.numbers.emplace_back("NIC storm events", count(storms));
  if ((peak && peak->peakRate >= kSuspiciousPause) || storms > 0) {
    r.state = State::kSuspicious;
    r.summary = peak ? "paused " + percent(std::min(1.0, peak->peakRate)) + " of the time at its peak" : "NIC storm events";
  } else {
    r.state = State::kOk;
    r.summary = peak ? "pause time within normal (peak " + percent(peak->peakRate) + ")" : "no pause";
  }
}

void judgeEcn(const Evidence& ev, CheckResult& r) {
  const double marked = sumOf(ev, "fabricmon_roce_ecn_marked_packets_total", &SeriesStat::rate);
  const double sent = sumOf(ev, "fabricmon_roce_cnp_sent_total", &SeriesStat::rate);
  const double handled = sumOf(ev, "fabricmon_roce_cnp_handled_total", &SeriesStat::rate);
  const double ignored = sumOf(ev, "fabricmon_roce_cnp_ignored_total", &SeriesStat::rate);
  r.numbers = {{"ECN-marked packets", perSecond(marked)},
               {"CNPs sent", perSecond(sent)},
               {"CNPs handled", perSecond(handled)},
               {"CNPs ignored", perSecond(ignored)}};
  r.state = State::kOk;
  r.summary = marked > 0 || handled > 0 ? "congestion control at work (ECN marks answered by CNPs)" : "no ECN marking";
  // Marks without CNPs, or CNPs ignored, are DCQCN not reacting: step 3 judges why.
  if ((marked > 0 && sent == 0) || (ignored > 0 && handled == 0)) {
    r.state = State::kSuspicious;
    r.summary = marked > 0 && sent == 0 ? "ECN-marked packets arrive but no CNPs are sent"
                                        : "CNPs arrive but are ignored";
  }
}

// The priorities that matter are the lossless ones (PFC enabled): RoCE traffic runs there, and
// DCQCN must be on there (docs/runbook.md, step 3). Every other priority of every interface has
// DCQCN off by design, so listing them (7 of 8 per family and interface) would bury the one that
// counts. An interface that reports no PFC state is judged by its DCQCN gauges alone: a priority
// with the notification point on and the reaction point off (or the reverse) is half-configured.
void judgeQos(const Evidence& ev, CheckResult& r) {
  struct Prio {
    const SeriesStat* np = nullptr;
    const SeriesStat* rp = nullptr;
    bool lossless = false;
  };
  std::map<std::string, std::map<std::string, Prio>> ifaces;  // interface -> priority -> state
  std::map<std::string, bool> pfcKnown;
  for (const SeriesStat* s : ev.family("fabricmon_pfc_enabled")) {
    if (s->label("priority").empty()) continue;
    pfcKnown[s->label("interface")] = true;
    ifaces[s->label("interface")][s->label("priority")].lossless = s->last != 0;
  }
  for (const SeriesStat* s : ev.family("fabricmon_dcqcn_np_enabled")) {
    if (!s->label("priority").empty()) ifaces[s->label("interface")][s->label("priority")].np = s;
  }
  for (const SeriesStat* s : ev.family("fabricmon_dcqcn_rp_enabled")) {
    if (!s->label("priority").empty()) ifaces[s->label("interface")][s->label("priority")].rp = s;
  }
  // Interfaces by their lossless set, so a node configured alike everywhere reads as one line.
  std::map<std::string, std::vector<std::string>> bySet;
  bool problem = false;
  for (const auto& [iface, prios] : ifaces) {
    std::string set;
    for (const auto& [prio, p] : prios) {
      if (p.lossless) set += (set.empty() ? "" : ",") + prio;
      const bool off = (p.np && p.np->last == 0) || (p.rp && p.rp->last == 0);
      const bool half = p.np && p.rp && (p.np->last == 0) != (p.rp->last == 0);
      if (!(p.lossless && off) && !half) continue;
      problem = true;
      for (const SeriesStat* s : {p.np, p.rp}) {
        if (s && s->last == 0) r.numbers.emplace_back(s->name.substr(10) + " " + whereOf(s->labels), "0");
      }
    }
    if (pfcKnown.count(iface)) bySet[set.empty() ? "none" : set].push_back(iface);
  }
  for (const auto& [set, names] : bySet) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
    r.numbers.emplace_back("lossless priorities", set + " (" + list + ")");
  }
  r.state = State::kOk;
  r.summary = problem ? "DCQCN off on some priorities" : "DCQCN enabled where configured";
}

void judgeLink(const Evidence& ev, CheckResult& r) {
  double errors = 0, downs = 0;
  const SeriesStat* worst = nullptr;
  for (const char* fam : {"fabricmon_port_symbol_errors_total", "fabricmon_phy_symbol_errors_total",
                          "fabricmon_phy_crc_errors_total", "fabricmon_phy_pcs_symbol_errors_total",
                          "fabricmon_port_receive_errors_total", "fabricmon_port_link_error_recovery_total"}) {
    for (const SeriesStat* s : ev.family(fam)) {
      errors += s->increase;
      if (s->increase > 0 && (!worst || s->increase > worst->increase)) worst = s;
    }
  }
  for (const char* fam : {"fabricmon_port_link_downed_total", "fabricmon_phy_link_down_events_total",
                          "fabricmon_netdev_carrier_changes_total"}) {
    for (const SeriesStat* s : ev.family(fam)) {
      downs += s->increase;
      if (s->increase > 0 && !worst) worst = s;
    }
  }
  r.numbers = {{"error counter increase", count(errors)}, {"link down / carrier changes", count(downs)}};
  if (worst && r.where.empty()) r.where = whereOf(worst->labels);
  r.state = errors > 0 || downs > 0 ? State::kSuspicious : State::kOk;
  r.summary = r.state == State::kOk ? "no link errors, no flaps" : "link error counters moved";
}

// The pre-FEC BER of the worst interface over the window, the post-FEC (uncorrectable) codewords,
// and the lowest module Rx power against its own low-warning threshold (transceiver collector).
void judgePhysical(const Evidence& ev, CheckResult& r) {
  double worstBer = -1, uncorrectable = 0;
  const SeriesStat* worst = nullptr;
  for (const SeriesStat* bits : ev.family("fabricmon_phy_corrected_bit_errors_total")) {
    for (const SeriesStat* bytes : ev.family("fabricmon_phy_received_bytes_total")) {
      if (bytes->label("interface") != bits->label("interface") || bytes->increase <= 0) continue;
      const double ber = bits->increase / (bytes->increase * 8);
      if (ber > worstBer) {
        worstBer = ber;
        worst = bits;
      }
    }
  }
  // Both ends of each InfiniBand link (peer_port over MADs): corrected RS symbols (FireCode: blocks),
  // one bit error each as link_ber counts them, over the bits the port's rate carried (docs/rules.md,
  // link_ber). A counter that stopped at its 32-bit maximum reads as a BER of 0, so it is left out:
  // a port's own end where the watchdog lists it as saturated (Prometheus), any end whose value
  // the node's window shows at the maximum.
  std::set<std::pair<std::string, std::string>> saturated;
  for (const SeriesStat* s : ev.family("fabricmon_watchdog_link_ber_unjudged_info")) {
    if (s->last == 1 && s->label("why") == "counter_saturated") saturated.emplace(s->label("device"), s->label("port"));
  }
  for (const char* side : {"fabricmon_port_fec_", "fabricmon_peer_port_fec_"}) {
    const std::string symbolsName = std::string(side) + "corrected_symbols_total";
    const auto symbols = ev.family(symbolsName);
    for (const std::string name : {symbolsName, std::string(side) + "corrected_blocks_total"}) {
      for (const SeriesStat* s : ev.family(name)) {
        const std::pair<std::string, std::string> at{s->label("device"), s->label("port")};
        if (saturated.contains(at) && std::string_view(side) == "fabricmon_port_fec_") continue;
        if (s->last >= 4294967295.0) continue;  // the node's window gives the value: a stopped counter
        const bool hasSymbols = std::any_of(symbols.begin(), symbols.end(), [&](const SeriesStat* y) {
          return y->label("device") == at.first && y->label("port") == at.second;
        });
        if (name != symbolsName && hasSymbols) continue;  // blocks only where there are no symbols
        for (const SeriesStat* rate : ev.family("fabricmon_port_rate_bytes_per_second")) {
          if (rate->label("device") != at.first || rate->label("port") != at.second || rate->last <= 0) continue;
          const double ber = s->rate / (rate->last * 8);
          if (ber > worstBer) {
            worstBer = ber;
            worst = s;
          }
        }
      }
    }
  }
  for (const char* fam : {"fabricmon_fec_uncorrectable_blocks_total", "fabricmon_port_fec_uncorrectable_blocks_total",
                          "fabricmon_peer_port_fec_uncorrectable_blocks_total"}) {
    for (const SeriesStat* s : ev.family(fam)) {
      uncorrectable += s->increase;
      if (s->increase > 0 && !worst) worst = s;
    }
  }
  // Rx power per lane against the module's own low-warning threshold (fabricmon_transceiver_*).
  const SeriesStat* weakest = nullptr;
  double weakestMargin = 0;
  for (const SeriesStat* p : ev.family("fabricmon_transceiver_rx_power_watts")) {
    for (const SeriesStat* t : ev.family("fabricmon_transceiver_rx_power_threshold_watts")) {
      if (t->label("interface") != p->label("interface") || t->label("level") != "low_warning" || t->last <= 0) continue;
      const double margin = p->last / t->last;
      if (!weakest || margin < weakestMargin) {
        weakest = p;
        weakestMargin = margin;
      }
    }
  }
  r.numbers.emplace_back("worst pre-FEC BER", worstBer >= 0 ? fmt("%.2g", worstBer) : std::string("not reported"));
  r.numbers.emplace_back("uncorrectable FEC codewords", count(uncorrectable));
  // The ports whose margin the watchdog lists as not judged (docs/rules.md, "link_ber"), by reason:
  // "no early warning here" is part of the answer when the link is the suspect.
  std::map<std::string, int> unjudged;
  int unjudgedPorts = 0;
  for (const SeriesStat* s : ev.family("fabricmon_watchdog_link_ber_unjudged_info")) {
    if (s->last != 1) continue;
    ++unjudged[std::string(s->label("why"))];
    ++unjudgedPorts;
  }
  if (unjudgedPorts > 0) {
    std::string why;
    for (const auto& [reason, n] : unjudged) why += (why.empty() ? "" : ", ") + reason + " " + std::to_string(n);
    r.numbers.emplace_back("ports whose pre-FEC margin is not judged", std::to_string(unjudgedPorts) + " (" + why + ")");
  }
  if (weakest) {
    r.numbers.emplace_back("lowest Rx power / its low warning", fmt("%.2f", weakestMargin));
  }
  if (worst && r.where.empty()) r.where = whereOf(worst->labels);
  // One decade under the RS(544,514) correction limit (docs/rules.md, link_ber) is worth a look
  // even when the watchdog's finer rule (per FEC, against the baseline) is quiet.
  constexpr double kSuspiciousBer = 2.4e-5;
  if (uncorrectable > 0 || worstBer > kSuspiciousBer || (weakest && weakestMargin < 1)) {
    r.state = State::kSuspicious;
    r.summary = uncorrectable > 0 ? "uncorrectable FEC codewords: frames lost after FEC"
                : worstBer > kSuspiciousBer ? "pre-FEC BER close to the FEC's limit"
                                            : "a module receives less light than its own warning level";
    if (weakest && r.where.empty()) r.where = whereOf(weakest->labels);
  } else {
    r.state = State::kOk;
    // Only what was measured is called normal: a node whose NICs report no corrected bits (ionic,
    // ice's codewords only, InfiniBand ports whose PMAs do not answer PortExtendedSpeedsCounters) has
    // no pre-FEC BER here, and the watchdog lists such
    // ports in fabricmon_watchdog_link_ber_unjudged_info (docs/rules.md, "link_ber").
    if (worstBer >= 0) {
      r.summary = weakest ? "FEC margin and optical power within normal" : "FEC margin within normal";
    } else {
      r.summary = weakest ? "optical power within normal; no pre-FEC BER reported (no corrected-bit counts)"
                          : "nothing abnormal; no pre-FEC BER reported (no corrected-bit counts)";
    }
  }
}

void judgeLoss(const Evidence& ev, CheckResult& r) {
  const double oos = sumOf(ev, "fabricmon_roce_out_of_sequence_total", &SeriesStat::increase);
  const double timeouts = sumOf(ev, "fabricmon_roce_local_ack_timeouts_total", &SeriesStat::increase);
  const double seqErr = sumOf(ev, "fabricmon_roce_packet_sequence_errors_total", &SeriesStat::increase);
  const double discards = sumOf(ev, "fabricmon_priority_discards_total", &SeriesStat::increase);
  r.numbers = {{"out of sequence", count(oos)},
               {"local ACK timeouts", count(timeouts)},
               {"sequence-error NAKs", count(seqErr)},
               {"priority discards", count(discards)}};
  r.state = oos + timeouts + seqErr + discards > 0 ? State::kSuspicious : State::kOk;
  r.summary = r.state == State::kOk ? "no RoCE loss" : "loss counters moved";
}

void judgeIb(const Evidence& ev, CheckResult& r) {
  const SeriesStat* wait = top(ev, "fabricmon_port_transmit_wait_total", &SeriesStat::peakRate);
  r.state = State::kOk;
  if (wait) {
    r.numbers.emplace_back("peak transmit wait", perSecond(wait->peakRate));
    r.summary = "see the node-detail dashboard for PortXmitWait trends";
  }
}

void judgeNic(const Evidence& ev, CheckResult& r) {
  double fatal = 0, recoverable = 0;
  const SeriesStat* worst = nullptr;
  for (const SeriesStat* s : ev.family("fabricmon_nic_driver_records_total")) {
    const auto sev = s->labels.find("severity");
    if (sev == s->labels.end() || s->increase <= 0) continue;
    if (sev->second == "fatal") fatal += s->increase;
    if (sev->second == "recoverable") recoverable += s->increase;
    if (sev->second != "info" && (!worst || s->increase > worst->increase)) worst = s;
  }
  r.numbers = {{"fatal driver records", count(fatal)}, {"recoverable driver records", count(recoverable)}};
  if (worst && r.where.empty()) r.where = whereOf(worst->labels);
  r.state = fatal + recoverable > 0 ? State::kSuspicious : State::kOk;
  r.summary = r.state == State::kOk ? "no NIC driver errors in the kernel log" : "the kernel logged NIC driver errors";
}

const std::vector<Check>& table() {
  static const std::vector<Check> kChecks = {
      {"pfc_pause",
       "PFC pause and storm events per priority",
       2,
       {"fabricmon_pfc_pause_seconds_total", "fabricmon_global_pause_seconds_total",
        "fabricmon_pause_storm_warning_events_total"},
       "find the port that sends the pauses (the peer's switch port; its receive buffer or a stuck "
       "receiver) and check the NIC's pfc storm prevention; see docs/runbook.md#pause-storm",
       judgePause},
      {"ecn_cnp",
       "ECN marking and CNP rates",
       5,
       {"fabricmon_roce_ecn_marked_packets_total", "fabricmon_roce_cnp_sent_total",
        "fabricmon_roce_cnp_handled_total"},
       "ECN without CNPs or ignored CNPs is DCQCN not reacting: check step 3",
       judgeEcn},
      {"qos_config",
       "DCQCN/PFC/trust configuration against the intended QoS",
       0,
       {"fabricmon_dcqcn_np_enabled", "fabricmon_dcqcn_rp_enabled", "fabricmon_pfc_enabled",
        "fabricmon_dcb_trust_dscp", "fabricmon_roce_ecn_marked_packets_total"},
       "re-apply the intended QoS (ecn/roce_np and roce_rp enable on the RoCE priority, PFC, DSCP "
       "trust); "
       "see docs/runbook.md#dcqcn-misconfig",
       judgeQos},
      {"physical",
       "Physical layer: pre-FEC BER, FEC and the optics",
       1,
       {"fabricmon_phy_corrected_bit_errors_total", "fabricmon_fec_corrected_blocks_total",
        "fabricmon_fec_uncorrectable_blocks_total", "fabricmon_transceiver_rx_power_watts",
        "fabricmon_transceiver_temperature_celsius", "fabricmon_watchdog_link_ber_unjudged_info",
        "fabricmon_port_fec_corrected_symbols_total", "fabricmon_peer_port_fec_corrected_symbols_total",
        "fabricmon_port_fec_corrected_blocks_total", "fabricmon_peer_port_fec_corrected_blocks_total",
        "fabricmon_port_fec_uncorrectable_blocks_total", "fabricmon_peer_port_fec_uncorrectable_blocks_total",
        "fabricmon_port_rate_bytes_per_second"},
       "the cable or optic is failing before the link drops: compare with the neighbour's view of "
       "the same cable, reseat and clean, then swap the optic or the cable (one at a time); see "
       "docs/runbook.md#a-cable-or-optic-is-failing",
       judgePhysical},
      {"link",
       "Link errors, flaps and degraded ports",
       1,
       {"fabricmon_port_symbol_errors_total", "fabricmon_phy_symbol_errors_total",
        "fabricmon_netdev_carrier_changes_total", "fabricmon_port_link_downed_total",
        "fabricmon_port_state"},
       "check the cable and transceiver at both ends (reseat, swap), the switch port's error "
       "counters and "
       "its negotiated speed; see docs/runbook.md#link-errors",
       judgeLink},
      {"roce_loss",
       "RoCE loss and retransmissions",
       3,
       {"fabricmon_roce_out_of_sequence_total", "fabricmon_roce_local_ack_timeouts_total",
        "fabricmon_priority_discards_total"},
       "loss on a lossless fabric: look upstream (switch drops, PFC not enabled end to end on the "
       "RoCE "
       "priority); see docs/runbook.md#roce-packet-loss",
       judgeLoss},
      {"ib_congestion",
       "InfiniBand congestion",
       4,
       {"fabricmon_port_transmit_wait_total"},
       "find the congested switch port (PortXmitWait along the path); see docs/runbook.md",
       judgeIb},
      // A NIC whose firmware or driver is wedged explains the loss, pauses and flaps around it: it
      // ranks before every other cause.
      {"nic_health",
       "NIC firmware and driver health (kernel log)",
       -1,
       {"fabricmon_nic_driver_records_total", "fabricmon_kernel_log_lost_records_total"},
       "collect devlink health, a firmware dump, dmesg and ethtool -S before any reset, then drain "
       "the node; see docs/runbook.md#the-nic-or-its-driver-is-wedged",
       judgeNic},
  };
  return kChecks;
}

int severityRank(const std::string& s) { return s == "critical" ? 3 : s == "warning" ? 2 : s == "info" ? 1 : 0; }

}  // namespace

std::span<const Check> checks() { return table(); }

Verdict judge(const Evidence& ev) {
  Verdict v;
  v.source = ev.source;
  v.windowSeconds = ev.windowSeconds;
  for (const FindingSeen& f : ev.findings) {
    for (const std::string& job : f.jobs) {
      if (std::find(v.jobsHit.begin(), v.jobsHit.end(), job) == v.jobsHit.end()) v.jobsHit.push_back(job);
    }
  }
  int step = 0;
  for (const Check& c : table()) {
    CheckResult r;
    r.id = std::string(c.id);
    r.title = std::string(c.title);
    r.step = ++step;
    r.causeRank = c.causeRank;
    const bool hasData = std::any_of(c.families.begin(), c.families.end(),
                                     [&](std::string_view f) { return ev.has(std::string(f)); });
    // The worst finding of the check's rules decides; its summary and evidence are the numbers.
    const FindingSeen* worst = nullptr;
    for (const FindingSeen& f : ev.findings) {
      const watchdog::RuleDef* rule = watchdog::findRule(f.rule);
      if (rule == nullptr || rule->triageStep != c.id) continue;
      if (!worst || severityRank(f.severity) > severityRank(worst->severity)) worst = &f;
    }
    if (hasData) c.judge(ev, r);
    if (worst) {
      r.state = State::kProblem;
      r.severity = severityRank(worst->severity);
      r.where = whereOf(worst->labels);
      r.summary = worst->rule + (worst->label("reason").empty() ? "" : "/" + worst->label("reason")) + ": " +
                  worst->summary;
      std::vector<std::pair<std::string, std::string>> numbers;
      for (const auto& [k, val] : worst->evidence) numbers.emplace_back(k, fmt("%.6g", val));
      numbers.insert(numbers.end(), r.numbers.begin(), r.numbers.end());
      r.numbers = std::move(numbers);
    } else if (!hasData) {
      r.state = State::kNoData;
      r.summary = "no series of this step on the source";
    }
    if (r.state == State::kProblem || r.state == State::kSuspicious) r.action = std::string(c.action);
    v.wrong |= r.state == State::kProblem;
    v.ranked.push_back(std::move(r));
  }
  std::stable_sort(v.ranked.begin(), v.ranked.end(), [](const CheckResult& a, const CheckResult& b) {
    const bool pa = a.state == State::kProblem, pb = b.state == State::kProblem;
    if (pa != pb) return pa;
    if (pa && a.causeRank != b.causeRank) return a.causeRank < b.causeRank;
    if (pa) return a.severity > b.severity;
    return false;  // the rest keep the runbook's order
  });
  return v;
}

}  // namespace fabricmon::triage
