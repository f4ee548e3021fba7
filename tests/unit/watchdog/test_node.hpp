#pragma once
// A hand-driven node for watchdog tests: collectors' current values are set by hand, and tick()
// publishes one batch per collector with an explicit timestamp and runs the watchdog. No sleeps.

#include <chrono>
#include <deque>
#include <map>
#include <set>
#include <string>

#include "model/families/all.hpp"
#include "model/store.hpp"
#include "watchdog/watchdog.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon::testing {

/// The definition of a family by name: the real one (model/families/) for a family a collector
/// emits, which is what the watchdog recognises; otherwise a test-only one with static storage
/// (the model expects families to outlive series).
inline const FamilyDef& family(std::string_view name) {
  if (const FamilyDef* real = families::byName(name)) return *real;
  static std::deque<std::string> names;
  static std::map<std::string, FamilyDef, std::less<>> defs;
  auto it = defs.find(name);
  if (it == defs.end()) {
    names.emplace_back(name);
    bool counter = name.size() > 6 && name.substr(name.size() - 6) == "_total";
    it = defs.emplace(std::string(name), FamilyDef{names.back(), "test",
                                                   counter ? MetricType::kCounter : MetricType::kGauge})
             .first;
  }
  return it->second;
}

class TestNode {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TestNode(WatchdogConfig config = {}, QosConfig qos = {}) : watchdog_(config, qos) {}

