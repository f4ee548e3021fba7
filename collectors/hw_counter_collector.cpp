// The hardware counter collector (collector name "hw_counters").

#include <array>

#include "collectors/pma_counter_collector.hpp"
#include "collectors/registry.hpp"
#include "collectors/sysfs_slot_groups.hpp"
#include "model/families/roce.hpp"

namespace fabricmon {

namespace {

using namespace families::roce;

struct FirstClass {
  std::string_view file;
  const FamilyDef* family;
};

// docs/contract.md §4 (mlx5 names, drivers/infiniband/hw/mlx5/counters.c).
constexpr std::array<FirstClass, 7> kFirstClass{{
    {"np_ecn_marked_roce_packets", &kEcnMarked},
    {"np_cnp_sent", &kCnpSent},
    {"rp_cnp_handled", &kCnpHandled},
    {"rp_cnp_ignored", &kCnpIgnored},
    {"out_of_sequence", &kOutOfSequence},
    {"packet_seq_err", &kPacketSeqErr},
    {"local_ack_timeout_err", &kLocalAckTimeout},
}};

// Per-port byte counters of drivers without a PMA, promoted to the port byte metrics:
// EFA names them tx_bytes/rx_bytes (drivers/infiniband/hw/efa/efa_verbs.c, efa_port_stats_fields).
// Decided per direction, by whether that direction's PMA file exists (not whether it reads): a
// PMA file that exists and fails is an error of that file, never quietly replaced by the bytes of
// the RDMA engine, and a port never has two sources for one series.
struct PortBytes {
  std::string_view file;
  std::string_view pmaFile;  ///< counters/<pmaFile> or counters_ext/<pmaFile>_64: the PMA counts it
  const FamilyDef& (*family)();
};
constexpr std::array<PortBytes, 2> kPortBytes{{
    {"tx_bytes", "port_xmit_data", &portTransmitBytesFamily},
    {"rx_bytes", "port_rcv_data", &portReceiveBytesFamily},
}};

// A writable setting in milliseconds, not a counter (Documentation/ABI/stable/sysfs-class-infiniband).
constexpr std::string_view kLifespan = "lifespan";

class HwCounterCollector final : public Collector {
 public:
  explicit HwCounterCollector(const Sources& sources)
      : cache_(sources.sysfs, &listRdmaDevices, [this](const Topology& t, SlotGroup& g) { build(t, g); },
               sources.demand) {}

  std::span<const FamilyDef* const> families() const override { return families::roce::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    return cache_.collect(topology, out) == 0 ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  void build(const Topology& topology, SlotGroup& group) {
    const RdmaDevice* device = topology.device(group.name);
    if (device == nullptr) return;
    const SysfsRoot& sysfs = cache_.sysfs();
    const std::string& dev = device->name;
    // Slots are kept port by port so that each port's files are read back-to-back.
    for (const auto& port : device->ports) {
      const std::string p = std::to_string(port.number);
      const std::string dir = group.dirRel + "/ports/" + p + "/hw_counters";
      auto files = sysfs.listDir(dir);
      if (!files) continue;
      const std::string portDir = group.dirRel + "/ports/" + p;
      auto pmaCounts = [&](std::string_view pmaFile) {
        return sysfs.exists(portDir + "/counters/" + std::string(pmaFile)) ||
               sysfs.exists(portDir + "/counters_ext/" + std::string(pmaFile) + "_64");
      };
      for (const auto& file : *files) {
        if (file == kLifespan) continue;
        CounterSlot slot(sysfs.path(dir + "/" + file));
        const FamilyDef* family = nullptr;
        for (const auto& c : kFirstClass) {
          if (c.file == file) family = c.family;
        }
        for (const auto& b : kPortBytes) {
          if (b.file == file && !pmaCounts(b.pmaFile)) family = &b.family();
        }
        slot.series = family != nullptr
                          ? makeSeries(*family, {{"device", dev}, {"port", p}})
                          : makeSeries(kHwCounter, {{"device", dev}, {"port", p}, {"counter", file}});
        group.slots.push_back(std::move(slot));
      }
    }
    const std::string dir = group.dirRel + "/hw_counters";
    if (auto files = sysfs.listDir(dir)) {
      for (const auto& file : *files) {
        if (file == kLifespan) continue;
        CounterSlot slot(sysfs.path(dir + "/" + file));
        slot.series = makeSeries(kDeviceHwCounter, {{"device", dev}, {"counter", file}});
        group.slots.push_back(std::move(slot));
      }
    }
  }

  SlotGroupCache cache_;
};

/// The ports/<p>/hw_counters/ files of any driver (seven fabricmon_roce_* names, every other file
/// as fabricmon_hw_stat_total; `lifespan` is a setting and left out) and the device-level
/// <dev>/hw_counters/ as fabricmon_device_hw_stat_total.
std::unique_ptr<Collector> makeHwCounterCollector(const Sources& sources, const Config& /*config*/) {
  return std::make_unique<HwCounterCollector>(sources);
}

}  // namespace

// The RoCE congestion and retransmission counters show a storm: fast.
extern const CollectorEntry kHwCounterCollector{
    "hw_counters", Cadence::kFast, {}, &makeHwCounterCollector, nullptr};

}  // namespace fabricmon
