// The PFC / pause / per-priority ethtool collector (collector name "ethtool_pfc").

#include <spdlog/spdlog.h>

#include <cerrno>
#include <functional>
#include <regex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "collectors/ethtool_dialects/dialect.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/ethtool_source.hpp"
#include "config/config.hpp"
#include "model/families/ethtool.hpp"

namespace fabricmon {

namespace {

// ---- the collector ----

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

bool isNoData(int errnum) { return errnum == ENOENT || errnum == EOPNOTSUPP; }

class EthtoolPfcCollector final : public Collector {
 public:
  EthtoolPfcCollector(std::shared_ptr<EthtoolSource> source, std::vector<std::regex> include)
      : source_(std::move(source)), include_(std::move(include)) {}

  std::span<const FamilyDef* const> families() const override { return families::ethtool::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (!source_ || topology.netdevs.empty()) return CollectStatus::kNoData;
    ++poll_;
    size_t ok = 0, failed = 0;
    for (const Netdev& netdev : topology.netdevs) {
      auto [it, inserted] = interfaces_.try_emplace(netdev.name);
      Interface& iface = it->second;
      if (inserted) {
        iface.errorKey = netdev.name + "/ethtool";
        iface.linesKey = netdev.name + "/ethtool (lines)";
      }
      iface.lastSeen = poll_;
      if (iface.driver != netdev.driver) {
        // Another driver bound to the name (or discovery learned it): its dialect gives other
        // meanings, so every mapping is rebuilt.
        iface.driver = netdev.driver;
        iface.names.reset();
        iface.exports.clear();
        iface.synced = false;
      }

      if (auto st = source_->readInto(netdev.name, iface.stats); !st) {
        // Whatever the source left in `stats` is not the list `exports` was built for.
        iface.synced = false;
        if (isNoData(st.error().errnum)) {
          if (!iface.noData)
            spdlog::debug("ethtool_pfc: {}: no ethtool stats ({})", netdev.name,
                          st.error().message);
          iface.noData = true;
          out.fileOk(iface.errorKey);
        } else {
          ++failed;
          out.fileError(iface.errorKey, st.error());
          // Unknown this poll, not gone: the series of its last good read (Batch::unread).
          for (const Export& e : iface.exports) out.unread(e.target.series);
        }
        continue;
      }
      iface.noData = false;
      ++ok;
      out.fileOk(iface.errorKey);
      if (!iface.stats.issues.empty()) {
        std::string msg = iface.stats.issues.front();
        if (iface.stats.issues.size() > 1)
          msg += " (and " + std::to_string(iface.stats.issues.size() - 1) + " more lines)";
        out.fileError(iface.linesKey,
                      Error{"ethtool stats of " + netdev.name + ": " + msg, EINVAL});
      } else {
        out.fileOk(iface.linesKey);
      }
      emit(netdev.name, iface, out);
    }
    if (interfaces_.size() != topology.netdevs.size()) {
      std::erase_if(interfaces_, [&](const auto& kv) { return kv.second.lastSeen != poll_; });
    }
    if (ok > 0) return CollectStatus::kOk;
    return failed > 0 ? CollectStatus::kFailed : CollectStatus::kNoData;
  }

 private:
  /// Where a stat goes: null series for a stat we do not export.
  struct Target {
    SeriesPtr series;
    double scale = 1;
  };
  /// An exported stat: its position in the interface's stats list and its series.
  struct Export {
    size_t index = 0;
    Target target;
  };
  struct Interface {
    EthtoolStats stats;     // refilled in place by the source every poll
    EthtoolNamesPtr names;  // the (shared) name list `exports` was built for, by position
    std::vector<Export> exports;     // by increasing index: samples keep the NIC's order
    bool synced = false;             // `names` is what the last good read left in `stats`
    std::string errorKey, linesKey;
    std::string driver;  // selects the dialect (collectors/ethtool_dialects/)
    uint64_t lastSeen = 0;
    bool noData = false;
  };

