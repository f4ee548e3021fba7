#include "watchdog/watchdog.hpp"

#include <algorithm>
#include <future>
#include <system_error>
#include <thread>
#include <map>

#include "model/families/jobs.hpp"
#include "model/thread_name.hpp"
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "watchdog/finding_tracker.hpp"
#include "watchdog/history.hpp"
#include "watchdog/state_file.hpp"
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
                                      &kCnpSentRatePeak,                 &kCnpHandledRatePeak};

std::vector<const FamilyDef*> allFamilies() {
  std::vector<const FamilyDef*> out(std::begin(kFamilies), std::end(kFamilies));
  for (const RuleDef* rule : ruleTable()) out.insert(out.end(), rule->families.begin(), rule->families.end());
  return out;
}

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
  Engine(WatchdogConfig config, QosConfig qos) {
    for (const RuleDef* rule : ruleTable()) memories_.push_back(rule->makeMemory ? rule->makeMemory() : nullptr);
    configure(std::move(config), std::move(qos));
  }

  void configure(WatchdogConfig config, QosConfig qos) {
    config_ = std::move(config);
    qos_ = std::move(qos);
    const EnginePlan plan = planFor(config_);
    history_.setPlan(plan.history);
    storms_.setWindow(plan.stormWindow);
    tracker_.setRecurrence(config_.recurrence.count, toNanos(config_.recurrence.window));
    const auto rules = ruleTable();
    for (size_t i = 0; i < rules.size(); ++i) {
      if (rules[i]->enabled(config_.rules)) continue;
      tracker_.clearRule(i);
      if (memories_[i]) memories_[i]->disabled();
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
    RuleContext ctx{history_,
                    config_,
                    qos_,
                    history_.subjects(),
                    tracker_,
                    storms_,
                    std::to_string(qos_.rocePriority),
                    std::to_string(qos_.cnpPriority),
                    now};
    ctx.wallNow = wallNow;
    tracker_.beginRound(wallNow, jobsOf(snapshot));
    const auto rules = ruleTable();
    for (size_t i = 0; i < rules.size(); ++i) {
      if (!rules[i]->enabled(config_.rules)) continue;
      ctx.rule = i;
      ctx.memory = memories_[i].get();
      rules[i]->evaluate(ctx);
    }
    tracker_.endRound();
  }

  void appendSamples(SampleWriter& out, Nanos now) {
    tracker_.appendSamples(out);
    const auto rules = ruleTable();
    for (size_t i = 0; i < rules.size(); ++i) {
      if (memories_[i] && rules[i]->enabled(config_.rules)) memories_[i]->appendSamples(out);
    }
    for (const auto& g : history_.groups()) {
      if (g.live && g.refresh > 0) out.add(g.gauge, double(g.refresh) / kSecond);
    }
    for (const auto& p : kPeaks) {
      for (Tracked* s : history_.family(p.fam)) {
        if (!s->counter || !s->counter->peak || s->samples < 2) continue;
        RateJudgement& j = *s->counter;
        if (!j.peak->series) {
          Labels labels;
          for (const char* name : p.labels) labels.emplace_back(name, std::string(s->label(name)));
          j.peak->series = makeSeries(*p.family, std::move(labels));
        }
        out.add(j.peak->series, j.peak->buckets.peak(now));
      }
    }
  }

  std::vector<Finding> active() const { return tracker_.active(); }

  /// The state file's document: every rule's persistent memory and the recurrence history.
  nlohmann::json saveState(Nanos now, std::chrono::system_clock::time_point wallNow) const {
    nlohmann::json doc = nlohmann::json::object();
    doc["written_unix_seconds"] = std::chrono::duration<double>(wallNow.time_since_epoch()).count();
    nlohmann::json rules = nlohmann::json::object();
    const auto table = ruleTable();
    for (size_t i = 0; i < table.size(); ++i) {
      nlohmann::json one;
      if (memories_[i] && memories_[i]->save(one)) rules[std::string(table[i]->name)] = std::move(one);
    }
    doc["rules"] = std::move(rules);
    tracker_.saveRecurrence(doc["recurrence"], now, wallNow);
    tracker_.saveActive(doc["active_findings"]);
    return doc;
  }

  void restoreState(const nlohmann::json& doc, Nanos now, std::chrono::system_clock::time_point wallNow) {
    if (auto rules = doc.find("rules"); rules != doc.end() && rules->is_object()) {
      const auto table = ruleTable();
      for (size_t i = 0; i < table.size(); ++i) {
        auto it = rules->find(std::string(table[i]->name));
        if (memories_[i] && it != rules->end()) memories_[i]->restore(*it);
      }
    }
    if (auto rec = doc.find("recurrence"); rec != doc.end()) tracker_.restoreRecurrence(*rec, now, wallNow);
    if (auto active = doc.find("active_findings"); active != doc.end()) tracker_.restoreActive(*active, now);
  }
  size_t trackedSeries() const { return history_.size(); }

 private:
  WatchdogConfig config_;
  QosConfig qos_;
  History history_;
  FindingTracker tracker_{ruleNames()};
  StormLedger storms_;
  std::vector<std::unique_ptr<RuleState>> memories_;  ///< each rule's RuleDef::makeMemory, by table index
};

}  // namespace watchdog