  /// Sets (or adds) a series in `collector`'s next batches.
  void set(const std::string& collector, std::string_view fam, Labels labels, double value) {
    auto series = makeSeries(family(fam), std::move(labels));
    auto& c = collectors_[collector];
    auto it = c.find(series->key);
    if (it == c.end()) {
      c.emplace(series->key, testing::OwnedSample{series, value});
    } else {
      it->second.value = value;
    }
  }
  void add(const std::string& collector, std::string_view fam, Labels labels, double increment) {
    auto series = makeSeries(family(fam), std::move(labels));
    auto& c = collectors_[collector];
    auto it = c.find(series->key);
    if (it == c.end()) {
      c.emplace(series->key, testing::OwnedSample{series, increment});
    } else {
      it->second.value += increment;
    }
  }
  /// Attaches `text` to the series (Batch::notes) in `collector`'s next batches.
  void note(const std::string& collector, std::string_view fam, Labels labels, std::string text) {
    notes_[collector][makeSeries(family(fam), std::move(labels))->key] = std::move(text);
  }
  /// Removes every series of `collector` whose labels contain label=value (a device vanishing), of
  /// family `fam` only when given.
  void drop(const std::string& collector, std::string_view label, std::string_view value,
            std::string_view fam = {}) {
    auto& c = collectors_[collector];
    for (auto it = c.begin(); it != c.end();) {
      const Series& s = *it->second.series;
      it = s.label(label) == value && (fam.empty() || s.family->name == fam) ? c.erase(it) : std::next(it);
    }
  }
  /// From the next tick on, the series of `collector` whose labels contain label=value (of family
  /// `fam`, or any) are unread (a failing read: listed in Batch::unread, no sample), or read again
  /// with `unread` false.
  void setUnread(const std::string& collector, std::string_view label, std::string_view value, bool unread = true,
                 std::string_view fam = {}) {
    for (const auto& [key, sample] : collectors_[collector]) {
      if (sample.series->label(label) != value) continue;
      if (!fam.empty() && sample.series->family->name != fam) continue;
      if (unread) {
        unread_[collector].insert(key);
      } else {
        unread_[collector].erase(key);
      }
    }
  }
  /// Advances time by `seconds`, publishes every collector's batch stamped with the new time, evaluates.
  void tick(double seconds = 1.0) {
    now_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    wall_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(seconds));
    for (const auto& [name, samples] : collectors_) publishBatch(name, now_, wall_);
    ++snapshot_.generation;
    watchdog_.evaluate(snapshot_, now_, wall_);
  }
  /// Advances time by `seconds` and publishes only `collector`'s batch, stamped `runSeconds` earlier
  /// (a slow run that started before another collector's faster one finished), then evaluates; the
  /// other collectors' latest batches stay.
  void tickOne(double seconds, const std::string& collector, double runSeconds = 0) {
    now_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    wall_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(seconds));
    const auto back = std::chrono::duration<double>(runSeconds);
    publishBatch(collector, now_ - std::chrono::duration_cast<Clock::duration>(back),
                 wall_ - std::chrono::duration_cast<std::chrono::system_clock::duration>(back));
    ++snapshot_.generation;
    watchdog_.evaluate(snapshot_, now_, wall_);
  }
  /// Moves both clocks on without publishing anything (the daemon was down meanwhile).
  void skip(double seconds) {
    now_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    wall_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(seconds));
  }
  /// Makes this node a restart of one whose wall clock read `stoppedAt` when it stopped, `gapSeconds`
  /// later, reading the state file that one wrote at `statePath` ("" = started without it).
  void restartAfter(std::chrono::system_clock::time_point stoppedAt, double gapSeconds, const std::string& statePath) {
    skip(std::chrono::duration<double>(stoppedAt - wall_).count() + gapSeconds);
    if (!statePath.empty()) watchdog_.useStateFile(statePath, std::chrono::minutes(5));
  }
  /// Evaluates again without a new batch (another collector published).
  void evaluateOnly() { watchdog_.evaluate(snapshot_, now_, wall_); }
  void removeCollector(const std::string& name) {
    collectors_.erase(name);
    snapshot_.batches.erase(name);
  }

  Watchdog& watchdog() { return watchdog_; }

 private:
  void publishBatch(const std::string& name, Clock::time_point monotonic, std::chrono::system_clock::time_point wall) {
    auto batch = std::make_shared<Batch>();
    batch->collector = name;
    batch->monotonic = monotonic;
    batch->wall = wall;
    SampleWriter out(*batch);
    const auto unread = unread_.find(name);
    for (const auto& [key, sample] : collectors_[name]) {
      if (unread != unread_.end() && unread->second.count(key) != 0) {
        batch->unread.push_back(sample.series);
      } else {
        out.add(sample.series, sample.value);
        if (auto n = notes_.find(name); n != notes_.end()) {
          if (auto t = n->second.find(key); t != n->second.end()) batch->notes.push_back(Note{sample.series, t->second});
        }
      }
    }
    out.finish();
    snapshot_.batches[name] = std::move(batch);
  }

 public:
  std::vector<Finding> findings() const { return watchdog_.activeFindings(); }
  Clock::time_point now() const { return now_; }
  std::chrono::system_clock::time_point wall() const { return wall_; }

 private:
  Watchdog watchdog_;
  std::map<std::string, std::map<std::string, testing::OwnedSample>> collectors_;
  std::map<std::string, std::set<std::string>> unread_;  ///< keys of series unread, by collector
  std::map<std::string, std::map<std::string, std::string>> notes_;  ///< notes by collector and series key
  Snapshot snapshot_;
  Clock::time_point now_{std::chrono::seconds(100000)};
  std::chrono::system_clock::time_point wall_{std::chrono::seconds(1700000000)};
};

/// The label value of a finding ("" when absent).
inline std::string labelOf(const Finding& f, std::string_view name) {
  for (const auto& [k, v] : f.labels) {
    if (k == name) return v;
  }
  return {};
}