  // A CX-7 reports ~665 stats of which ~30 are exported; the list of 665 names only changes when
  // PFC is reconfigured or the driver is reloaded. So positions are mapped to series once per
  // change of the list, and a poll touches only the exported positions.
  void emit(const std::string& ifname, Interface& iface, CollectOutput& out) {
    // The file source vouches for an unchanged list; anything else is compared name by name.
    if (!(iface.synced && iface.stats.namesUnchanged) && !sameNames(iface)) remap(ifname, iface);
    iface.synced = true;
    const auto& values = iface.stats.values;
    for (const Export& e : iface.exports) {
      out.add(e.target.series, static_cast<double>(values[e.index]) * e.target.scale);
    }
  }

  // Both sources intern their lists, so equal lists are one object; a source that does not
  // (tests' fakes) is compared name by name.
  static bool sameNames(const Interface& iface) {
    const EthtoolNamesPtr& now = iface.stats.names;
    if (now == iface.names) return now != nullptr;
    return now && iface.names && *now == *iface.names;
  }

  // Rebuilds names/exports for the current list. Names seen before keep their series (and names
  // known to be unexported skip the table and the include regexes); names that vanished are
  // forgotten. A driver repeating a name: the first one counts.
  void remap(const std::string& ifname, Interface& iface) {
    // Keyed by views into the old list, which `old` keeps alive until the end.
    const EthtoolNamesPtr old = std::move(iface.names);
    std::unordered_map<std::string_view, Target> known;
    if (old) {
      known.reserve(old->size());
      auto exp = iface.exports.begin();
      for (size_t i = 0; i < old->size(); ++i) {
        Target t;
        if (exp != iface.exports.end() && exp->index == i) t = (exp++)->target;
        known.try_emplace((*old)[i], std::move(t));
      }
    }

    const EthtoolNamesPtr& names = iface.stats.names;
    const size_t count = names ? names->size() : 0;
    std::vector<Export> exports;
    std::unordered_set<std::string_view> seen;
    seen.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const std::string& stat = (*names)[i];
      if (!seen.insert(stat).second) continue;
      auto it = known.find(std::string_view(stat));
      Target t =
          it != known.end() ? std::move(it->second) : makeTarget(ifname, iface.driver, stat);
      if (t.series) exports.push_back(Export{i, std::move(t)});
    }
    iface.names = names;
    iface.exports = std::move(exports);
  }

  Target makeTarget(const std::string& ifname, const std::string& driver,
                    const std::string& stat) const {
    ethtool::StatMapping m = ethtool::mapStat(driver, stat);
    if (m.family != nullptr) {
      Labels labels{{"interface", ifname}};
      labels.insert(labels.end(), m.labels.begin(), m.labels.end());
      return Target{makeSeries(*m.family, std::move(labels)), m.scale};
    }
    for (const auto& re : include_) {
      if (std::regex_match(stat, re)) {
        return Target{
            makeSeries(families::ethtool::kEthtoolStat, {{"interface", ifname}, {"stat", stat}}),
            1};
      }
    }
    return Target{};
  }

  std::shared_ptr<EthtoolSource> source_;
  std::vector<std::regex> include_;
  StringMap<Interface> interfaces_;
  uint64_t poll_ = 0;
};

/// PFC and 802.3x pause, storm events, per-priority traffic, discards and ECN marks, PHY and
/// buffer health, RDMA vport traffic and PCI stalls of every interface in the topology, read
/// from the ethtool stats source once per poll (docs/metrics.md, "ethtool group"). Any other stat
/// is exported as fabricmon_ethtool_stat_total only when one regex of ethtool.stats_include
/// matches its whole name. Stat names are read in the dialect of the interface's driver
/// (collectors/ethtool_dialects/).
std::unique_ptr<Collector> makeEthtoolPfcCollector(const Sources& sources, const Config& config) {
  std::vector<std::regex> include;
  for (const std::string& pattern : config.ethtool.statsInclude) {
    try {
      include.emplace_back(pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      // Config validation should have caught it; a bad pattern must not take the collector down.
      spdlog::error("ethtool_pfc: ignoring ethtool.stats_include pattern \"{}\": {}", pattern,
                    e.what());
    }
  }
  return std::make_unique<EthtoolPfcCollector>(sources.ethtool, std::move(include));
}

}  // namespace

// Pause frames, discards and ECN marks show a storm: fast.
extern const CollectorEntry kEthtoolPfcCollector{
    "ethtool_pfc", Cadence::kFast, {}, &makeEthtoolPfcCollector, nullptr};

}  // namespace fabricmon
