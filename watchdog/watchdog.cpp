#include "watchdog/watchdog.hpp"

#include <algorithm>
#include <map>

#include "model/families/jobs.hpp"
#include "watchdog/finding_tracker.hpp"
#include "watchdog/history.hpp"
#include "watchdog/port_join.hpp"
#include "watchdog/rules/port_down.hpp"
#include "watchdog/rules/rules.hpp"

namespace fabricmon {
namespace watchdog {
namespace {

const FamilyDef kPauseFractionPeak{"fabricmon_pause_fraction_peak",
                                   "Largest fraction of a judged interval (one poll, or one NIC "
                                   "counter refresh when the NIC refreshes slower) "
                                   "spent in PFC pause within the last peak_window (ethtool "
                                   "rx/tx_prio<N>_pause_duration); a storm of a few "
                                   "seconds survives here where a 30 s rate() averages it away.",
                                   MetricType::kGauge, "ratio 0–1", "interface,priority,direction"};
const FamilyDef kEcnMarkedRatePeak{"fabricmon_ecn_marked_rate_peak",
                                   "Largest ECN-marked RoCE packet rate (packets per second, "
                                   "hw_counters/np_ecn_marked_roce_packets) of a single "
                                   "poll interval within the last peak_window.",
                                   MetricType::kGauge, "packets/s", "device,port"};
const FamilyDef kCnpSentRatePeak{"fabricmon_cnp_sent_rate_peak",
                                 "Largest CNP send rate (per second, hw_counters/np_cnp_sent) of a "
                                 "single poll interval within the last "
                                 "peak_window.",
                                 MetricType::kGauge, "CNPs/s", "device,port"};
const FamilyDef kCnpHandledRatePeak{
    "fabricmon_cnp_handled_rate_peak",
    "Largest handled-CNP rate (per second, hw_counters/rp_cnp_handled) of a single poll interval "
    "within the last "
    "peak_window.",
    MetricType::kGauge, "CNPs/s", "device,port"};

const FamilyDef* const kFamilies[] = {&FindingTracker::kActiveFamily, &FindingTracker::kTransitionsFamily,
                                      &FindingTracker::kRecurringFamily, &History::kRefreshFamily,
                                      &kPauseFractionPeak,               &kEcnMarkedRatePeak,
                                      &kCnpSentRatePeak,                 &kCnpHandledRatePeak,
                                      &kPortIgnoredFamily};

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

EnginePlan planFor(const WatchdogConfig& c) {
  EnginePlan plan;
  for (const RuleDef* rule : ruleTable()) {
    if (rule->enabled(c.rules)) rule->plan(c, plan);
  }
  for (const auto& p : kPeaks) plan.history.peak[static_cast<size_t>(p.fam)] = true;
  plan.history.peakWindow = std::max<Nanos>(toNanos(c.peakWindow), 1);
  plan.history.judgeManagement = c.judgeManagement;
  return plan;
}

std::vector<std::string_view> ruleNames() {
  std::vector<std::string_view> names;
  for (const RuleDef* rule : ruleTable()) names.push_back(rule->name);
  return names;
}

}  // namespace

/// Everything the watchdog remembers; used on the evaluating thread only.
class Engine {
 public:
  Engine(WatchdogConfig config, QosConfig qos) { configure(std::move(config), std::move(qos)); }

  void configure(WatchdogConfig config, QosConfig qos) {
    config_ = std::move(config);
    qos_ = std::move(qos);
    const EnginePlan plan = planFor(config_);
    history_.setPlan(plan.history);
    storms_.setWindow(plan.stormWindow);
    tracker_.setRecurrence(config_.recurrence.count, toNanos(config_.recurrence.window));
    if (!config_.rules.get<PortDownRule>().enabled) memory_.ports.clear();
    const auto rules = ruleTable();
    for (size_t i = 0; i < rules.size(); ++i) {
      if (!rules[i]->enabled(config_.rules)) tracker_.clearRule(i);
    }
  }

  /// The slurm_jobs collector's latest batch as the tracker's job index.
  static FindingTracker::Jobs jobsOf(const Snapshot& snapshot) {
    FindingTracker::Jobs jobs;
    const auto it = snapshot.batches.find("slurm_jobs");
    if (it == snapshot.batches.end() || !it->second) return jobs;
    std::map<std::string, std::string, std::less<>> named;  // job id -> "id (user)"
    for (const Sample& s : it->second->samples) {
      if (s.series->family != &families::jobs::kNodeJobInfo) continue;
      const std::string id(s.series->label("job_id"));
      const std::string_view user = s.series->label("user");
      named[id] = user.empty() ? id : id + " (" + std::string(user) + ")";
      jobs.node.push_back(named[id]);
    }
    for (const Sample& s : it->second->samples) {
      if (s.series->family != &families::jobs::kPortJobInfo) continue;
      const std::string id(s.series->label("job_id"));
      const auto n = named.find(id);
      jobs.byPort[std::string(s.series->label("device")) + "/" + std::string(s.series->label("port"))].push_back(
          n == named.end() ? id : n->second);
    }
    return jobs;
  }

  void evaluate(const Snapshot& snapshot, Nanos now, std::chrono::system_clock::time_point wallNow) {
    history_.ingest(snapshot);
    join_.build(history_);
    RuleContext ctx{history_,
                    config_,
                    qos_,
                    join_,
                    tracker_,
                    storms_,
                    portBestRate_,
                    std::to_string(qos_.rocePriority),
                    std::to_string(qos_.cnpPriority),
                    memory_,
                    now};
    tracker_.beginRound(wallNow, jobsOf(snapshot));
    const auto rules = ruleTable();
    for (size_t i = 0; i < rules.size(); ++i) {
      if (!rules[i]->enabled(config_.rules)) continue;
      ctx.rule = i;
      rules[i]->evaluate(ctx);
    }
    tracker_.endRound();
  }

  void appendSamples(std::vector<Sample>& out, Nanos now) {
    tracker_.appendSamples(out);
    if (config_.rules.get<PortDownRule>().enabled) appendPortIgnored(memory_, out);
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
  FindingTracker tracker_{ruleNames()};
  StormLedger storms_;
  std::map<std::string, double, std::less<>> portBestRate_;
  RuleMemory memory_;
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
  engine_->evaluate(snapshot, watchdog::toNs(now), wallNow);
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
