#include "watchdog/finding_tracker.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace fabricmon::watchdog {
namespace {

std::string formatEvidence(const Finding& f) {
  std::string out;
  for (const auto& [k, v] : f.evidence) {
    if (!out.empty()) out += ' ';
    out += k;
    out += '=';
    out += fmt::format("{:g}", v);
  }
  return out;
}

std::string formatLabels(const Finding& f) {
  std::string out;
  for (const auto& [k, v] : f.labels) {
    out += ' ';
    out += k;
    out += '=';
    out += v;
  }
  return out;
}

}  // namespace

const FamilyDef FindingTracker::kActiveFamily{
    "fabricmon_watchdog_active",
    "1 while a watchdog finding is active, 0 after it cleared (until its subject disappears); see "
    "docs/rules.md.",
    MetricType::kGauge, "0/1", "rule,severity,device,port,interface,priority,reason,side"};
const FamilyDef FindingTracker::kRecurringFamily{
    "fabricmon_watchdog_recurring",
    "1 while a watchdog finding of this rule and subject has started at least "
    "watchdog.recurrence.count times "
    "within watchdog.recurrence.window (the fault keeps being reset, not fixed), 0 after; see "
    "docs/rules.md.",
    MetricType::kGauge, "0/1", "rule,severity,device,port,interface,priority,reason"};
const FamilyDef FindingTracker::kTransitionsFamily{
    "fabricmon_watchdog_transitions_total",
    "Number of times a finding of this watchdog rule started.", MetricType::kCounter, "starts",
    "rule"};

FindingTracker::FindingTracker(std::vector<std::string_view> rules)
    : rules_(std::move(rules)), transitions_(rules_.size(), 0.0) {
  for (std::string_view rule : rules_) {
    transitionSeries_.push_back(makeSeries(kTransitionsFamily, {{"rule", std::string(rule)}}));
  }
}

void FindingTracker::keyOf(std::string& out, size_t rule, std::string_view reason, const Subject& subject) const {
  // One resize and a copy per part: every rule observes every subject at every evaluation, and
  // appending part by part cost more than the lookup the key is for (docs/benchmarks.md, "Fifth
  // pass: CPU"). `out` keeps its capacity between calls.
  const std::array<std::string_view, 7> parts{rules_.at(rule), reason,           subject.device, subject.port,
                                              subject.interface, subject.priority, subject.side};
  size_t size = parts.size();
  for (std::string_view part : parts) size += part.size();
  out.resize(size);
  char* p = out.data();
  for (std::string_view part : parts) {
    if (!part.empty()) std::memcpy(p, part.data(), part.size());
    p += part.size();
    *p++ = '\x1f';
  }
}

bool FindingTracker::isActive(size_t rule, std::string_view reason, const Subject& subject) const {
  keyOf(scratch_, rule, reason, subject);
  auto it = states_.find(scratch_);
  return it != states_.end() && it->second.active;
}

void FindingTracker::beginRound(std::chrono::system_clock::time_point wallNow, Jobs jobs) {
  jobs_ = std::move(jobs);
  wallNow_ = wallNow;
  for (auto& [key, st] : states_) st.seen = false;
}

void FindingTracker::observe(size_t rule, std::string_view reason, Severity severity,
                             const Subject& subject, const Policy& policy, const Verdict& v) {
  keyOf(scratch_, rule, reason, subject);
  auto it = states_.find(scratch_);
  if (it == states_.end()) {
    // Subjects are only remembered once they have something to remember.
    if (!v.judged || (!v.fire && !v.undecided)) return;
    it = states_.emplace(scratch_, State{}).first;
    State& st = it->second;
    if (auto restored = restoredStarts_.find(scratch_); restored != restoredStarts_.end()) {
      st.starts = std::move(restored->second);
      restoredStarts_.erase(restored);
    }
    st.rule = rule;
    st.finding.rule = std::string(rules_[rule]);
    st.finding.severity = severity;
    auto add = [&](const char* name, std::string_view value) {
      if (!value.empty()) st.finding.labels.emplace_back(name, std::string(value));
    };
    add("device", subject.device);
    add("port", subject.port);
    add("interface", subject.interface);
    add("priority", subject.priority);
    add("reason", reason);
    add("side", subject.side);
  }
  State& st = it->second;
  st.seen = true;
  if (!v.judged || v.stamp <= st.lastStamp) return;
  st.lastStamp = v.stamp;
  newestStamp_ = std::max(newestStamp_, v.stamp);
  updateRecurrence(st, v.stamp);

  if (!st.active) {
    if (!v.fire) {
      if (v.undecided) {  // the run waits for evidence that decides
        ++st.undecided;
        return;
      }
      if (!st.gauge) {
        // Never started: nothing to show. Starts restored from the state file wait for it again.
        if (!st.starts.empty()) restoredStarts_[it->first] = std::move(st.starts);
        states_.erase(it);
        return;
      }
      st.hits = 0;
      st.undecided = 0;
      st.condSince = kNever;
      return;
    }
    st.hits += 1 + (v.confirmsUndecided ? st.undecided : 0);
    st.undecided = 0;
    if (st.condSince == kNever) st.condSince = v.stamp;
    if (st.hits >= std::max(1u, policy.forSamples) && v.stamp - st.condSince >= policy.forDuration) {
      start(it->first, st, v);
    }
    return;
  }
  if (v.clear) {
    Nanos from = v.clearFrom != kNever ? v.clearFrom : v.stamp;
    if (st.clearSince == kNever) st.clearSince = from;
    if (v.stamp - st.clearSince >= policy.clearAfter) stop(st, "condition cleared");
  } else {
    st.clearSince = kNever;
  }
}

