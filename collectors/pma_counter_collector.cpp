#include "collectors/pma_counter_collector.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "collectors/registry.hpp"
#include "collectors/sysfs_slot_groups.hpp"
#include "model/families/pma.hpp"

namespace fabricmon {

namespace {

using namespace families::pma;

using FirstClass = NamedCounter;

struct Width {
  std::string_view file;
  unsigned bits;
};

// IBA PortCounters attribute widths (IBTA Vol. 1 §16.1.3.5 PortCounters; docs/metrics.md). Data and
// packet counters are left out: mlx5 exposes them as 64-bit (PortCountersExtended), so their width
// is not known from the name.
constexpr std::array<Width, 13> kWidths{{
    {"symbol_error", 16},
    {"link_error_recovery", 8},
    {"link_downed", 8},
    {"port_rcv_errors", 16},
    {"port_rcv_remote_physical_errors", 16},
    {"port_rcv_switch_relay_errors", 16},
    {"port_xmit_discards", 16},
    {"port_xmit_constraint_errors", 8},
    {"port_rcv_constraint_errors", 8},
    {"local_link_integrity_errors", 4},
    {"excessive_buffer_overrun_errors", 4},
    {"VL15_dropped", 16},
    {"port_xmit_wait", 32},
}};

std::optional<unsigned> widthOf(std::string_view file) {
  for (const auto& w : kWidths) {
    if (w.file == file) return w.bits;
  }
  return std::nullopt;
}

class PmaCounterCollector final : public Collector {
 public:
  explicit PmaCounterCollector(const Sources& sources)
      : cache_(sources.sysfs, &listRdmaDevices, [this](const Topology& t, SlotGroup& g) { build(t, g); },
               sources.demand) {}

  std::span<const FamilyDef* const> families() const override { return families::pma::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    return cache_.collect(topology, out) == 0 ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  void build(const Topology& topology, SlotGroup& group) {
    const RdmaDevice* device = topology.device(group.name);
    if (device == nullptr) return;
    const SysfsRoot& sysfs = cache_.sysfs();
    const std::string& dev = device->name;
    for (const auto& port : device->ports) {
      const std::string p = std::to_string(port.number);
      const std::string dir = group.dirRel + "/ports/" + p + "/counters";
      // mlx4 and other drivers without 64-bit PortCounters put PortCountersExtended in
      // counters_ext/ (drivers/infiniband/core/sysfs.c, pma_group_ext): its *_64 data and packet
      // counters replace the narrow ones of counters/, which then stay generic series.
      const std::string extDir = group.dirRel + "/ports/" + p + "/counters_ext";
      std::vector<std::string_view> extended;
      if (auto ext = sysfs.listDir(extDir)) {
        for (const auto& file : *ext) {
          CounterSlot slot(sysfs.path(extDir + "/" + file));
          const FirstClass* fc = nullptr;
          for (const auto& c : namedCounters()) {
            if (std::string(c.file) + "_64" == file) fc = &c;
          }
          if (fc != nullptr) {
            extended.push_back(fc->file);
            slot.series = makeSeries(*fc->family, {{"device", dev}, {"port", p}});
            slot.scale = fc->scale;
          } else {
            slot.series = makeSeries(kPortCounter, {{"device", dev}, {"port", p}, {"counter", file}});
          }
          group.slots.push_back(std::move(slot));
        }
      }
      auto files = sysfs.listDir(dir);
      if (!files) continue;  // irdma, EFA: no PMA, nothing to export
      for (const auto& file : *files) {
        CounterSlot slot(sysfs.path(dir + "/" + file));
        const FirstClass* fc = nullptr;
        for (const auto& c : namedCounters()) {
          if (c.file == file && std::find(extended.begin(), extended.end(), c.file) == extended.end()) fc = &c;
        }
        if (fc != nullptr) {
          slot.series = makeSeries(*fc->family, {{"device", dev}, {"port", p}});
          slot.scale = fc->scale;
        } else {
          slot.series = makeSeries(kPortCounter, {{"device", dev}, {"port", p}, {"counter", file}});
        }
        if (auto bits = widthOf(file)) {
          slot.saturated = makeSeries(kSaturated, {{"device", dev}, {"port", p}, {"counter", file}});
          slot.saturateAt = (uint64_t{1} << *bits) - 1;
        }
        group.slots.push_back(std::move(slot));
      }
    }
  }

  SlotGroupCache cache_;
};

/// The ports/<p>/counters/ (PMA) files: the docs/contract.md §4 port counters, every other file as
/// fabricmon_pma_stat_total, and fabricmon_port_pma_saturated for the narrow ones. Drivers
/// without counters/ (irdma, EFA) simply yield no series.
std::unique_ptr<Collector> makePmaCounterCollector(const Sources& sources,
                                                   const Config& /*config*/) {
  return std::make_unique<PmaCounterCollector>(sources);
}

}  // namespace

const FamilyDef& portTransmitBytesFamily() { return kTransmitBytes; }
const FamilyDef& portReceiveBytesFamily() { return kReceiveBytes; }

// A MAD per file on real hardware (each read is a PerfMgt MAD: drivers/infiniband/core/sysfs.c,
// get_perf_mad()): poll.slow_interval.
extern const CollectorEntry kPmaCounterCollector{
    "pma_counters", Cadence::kSlow, {}, &makePmaCounterCollector, nullptr};

}  // namespace fabricmon
