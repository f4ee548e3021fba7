#include "watchdog/watchdog.hpp"

#include <algorithm>
#include <map>

#include "watchdog/finding_tracker.hpp"
#include "watchdog/history.hpp"
#include "watchdog/port_join.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon {
namespace watchdog {
namespace {

const FamilyDef kPauseFractionPeak{
    "fabricmon_pause_fraction_peak",
    "Largest fraction of a judged interval (one poll, or one NIC counter refresh when the NIC refreshes slower) "
    "spent in PFC pause within the last peak_window (ethtool rx/tx_prio<N>_pause_duration); a storm of a few "
    "seconds survives here where a 30 s rate() averages it away.",
    MetricType::kGauge};
const FamilyDef kEcnMarkedRatePeak{
    "fabricmon_ecn_marked_rate_peak",
    "Largest ECN-marked RoCE packet rate (packets per second, hw_counters/np_ecn_marked_roce_packets) of a single "
    "poll interval within the last peak_window.",
    MetricType::kGauge};
const FamilyDef kCnpSentRatePeak{
    "fabricmon_cnp_sent_rate_peak",
    "Largest CNP send rate (per second, hw_counters/np_cnp_sent) of a single poll interval within the last "
    "peak_window.",
    MetricType::kGauge};
const FamilyDef kCnpHandledRatePeak{
    "fabricmon_cnp_handled_rate_peak",
    "Largest handled-CNP rate (per second, hw_counters/rp_cnp_handled) of a single poll interval within the last "
    "peak_window.",
    MetricType::kGauge};

const FamilyDef* const kFamilies[] = {&FindingTracker::kActiveFamily, &FindingTracker::kTransitionsFamily,
                                      &History::kRefreshFamily,        &kPauseFractionPeak, &kEcnMarkedRatePeak, &kCnpSentRatePeak,
                                      &kCnpHandledRatePeak};

struct PeakOutput {
  Fam fam;
  const FamilyDef* family;
  std::initializer_list<const char*> labels;
};
const PeakOutput kPeaks[] = {
    {Fam::kPauseSeconds, &kPauseFractionPeak, {"interface", "priority", "direction"}},
    {Fam::kRoceEcnMarked, &kEcnMarkedRatePeak, {"device", "port"}},
    {Fam::kRoceCnpSent, &kCnpSentRatePeak, {"device", "port"}},
    {Fam::kRoceCnpHandled, &kCnpHandledRatePeak, {"device", "port"}},
};

Nanos toNs(std::chrono::steady_clock::time_point tp) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
}

HistoryPlan planFor(const WatchdogConfig& c) {
  HistoryPlan plan;
  auto need = [&](Fam fam, bool enabled, Duration window) {
    auto& w = plan.longWindow[static_cast<size_t>(fam)];
    if (enabled) w = std::max(w, toNanos(window));
  };
  need(Fam::kPauseSeconds, c.pauseStorm.enabled, c.pauseStorm.sustainedWindow);
  for (Fam f : {Fam::kPauseSeconds, Fam::kRoceEcnMarked, Fam::kRoceCnpSent, Fam::kRoceCnpHandled,
                Fam::kRoceCnpIgnored, Fam::kPrioEcnMarked}) {
    need(f, c.dcqcnMisconfig.enabled, c.dcqcnMisconfig.window);
  }
  for (Fam f : {Fam::kLinkDowned, Fam::kCarrierChanges, Fam::kCarrierDownChanges, Fam::kPhyLinkDown,
                Fam::kPeerLinkDowned, Fam::kLinkDownObserved, Fam::kPeerLinkDownObserved}) {
    need(f, c.linkFlap.enabled, c.linkFlap.window);
  }
  for (Fam f : {Fam::kSymbolErrors, Fam::kPhySymbolErrors, Fam::kLinkErrorRecovery, Fam::kReceiveErrors,
                Fam::kPortCounter, Fam::kPeerSymbolErrors, Fam::kPeerLinkErrorRecovery, Fam::kPeerReceiveErrors,
                Fam::kPeerPortCounter}) {
    need(f, c.linkErrors.enabled, c.linkErrors.window);
  }
  for (Fam f : {Fam::kSymbolErrors, Fam::kPhySymbolErrors, Fam::kPeerSymbolErrors}) {
    need(f, c.linkErrors.enabled, c.linkErrors.berWindow);
  }
  for (Fam f : {Fam::kXmitWait, Fam::kPeerXmitWait}) need(f, c.ibCongestion.enabled, c.ibCongestion.window);
  for (Fam f : {Fam::kRoceOutOfSequence, Fam::kRoceSeqErrors, Fam::kRoceLocalAckTimeouts, Fam::kHwCounter}) {
    need(f, c.rocePacketLoss.enabled, c.rocePacketLoss.window);
  }
  need(Fam::kRoceLocalAckTimeouts, c.rocePacketLoss.enabled, c.rocePacketLoss.criticalWindow);
  for (const auto& p : kPeaks) plan.peak[static_cast<size_t>(p.fam)] = true;
  plan.peakWindow = std::max<Nanos>(toNanos(c.peakWindow), 1);
  return plan;
}

struct RuleEntry {
  std::string_view name;
  bool (*enabled)(const WatchdogConfig&);
  void (*evaluate)(RuleContext&);
};
const RuleEntry kRuleTable[] = {
    {"pause_storm", [](const WatchdogConfig& c) { return c.pauseStorm.enabled; }, evaluatePauseStorm},
    {"dcqcn_misconfig", [](const WatchdogConfig& c) { return c.dcqcnMisconfig.enabled; }, evaluateDcqcnMisconfig},
    {"link_flap", [](const WatchdogConfig& c) { return c.linkFlap.enabled; }, evaluateLinkFlap},
    {"link_errors", [](const WatchdogConfig& c) { return c.linkErrors.enabled; }, evaluateLinkErrors},
    {"port_degraded", [](const WatchdogConfig& c) { return c.portDegraded.enabled; }, evaluatePortDegraded},
    {"roce_packet_loss", [](const WatchdogConfig& c) { return c.rocePacketLoss.enabled; }, evaluateRocePacketLoss},
    {"lossless_drop", [](const WatchdogConfig& c) { return c.losslessDrop.enabled; }, evaluateLosslessDrop},
    {"ib_congestion", [](const WatchdogConfig& c) { return c.ibCongestion.enabled; }, evaluateIbCongestion},
};

}  // namespace