void FindingTracker::saveRecurrence(nlohmann::json& out, Nanos steadyNow,
                                    std::chrono::system_clock::time_point wallNow) const {
  const double wallSeconds = std::chrono::duration<double>(wallNow.time_since_epoch()).count();
  out = nlohmann::json::object();
  auto put = [&](const std::string& key, const std::deque<Nanos>& starts) {
    nlohmann::json list = nlohmann::json::array();
    for (Nanos t : starts) {
      if (steadyNow - t > recurrenceWindow_) continue;
      list.push_back(wallSeconds - double(steadyNow - t) / kSecond);
    }
    if (!list.empty()) out[key] = std::move(list);
  };
  for (const auto& [key, st] : states_) put(key, st.starts);
  for (const auto& [key, starts] : restoredStarts_) put(key, starts);
}

void FindingTracker::restoreRecurrence(const nlohmann::json& in, Nanos steadyNow,
                                       std::chrono::system_clock::time_point wallNow) {
  if (!in.is_object()) return;
  const double wallSeconds = std::chrono::duration<double>(wallNow.time_since_epoch()).count();
  for (const auto& [key, list] : in.items()) {
    if (!list.is_array()) continue;
    std::deque<Nanos> starts;
    for (const auto& v : list) {
      if (!v.is_number()) continue;
      const double ago = wallSeconds - v.get<double>();
      // A start in the future (the clock was set back) or beyond the window says nothing now.
      if (!(ago >= 0) || ago * kSecond > double(recurrenceWindow_)) continue;
      starts.push_back(steadyNow - static_cast<Nanos>(ago * kSecond));
    }
    std::sort(starts.begin(), starts.end());
    while (starts.size() > recurrenceCount_) starts.pop_front();
    if (starts.empty()) continue;
    if (auto it = states_.find(key); it != states_.end()) {
      it->second.starts.insert(it->second.starts.begin(), starts.begin(), starts.end());
    } else {
      restoredStarts_[key] = std::move(starts);
    }
  }
}

void FindingTracker::saveActive(nlohmann::json& out) const {
  out = nlohmann::json::array();
  for (const auto& [key, st] : states_) {
    if (st.active) out.push_back(key);
  }
  // Not seen since the restart yet: still the episode of the process before, within its grace.
  for (const auto& [key, until] : continuing_) {
    if (until >= newestStamp_) out.push_back(key);
  }
}

void FindingTracker::restoreActive(const nlohmann::json& in, Nanos steadyNow) {
  if (!in.is_array()) return;
  for (const auto& key : in) {
    if (!key.is_string()) continue;
    const std::string k = key.get<std::string>();
    if (auto it = states_.find(k); it == states_.end() || !it->second.active) continuing_[k] = steadyNow + kContinueGrace;
  }
}

void FindingTracker::updateRecurrence(State& st, Nanos stamp) const {
  while (!st.starts.empty() && (st.starts.size() > recurrenceCount_ || stamp - st.starts.front() > recurrenceWindow_)) {
    st.starts.pop_front();
  }
  st.recurring = st.starts.size() >= recurrenceCount_;
}

