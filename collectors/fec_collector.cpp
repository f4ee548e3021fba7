// The FEC collector (collector name "fec").

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "collectors/labelled_series.hpp"
#include "collectors/per_interface.hpp"
#include "collectors/registry.hpp"
#include "model/families/fec.hpp"

namespace fabricmon {

namespace {

using namespace families::fec;

constexpr size_t kMaxLanes = 8;  // ETHTOOL_MAX_LANES

class FecCollector final : public Collector {
 public:
  explicit FecCollector(std::shared_ptr<FecSource> source) : source_(std::move(source)) {}

  std::span<const FamilyDef* const> families() const override { return families::fec::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (!source_) return CollectStatus::kNoData;
    const CollectStatus status =
        interfaces_.poll(topology, out, [&](const std::string& ifname) { return source_->read(ifname); },
                         [&](const FecInfo& info, IfSeries& s) { emit(info, s, out); }, forEachSeries);
    info_.endRun();
    return status;
  }

 private:
  struct Counter {
    SeriesPtr total;
    std::array<SeriesPtr, kMaxLanes> lanes;
  };
  struct IfSeries {
    std::string name;
    std::string errorKey;  // "<if>/fec"
    Counter corrected, uncorrectable;
    SeriesPtr lanes, speed;
    SeriesPtr info;  ///< the fabricmon_fec_info of its last good read (info_ forgets it at a failed one)
  };

  /// Every series an interface's state holds (reported unread when its read fails).
  static void forEachSeries(const IfSeries& s, const std::function<void(const SeriesPtr&)>& fn) {
    for (const Counter* c : {&s.corrected, &s.uncorrectable}) {
      fn(c->total);
      for (const SeriesPtr& lane : c->lanes) fn(lane);
    }
    for (const SeriesPtr* series : {&s.lanes, &s.speed, &s.info}) fn(*series);
  }

  static void emitCounter(const FecCounter& c, Counter& slots, const FamilyDef& total, const FamilyDef& lane,
                          const std::string& ifname, CollectOutput& out) {
    if (!c.total) return;
    if (!slots.total) slots.total = makeSeries(total, {{"interface", ifname}});
    out.add(slots.total, static_cast<double>(*c.total));
    for (size_t i = 0; i < c.lanes.size() && i < kMaxLanes; ++i) {
      if (!slots.lanes[i]) slots.lanes[i] = makeSeries(lane, {{"interface", ifname}, {"lane", std::to_string(i)}});
      out.add(slots.lanes[i], static_cast<double>(c.lanes[i]));
    }
  }

  void emit(const FecInfo& info, IfSeries& s, CollectOutput& out) {
    emitCounter(info.corrected, s.corrected, kCorrectedBlocks, kLaneCorrectedBlocks, s.name, out);
    emitCounter(info.uncorrectable, s.uncorrectable, kUncorrectableBlocks, kLaneUncorrectableBlocks, s.name, out);
    if (info.lanes) {
      if (!s.lanes) s.lanes = makeSeries(kLinkLanes, {{"interface", s.name}});
      out.add(s.lanes, *info.lanes);
    }
    double bitsPerSecond = 0;
    if (info.speedMbps) {
      bitsPerSecond = static_cast<double>(*info.speedMbps) * 1e6;
      if (!s.speed) s.speed = makeSeries(kLinkSpeed, {{"interface", s.name}});
      out.add(s.speed, bitsPerSecond / 8);
    }
    if (info.mode) {
      // Without a lane count, 200G and faster links run 50G or 100G PAM4 lanes in every IEEE PHY
      // (802.3bs, 802.3cd, 802.3ck, 802.3df); a slower one stays unknown ("RS").
      double lane = 0;
      if (info.lanes && bitsPerSecond > 0) {
        lane = bitsPerSecond / *info.lanes;
      } else if (bitsPerSecond >= 200e9) {
        lane = 50e9;
      }
      s.info = info_.get(kInfo, {{"interface", s.name}, {"mode", *info.mode}, {"code", std::string(fecCode(*info.mode, lane))}});
      out.add(s.info, 1);
    } else {
      s.info = nullptr;
    }
  }

  std::shared_ptr<FecSource> source_;
  PerInterface<IfSeries> interfaces_{"fec"};
  LabelledSeries info_;
};

/// Per interface of the topology: corrected and uncorrectable FEC codewords (total and per lane
/// where the driver counts per lane), the active FEC mode and the code it implies, and the link's
/// lanes and speed, from the FEC source (ethtool netlink or sources.fec_dir files). The corrected
/// bit counts are the ethtool group's (docs/metrics.md, "Physical layer").
std::unique_ptr<Collector> makeFecCollector(const Sources& sources, const Config& /*config*/) {
  return std::make_unique<FecCollector>(sources.fec);
}

}  // namespace

// FEC blocks, mode, lanes and speed (ethtool netlink): fast, like the corrected bits beside them.
extern const CollectorEntry kFecCollector{"fec", Cadence::kFast, {}, &makeFecCollector, nullptr};

}  // namespace fabricmon