/// Everything the watchdog remembers; used on the evaluating thread only.
class Engine {
 public:
  Engine(WatchdogConfig config, QosConfig qos) { configure(std::move(config), std::move(qos)); }

  void configure(WatchdogConfig config, QosConfig qos) {
    config_ = std::move(config);
    qos_ = std::move(qos);
    history_.setPlan(planFor(config_));
    storms_.setWindow(toNanos(config_.dcqcnMisconfig.window));
    for (const auto& rule : kRuleTable) {
      if (!rule.enabled(config_)) tracker_.clearRule(rule.name);
    }
  }

  void evaluate(const Snapshot& snapshot, std::chrono::system_clock::time_point wallNow) {
    history_.ingest(snapshot);
    join_.build(history_);
    RuleContext ctx{history_, config_, qos_, join_, tracker_, storms_, portBestRate_, std::to_string(qos_.rocePriority),
                    std::to_string(qos_.cnpPriority)};
    tracker_.beginRound(wallNow);
    for (const auto& rule : kRuleTable) {
      if (rule.enabled(config_)) rule.evaluate(ctx);
    }
    tracker_.endRound();
  }

  void appendSamples(std::vector<Sample>& out, Nanos now) {
    tracker_.appendSamples(out);
    for (const auto& g : history_.groups()) {
      if (g.live && g.refresh > 0) out.push_back(Sample{g.gauge, double(g.refresh) / kSecond});
    }
    for (const auto& p : kPeaks) {
      for (Tracked* s : history_.family(p.fam)) {
        if (!s->peak || s->samples < 2) continue;
        if (!s->peakSeries) {
          Labels labels;
          for (const char* name : p.labels) labels.emplace_back(name, std::string(s->label(name)));
          s->peakSeries = makeSeries(*p.family, std::move(labels));
        }
        out.push_back(Sample{s->peakSeries, s->peak->peak(now)});
      }
    }
  }

  std::vector<Finding> active() const { return tracker_.active(); }
  size_t trackedSeries() const { return history_.size(); }

 private:
  WatchdogConfig config_;
  QosConfig qos_;
  History history_;
  PortJoin join_;
  FindingTracker tracker_;
  StormLedger storms_;
  std::map<std::string, double, std::less<>> portBestRate_;
};

}  // namespace watchdog

Watchdog::Watchdog(WatchdogConfig config, QosConfig qos)
    : engine_(std::make_unique<watchdog::Engine>(std::move(config), std::move(qos))) {
  publish({}, {});
}

Watchdog::~Watchdog() = default;

void Watchdog::reconfigure(WatchdogConfig config, QosConfig qos) {
  engine_->configure(std::move(config), std::move(qos));
  BatchPtr previous = metricsBatch();
  publish(previous->monotonic, previous->wall);
}

void Watchdog::evaluate(const Snapshot& snapshot, std::chrono::steady_clock::time_point now,
                        std::chrono::system_clock::time_point wallNow) {
  engine_->evaluate(snapshot, wallNow);
  publish(now, wallNow);
}

void Watchdog::publish(std::chrono::steady_clock::time_point now, std::chrono::system_clock::time_point wallNow) {
  auto batch = std::make_shared<Batch>();
  batch->collector = "watchdog";
  batch->monotonic = now;
  batch->wall = wallNow;
  engine_->appendSamples(batch->samples, watchdog::toNs(now));
  auto findings = std::make_shared<const std::vector<Finding>>(engine_->active());
  std::lock_guard lock(outputMutex_);
  batch_ = std::move(batch);
  findings_ = std::move(findings);
}

BatchPtr Watchdog::metricsBatch() const {
  std::lock_guard lock(outputMutex_);
  return batch_;
}

std::vector<Finding> Watchdog::activeFindings() const {
  std::shared_ptr<const std::vector<Finding>> findings;
  {
    std::lock_guard lock(outputMutex_);
    findings = findings_;
  }
  return *findings;
}

std::span<const FamilyDef* const> Watchdog::families() { return watchdog::kFamilies; }

}  // namespace fabricmon
