#pragma once
// The per-interface loop of a collector that asks one source about every netdev of the topology
// (dcb_config over DCB, fec over ethtool FEC): one state per netdev in topology order, kept while
// the netdev stays (its series are built once), made fresh for a new one and freed when it leaves;
// each interface's read failure counted under its own key ("<if>/<what>") with the series its state
// holds reported unread (an interface that could not be read is not gone), and every interface
// failing is a failed run (the source is unusable), not bad files.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "collectors/collector.hpp"

namespace fabricmon {

/// `State` has `std::string name` and `std::string errorKey`, and is default-constructible.
template <class State>
class PerInterface {
 public:
  explicit PerInterface(std::string what) : suffix_("/" + std::move(what)) {}

  /// One run: `read(name)` returns a Result<std::optional<Info>> (nullopt: nothing to report for
  /// that interface), `emit(info, state)` adds the interface's samples, and `forEachSeries(state,
  /// fn)` calls fn(const SeriesPtr&) for every series the state holds: when a read fails they are
  /// unread this run (CollectOutput::unread), not gone. A series the state holds that the last good
  /// read did not give is harmless there: the watchdog holds only series it saw in the batch before.
  template <class Read, class Emit, class ForEachSeries>
  CollectStatus poll(const Topology& topology, CollectOutput& out, Read read, Emit emit,
                     ForEachSeries forEachSeries) {
    follow(topology);
    size_t failures = 0;
    for (State& state : states_) {
      auto info = read(state.name);
      if (!info) {
        ++failures;
        out.fileError(state.errorKey, info.error());
        forEachSeries(state, [&out](const SeriesPtr& series) { out.unread(series); });
        continue;
      }
      out.fileOk(state.errorKey);
      if (info->has_value()) emit(**info, state);
    }
    return !states_.empty() && failures == states_.size() ? CollectStatus::kFailed
                                                          : CollectStatus::kOk;
  }

 private:
  void follow(const Topology& topology) {
    const auto& nds = topology.netdevs;
    if (nds.size() == states_.size() &&
        std::equal(nds.begin(), nds.end(), states_.begin(),
                   [](const Netdev& n, const State& s) { return n.name == s.name; })) {
      return;
    }
    std::vector<State> next;
    next.reserve(nds.size());
    for (const Netdev& nd : nds) {
      auto it = std::find_if(states_.begin(), states_.end(),
                             [&](const State& s) { return s.name == nd.name; });
      if (it != states_.end()) {
        next.push_back(std::move(*it));
      } else {
        next.emplace_back();
        next.back().name = nd.name;
        next.back().errorKey = nd.name + suffix_;
      }
    }
    states_ = std::move(next);
  }

  std::string suffix_;
  std::vector<State> states_;
};

}  // namespace fabricmon