struct PendingState {
  nlohmann::json doc;
};

Watchdog::Watchdog(WatchdogConfig config, QosConfig qos)
    : engine_(std::make_unique<watchdog::Engine>(std::move(config), std::move(qos))) {
  publish({}, {});
}

Watchdog::~Watchdog() = default;

void Watchdog::reconfigure(WatchdogConfig config, QosConfig qos) {
  std::lock_guard lock(engineMutex_);
  engine_->configure(std::move(config), std::move(qos));
  BatchPtr previous = metricsBatch();
  publish(previous->monotonic, previous->wall);
}

void Watchdog::evaluate(const Snapshot& snapshot, std::chrono::steady_clock::time_point now,
                        std::chrono::system_clock::time_point wallNow) {
  std::lock_guard lock(engineMutex_);
  if (pending_) {
    // Taken back at the first evaluation: its clocks date the restored history.
    engine_->restoreState(pending_->doc, watchdog::toNs(now), wallNow);
    pending_.reset();
  }
  engine_->evaluate(snapshot, watchdog::toNs(now), wallNow);
  publish(now, wallNow);
  lastNow_ = now;
  lastWall_ = wallNow;
  if (!evaluated_) lastSave_ = now;
  evaluated_ = true;
  if (!statePath_.empty() && now - lastSave_ >= stateInterval_) saveState();
}

void Watchdog::useStateFile(std::string path, std::chrono::milliseconds interval) {
  statePath_ = std::move(path);
  stateInterval_ = interval;
  pending_.reset();
  if (statePath_.empty()) return;
  auto doc = watchdog::readStateFile(statePath_);
  if (!doc) {
    spdlog::warn("state file {} ignored, starting without it: {}", statePath_, doc.error().message);
    return;
  }
  if (!doc->has_value()) {
    spdlog::info("state file {} does not exist yet; it is written every {} s", statePath_, interval.count() / 1000);
    return;
  }
  spdlog::info("state file {} read: baselines and recurrence history restored", statePath_);
  pending_ = std::make_unique<PendingState>(PendingState{std::move(**doc)});
}

bool Watchdog::flushState(std::chrono::steady_clock::time_point deadline) {
  if (statePath_.empty() || !evaluated_) return true;
  nlohmann::json doc = pending_ ? pending_->doc : engine_->saveState(watchdog::toNs(lastNow_), lastWall_);
  auto written = std::make_shared<std::promise<Status>>();
  std::future<Status> result = written->get_future();
  std::thread writer;
  try {
    writer = std::thread([path = statePath_, doc, written]() mutable {
      nameThisThread("state-writer");
      written->set_value(watchdog::writeStateFile(path, std::move(doc)));
    });
  } catch (const std::system_error&) {  // no thread to be had: write here, unbounded
    written->set_value(watchdog::writeStateFile(statePath_, std::move(doc)));
  }
  const bool done = deadline == std::chrono::steady_clock::time_point::max()
                        ? (result.wait(), true)
                        : result.wait_until(deadline) == std::future_status::ready;
  if (!done) {
    spdlog::warn("state file {} still being written at the stop deadline; the previous one stays", statePath_);
    writer.detach();  // it holds only its own copies; the process ends with _Exit
    return false;
  }
  if (writer.joinable()) writer.join();
  if (Status st = result.get(); !st) spdlog::warn("state file {} not written: {}", statePath_, st.error().message);
  return true;
}

void Watchdog::saveState() {
  lastSave_ = lastNow_;
  nlohmann::json doc = engine_->saveState(watchdog::toNs(lastNow_), lastWall_);
  if (pending_) {
    // Nothing was evaluated since the file was read: keep what it said rather than lose it.
    doc = pending_->doc;
  }
  if (auto st = watchdog::writeStateFile(statePath_, std::move(doc)); !st) {
    if (!saveFailing_) spdlog::warn("state file {} not written: {}", statePath_, st.error().message);
    saveFailing_ = true;
  } else if (saveFailing_) {
    spdlog::info("state file {} written again", statePath_);
    saveFailing_ = false;
  }
}

void Watchdog::publish(std::chrono::steady_clock::time_point now, std::chrono::system_clock::time_point wallNow) {
  auto batch = std::make_shared<Batch>();
  batch->collector = "watchdog";
  batch->monotonic = now;
  batch->wall = wallNow;
  SeriesRosterPtr previous;
  {
    std::lock_guard lock(outputMutex_);
    if (batch_) previous = batch_->roster;
  }
  SampleWriter out(*batch, std::move(previous));
  engine_->appendSamples(out, watchdog::toNs(now));
  out.finish();
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

std::span<const FamilyDef* const> Watchdog::families() {
  static const std::vector<const FamilyDef*> kAll = watchdog::allFamilies();
  return kAll;
}

}  // namespace fabricmon
