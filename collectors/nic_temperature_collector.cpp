// The nic_temperature collector: the NIC's own temperature sensors, from the hwmon device its
// driver registers under each RDMA device's PCI function (collectors/sources/hwmon_source.hpp;
// docs/metrics.md, "NIC temperature"). A NIC that runs hot throttles its links or shuts itself
// down; these are the numbers that say so before it does.

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collectors/registry.hpp"
#include "collectors/sources/hwmon_source.hpp"
#include "model/families/nic.hpp"

namespace fabricmon {

namespace {

namespace fam = families::nic;

struct Channel {
  explicit Channel(HwmonChannel h) : hw(std::move(h)) {}
  HwmonChannel hw;
  SeriesPtr input, highest;
  std::array<SeriesPtr, kHwmonLimits.size()> limits{};
  /// Error-tracking keys, made once: "0000:17:00.0/mlx5/temp1_input", ..._highest, ..._<limit>,
  /// ..._label.
  std::string inputKey, highestKey, labelKey;
  std::array<std::string, kHwmonLimits.size()> limitKeys{};
};

/// One PCI function with hwmon sensors (or, while it has none, one to look at again).
struct Function {
  std::string dir;  ///< resolved, relative to the sysfs root
  std::string pciAddress;
  std::set<std::string> devices;
  std::vector<std::string> hwmonDevices;  ///< as listed when the channels were made
  std::vector<Channel> channels;
};

class NicTemperatureCollector final : public Collector {
 public:
  explicit NicTemperatureCollector(std::shared_ptr<const SysfsRoot> sysfs) : sysfs_(std::move(sysfs)) {}

  std::span<const FamilyDef* const> families() const override { return fam::temperature(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (topology.devices.empty()) return CollectStatus::kNoData;
    if (topology.generation == 0 || topology.generation != generation_ || relist_ || hwmonChanged()) {
      rebuild(topology);
      generation_ = topology.generation;
      relist_ = false;
    }
    bool any = false;
    for (Function& f : functions_) {
      for (Channel& c : f.channels) {
        read(c, out);
        any = true;
      }
    }
    // No driver of a watched function registers hwmon sensors (or the kernel has no CONFIG_HWMON):
    // no data, not an error.
    return any ? CollectStatus::kOk : CollectStatus::kNoData;
  }

 private:
  /// A driver registers its hwmon device when its firmware answers, and again after a reset or a
  /// reload (a new hwmon<N>), without the RDMA device changing: each function's hwmon directory is
  /// listed at every run (one readdir), and a change lists the sensors again.
  bool hwmonChanged() const {
    for (const Function& f : functions_) {
      if (listHwmonDevices(*sysfs_, f.dir) != f.hwmonDevices) return true;
    }
    return false;
  }

  void rebuild(const Topology& topology) {
    std::map<std::string, Function> byDir;  // resolved path: a function of several devices is one
    for (const RdmaDevice& device : topology.devices) {
      // rxe, siw: no PCI function, no sensors.
      auto dir = sysfs_->resolve("class/infiniband/" + device.name + "/device");
      if (!dir) continue;
      Function& f = byDir[*dir];
      f.dir = *dir;
      f.pciAddress = device.pciAddress;
      f.devices.insert(device.name);
    }
    functions_.clear();
    for (auto& [dir, f] : byDir) {
      std::string devices;
      for (const auto& d : f.devices) devices += (devices.empty() ? "" : ",") + d;
      f.hwmonDevices = listHwmonDevices(*sysfs_, dir);
      for (HwmonChannel& h : listHwmonTemperatures(*sysfs_, dir)) {
        Channel c(std::move(h));
        const Labels labels{{"device", devices},
                            {"pci_address", f.pciAddress},
                            {"chip", c.hw.chip()},
                            {"sensor", c.hw.sensor()},
                            {"label", c.hw.label()}};
        c.input = makeSeries(fam::kTemperature, labels);
        if (c.hw.hasHighest()) c.highest = makeSeries(fam::kTemperatureHighest, labels);
        for (const HwmonLimit limit : kHwmonLimits) {
          if (!c.hw.hasLimit(limit)) continue;
          Labels withLevel = labels;
          withLevel.emplace_back("level", std::string(hwmonLimitName(limit)));
          c.limits[static_cast<size_t>(limit)] = makeSeries(fam::kTemperatureThreshold, std::move(withLevel));
        }
        const std::string key = f.pciAddress + "/" + c.hw.chip() + "/" + c.hw.sensor() + "_";
        c.inputKey = key + "input";
        c.highestKey = key + "highest";
        c.labelKey = key + "label";
        for (const HwmonLimit limit : kHwmonLimits) {
          c.limitKeys[static_cast<size_t>(limit)] = key + std::string(hwmonLimitName(limit));
        }
        f.channels.push_back(std::move(c));
      }
      functions_.push_back(std::move(f));
    }
  }

  /// A failed read leaves its series unread this run, not gone: a wedged firmware fails every hwmon
  /// read of its function, and the findings its temperatures hold up must not end as "subject
  /// disappeared" then. A file gone between the listing and the read (the kernel answers ENODEV on
  /// a descriptor of an unregistered device) lists the sensors again at the next run.
  void failed(const std::string& key, const Error& error, const SeriesPtr& series, CollectOutput& out) {
    out.fileError(key, error);
    out.unread(series);
    if (error.errnum == ENOENT || error.errnum == ENODEV) relist_ = true;
  }

  void read(Channel& c, CollectOutput& out) {
    if (auto v = c.hw.readInput()) {
      out.fileOk(c.inputKey);
      out.add(c.input, *v);
    } else {
      failed(c.inputKey, v.error(), c.input, out);
    }
    if (c.highest) {
      if (auto v = c.hw.readHighest()) {
        out.fileOk(c.highestKey);
        out.add(c.highest, *v);
      } else {
        failed(c.highestKey, v.error(), c.highest, out);
      }
    }
    for (const HwmonLimit limit : kHwmonLimits) {
      const SeriesPtr& series = c.limits[static_cast<size_t>(limit)];
      if (!series) continue;
      const std::string& key = c.limitKeys[static_cast<size_t>(limit)];
      auto v = c.hw.readLimit(limit);
      if (!v) {
        failed(key, v.error(), series, out);
        continue;
      }
      out.fileOk(key);
      if (v->has_value()) out.add(series, **v);  // 0: no such limit, no sample
    }
    if (c.hw.labelError()) {
      out.fileError(c.labelKey, *c.hw.labelError());  // exported with label=""
    }
  }

  std::shared_ptr<const SysfsRoot> sysfs_;
  std::vector<Function> functions_;
  uint64_t generation_ = 0;
  bool relist_ = false;
};

/// fabricmon_nic_temperature_celsius, _highest_celsius and _threshold_celsius for every hwmon
/// temperature channel of every watched RDMA device's PCI function; a function shared by several
/// devices is read once.
std::unique_ptr<Collector> makeNicTemperatureCollector(const Sources& sources, const Config& /*config*/) {
  return std::make_unique<NicTemperatureCollector>(sources.sysfs);
}

}  // namespace

// The NIC's own temperature sensors (hwmon): each read is a firmware command on mlx5, and a
// NIC heats up over minutes (docs/metrics.md, "NIC temperature").
extern const CollectorEntry kNicTemperatureCollector{
    "nic_temperature", Cadence::kSlow, {}, &makeNicTemperatureCollector, nullptr};

}  // namespace fabricmon