/// Findings as "rule/reason/subject" strings, for readable assertions.
inline std::vector<std::string> describe(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) {
    std::string s = f.rule + "/" + labelOf(f, "reason");
    for (const char* l : {"device", "port", "interface", "priority"}) {
      if (!labelOf(f, l).empty()) s += "/" + labelOf(f, l);
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace fabricmon::testing

namespace fabricmon::testing {

inline constexpr double k400G = 5e10;  // bytes per second

/// A RoCE port `dev`/1 behind `iface` with the intended QoS (PFC on 3 only, trust dscp, DCQCN on).
inline void healthyRoce(TestNode& n, const std::string& dev = "mlx5_0", const std::string& iface = "eth0",
                        double rate = k400G) {
  n.set("rdma_port", "fabricmon_port_info",
        {{"device", dev}, {"port", "1"}, {"interface", iface}, {"link_layer", "Ethernet"}, {"rate", "400"}}, 1);
  n.set("rdma_port", "fabricmon_port_state", {{"device", dev}, {"port", "1"}}, 4);
  n.set("rdma_port", "fabricmon_port_physical_state", {{"device", dev}, {"port", "1"}}, 5);
  n.set("rdma_port", "fabricmon_port_rate_bytes_per_second", {{"device", dev}, {"port", "1"}}, rate);
  n.set("netdev_link", "fabricmon_netdev_up", {{"interface", iface}}, 1);
  n.set("netdev_link", "fabricmon_netdev_carrier_down_changes_total", {{"interface", iface}}, 1);
  for (int p = 0; p < 8; ++p) {
    std::string prio = std::to_string(p);
    n.set("dcb_config", "fabricmon_pfc_enabled", {{"interface", iface}, {"priority", prio}}, p == 3 ? 1 : 0);
    n.set("dcqcn_config", "fabricmon_dcqcn_np_enabled", {{"interface", iface}, {"priority", prio}}, 1);
    n.set("dcqcn_config", "fabricmon_dcqcn_rp_enabled", {{"interface", iface}, {"priority", prio}}, 1);
  }
  n.set("dcb_config", "fabricmon_dcb_trust_dscp", {{"interface", iface}}, 1);
  n.set("dcb_config", "fabricmon_dcb_dscp_priority", {{"interface", iface}, {"dscp", "26"}}, 3);
  n.set("dcb_config", "fabricmon_dcb_dscp_priority", {{"interface", iface}, {"dscp", "48"}}, 6);
  n.set("dcqcn_config", "fabricmon_dcqcn_parameter",
        {{"interface", iface}, {"role", "np"}, {"parameter", "cnp_802p_prio"}}, 6);
  n.set("dcqcn_config", "fabricmon_dcqcn_parameter", {{"interface", iface}, {"role", "np"}, {"parameter", "cnp_dscp"}},
        48);
  for (const char* dir : {"rx", "tx"}) {
    n.set("ethtool_pfc", "fabricmon_pfc_pause_seconds_total", {{"interface", iface}, {"priority", "3"}, {"direction", dir}},
          100);
  }
  n.set("ethtool_pfc", "fabricmon_priority_transmit_packets_total", {{"interface", iface}, {"priority", "3"}}, 1e6);
  n.set("ethtool_pfc", "fabricmon_priority_receive_packets_total", {{"interface", iface}, {"priority", "3"}}, 1e6);
  for (const char* kind : {"discards", "buffer", "congestion"}) {
    n.set("ethtool_pfc", "fabricmon_priority_discards_total", {{"interface", iface}, {"priority", "3"}, {"kind", kind}},
          0);
  }
  for (const char* fam : {"fabricmon_roce_ecn_marked_packets_total", "fabricmon_roce_cnp_sent_total",
                          "fabricmon_roce_cnp_handled_total", "fabricmon_roce_cnp_ignored_total",
                          "fabricmon_roce_out_of_sequence_total", "fabricmon_roce_packet_sequence_errors_total",
                          "fabricmon_roce_local_ack_timeouts_total"}) {
    n.set("hw_counters", fam, {{"device", dev}, {"port", "1"}}, 10);
  }
  for (const char* fam : {"fabricmon_port_symbol_errors_total", "fabricmon_port_link_error_recovery_total",
                          "fabricmon_port_link_downed_total", "fabricmon_port_receive_errors_total"}) {
    n.set("pma_counters", fam, {{"device", dev}, {"port", "1"}}, 0);
  }
}

/// Traffic that keeps moving on priority 3: packets progress, a little ECN and CNP activity.
inline void flowing(TestNode& n, const std::string& dev = "mlx5_0", const std::string& iface = "eth0") {
  n.add("ethtool_pfc", "fabricmon_priority_transmit_packets_total", {{"interface", iface}, {"priority", "3"}}, 1000);
  n.add("ethtool_pfc", "fabricmon_priority_receive_packets_total", {{"interface", iface}, {"priority", "3"}}, 1000);
  n.add("hw_counters", "fabricmon_roce_ecn_marked_packets_total", {{"device", dev}, {"port", "1"}}, 5);
  n.add("hw_counters", "fabricmon_roce_cnp_sent_total", {{"device", dev}, {"port", "1"}}, 5);
  n.add("hw_counters", "fabricmon_roce_cnp_handled_total", {{"device", dev}, {"port", "1"}}, 5);
}

}  // namespace fabricmon::testing