void FindingTracker::start(const std::string& key, State& st, const Verdict& v) {
  st.active = true;
  st.hits = 0;
  st.condSince = kNever;
  st.clearSince = kNever;
  // The finding the process before had up when it stopped, starting again right after the restart:
  // the same episode, already among the restored starts.
  auto continuing = continuing_.find(key);
  if (continuing == continuing_.end() || v.stamp > continuing->second) st.starts.push_back(v.stamp);
  if (continuing != continuing_.end()) continuing_.erase(continuing);
  updateRecurrence(st, v.stamp);
  st.finding.since = wallNow_;
  st.finding.summary = v.summary;
  {
    std::string device, port;
    for (const auto& [k, val] : st.finding.labels) {
      if (k == "device") device = val;
      if (k == "port") port = val;
    }
    const auto onPort = jobs_.byPort.find(device + "/" + port);
    st.finding.jobs = !device.empty() && onPort != jobs_.byPort.end() ? onPort->second : jobs_.node;
  }
  st.finding.evidence.clear();
  for (size_t i = 0; i < v.evidence.count; ++i) {
    st.finding.evidence.emplace_back(std::string(v.evidence.items[i].first), v.evidence.items[i].second);
  }
  std::erase_if(st.finding.labels, [](const auto& l) { return l.first == "recurring"; });
  if (st.recurring) {
    // The finding says so itself (JSON label, evidence, summary) besides the recurring gauge.
    st.finding.labels.emplace_back("recurring", "true");
    st.finding.evidence.emplace_back("starts_in_window", double(st.starts.size()));
    st.finding.evidence.emplace_back("recurrence_window_seconds", double(recurrenceWindow_) / kSecond);
    st.finding.summary += fmt::format(" [recurring: started {} times within {:.0f} min; the fault was reset, not fixed]",
                                      st.starts.size(), double(recurrenceWindow_) / kSecond / 60);
  }
  if (!st.gauge) {
    Labels labels{{"rule", st.finding.rule}, {"severity", std::string(severityName(st.finding.severity))}};
    for (const char* name : {"device", "port", "interface", "priority", "reason", "side"}) {
      std::string value;
      for (const auto& [k, val] : st.finding.labels) {
        if (k == name) value = val;
      }
      labels.emplace_back(name, std::move(value));
    }
    st.gauge = makeSeries(kActiveFamily, std::move(labels));
  }
  if (st.recurring && !st.recurringGauge) {
    Labels labels = st.gauge->labels().copy();
    st.recurringGauge = makeSeries(kRecurringFamily, std::move(labels));
  }
  transitions_[st.rule] += 1;
  auto level = st.finding.severity == Severity::kInfo ? spdlog::level::info : spdlog::level::warn;
  spdlog::log(level, "watchdog finding started rule={} severity={}{} summary=\"{}\" evidence=\"{}\"", st.finding.rule,
              severityName(st.finding.severity), formatLabels(st.finding), st.finding.summary,
              formatEvidence(st.finding));
}

void FindingTracker::stop(State& st, std::string_view why) {
  st.active = false;
  st.hits = 0;
  st.condSince = kNever;
  st.clearSince = kNever;
  auto lasted = std::chrono::duration<double>(wallNow_ - st.finding.since).count();
  spdlog::info("watchdog finding cleared rule={} severity={}{} why=\"{}\" active_seconds={:.0f}", st.finding.rule,
               severityName(st.finding.severity), formatLabels(st.finding), why, std::max(0.0, lasted));
}

void FindingTracker::endRound() {
  for (auto it = states_.begin(); it != states_.end();) {
    if (!it->second.seen) {
      if (it->second.active) stop(it->second, "subject disappeared");
      it = states_.erase(it);
    } else {
      ++it;
    }
  }
}

void FindingTracker::clearRule(size_t rule) {
  for (auto& [key, st] : states_) {
    if (st.rule == rule && st.active) stop(st, "rule switched off");
  }
}

std::vector<Finding> FindingTracker::active() const {
  std::vector<Finding> out;
  for (const auto& [key, st] : states_) {
    if (st.active) out.push_back(st.finding);
  }
  return out;
}

void FindingTracker::appendSamples(SampleWriter& out) const {
  for (const auto& [key, st] : states_) {
    if (st.gauge) out.add(st.gauge, st.active ? 1.0 : 0.0);
    if (st.recurringGauge) out.add(st.recurringGauge, st.recurring ? 1.0 : 0.0);
  }
  for (size_t i = 0; i < rules_.size(); ++i) out.add(transitionSeries_[i], transitions_[i]);
}

}  // namespace fabricmon::watchdog
