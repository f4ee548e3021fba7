// The devlink_health collector: the NIC driver's own health reporters (firmware faults, TX
// timeouts, RX completion errors, malicious driver detection, ... and the recoveries the driver
// ran), read over devlink (collectors/sources/devlink_health_source.hpp) and joined to the watched
// RDMA devices by PCI address (docs/metrics.md, "NIC health reporters (devlink)").
//
// No header: the registry row at the end of this file is the collector's only interface (its
// settings are in collectors/devlink_health_settings.hpp, which the demo sets).

#include <map>
#include <set>
#include <string>

#include "collectors/devlink_health_settings.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/devlink_health_source.hpp"
#include "model/families/nic.hpp"

namespace fabricmon {

namespace {

namespace fam = families::nic;

class DevlinkHealthCollector final : public Collector {
 public:
  explicit DevlinkHealthCollector(std::unique_ptr<DevlinkHealthSource> source)
      : source_(std::move(source)) {}

  std::span<const FamilyDef* const> families() const override { return fam::healthReporters(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (topology.devices.empty()) return CollectStatus::kNoData;
    if (topology.generation == 0 || topology.generation != generation_) {
      mapFunctions(topology);
      generation_ = topology.generation;
    }
    auto report = source_->read();
    if (!report) {
      out.fileError("devlink health", report.error());
      return CollectStatus::kFailed;  // the last batch stays until poll.stale_after
    }
    out.fileOk("devlink health");
    ++run_;
    if (*report) emit(**report, out);
    std::erase_if(reporters_, [&](const auto& kv) { return kv.second.run != run_; });
    // No devlink (a kernel without the family, no capture), or no reporter on a watched function.
    return reporters_.empty() ? CollectStatus::kNoData : CollectStatus::kOk;
  }

 private:
  struct Reporter {
    std::string devices;  ///< the label value the series were made with
    std::string pciAddress;
    SeriesPtr errors, recoveries, healthy, autoRecover;
    bool autoRecoverRead = false;  ///< the latest good answer had auto_recover (not every reporter can)
    uint64_t run = 0;
  };

  /// PCI address -> the watched RDMA devices on that function ("mlx5_0", or "mlx5_bond_0" for both
  /// PFs of a RoCE LAG: the second PF is known through its netdev), sorted and comma-separated as
  /// nic_temperature and pcie_aer label a shared function.
  void mapFunctions(const Topology& topology) {
    std::map<std::string, std::set<std::string>> byPci;
    for (const RdmaDevice& d : topology.devices) {
      if (!d.pciAddress.empty()) byPci[d.pciAddress].insert(d.name);
    }
    for (const Netdev& n : topology.netdevs) {
      if (!n.pciAddress.empty() && !n.rdmaDevice.empty()) byPci[n.pciAddress].insert(n.rdmaDevice);
    }
    functions_.clear();
    for (const auto& [pci, devices] : byPci) {
      std::string joined;
      for (const std::string& d : devices) joined += (joined.empty() ? "" : ",") + d;
      functions_.emplace(pci, std::move(joined));
    }
  }

  void emit(const DevlinkHealthReport& report, CollectOutput& out) {
    for (const DevlinkHealthReporter& r : report.reporters) {
      // Only PCI functions the topology watches (a NIC's SFs on the auxiliary bus, netdevsim and
      // functions without an RDMA device are not ours).
      if (r.bus != "pci") continue;
      const auto fn = functions_.find(r.device);
      if (fn == functions_.end()) continue;
      const std::string key = r.key();
      out.fileOk(key);
      Reporter& s = reporters_[key];
      if (!s.errors || s.devices != fn->second) {
        s.devices = fn->second;
        s.pciAddress = r.device;
        const Labels labels{{"device", s.devices},
                            {"pci_address", r.device},
                            {"devlink_port", r.port ? std::to_string(*r.port) : std::string()},
                            {"reporter", r.name}};
        s.errors = makeSeries(fam::kHealthReporterErrors, labels);
        s.recoveries = makeSeries(fam::kHealthReporterRecoveries, labels);
        s.healthy = makeSeries(fam::kHealthReporterHealthy, labels);
        s.autoRecover = makeSeries(fam::kHealthReporterAutoRecover, labels);
      }
      s.run = run_;
      out.add(s.errors, static_cast<double>(r.errors));
      out.add(s.recoveries, static_cast<double>(r.recoveries));
      out.add(s.healthy, r.healthy ? 1 : 0);
      if (r.autoRecover) out.add(s.autoRecover, *r.autoRecover ? 1 : 0);
      s.autoRecoverRead = r.autoRecover.has_value();
    }
    // A reporter outside its domain is an error of that reporter, whichever device it is on: the
    // answer it came in is not what the kernel writes. One that answered before is unread this run,
    // not gone: its series stay, and so do the findings they hold up (a reporter listed twice was
    // read once above and is not unread).
    for (const auto& [key, error] : report.rejected) {
      out.fileError(key, error);
      auto known = reporters_.find(key);
      if (known == reporters_.end() || known->second.run == run_ || !functions_.contains(known->second.pciAddress)) {
        continue;
      }
      Reporter& s = known->second;
      s.run = run_;
      for (const SeriesPtr* series : {&s.errors, &s.recoveries, &s.healthy}) out.unread(*series);
      if (s.autoRecoverRead) out.unread(s.autoRecover);
    }
  }

  std::unique_ptr<DevlinkHealthSource> source_;
  std::map<std::string, std::string> functions_;  ///< PCI address -> device label
  std::map<std::string, Reporter> reporters_;     ///< by DevlinkHealthReporter::key()
  uint64_t generation_ = 0;
  uint64_t run_ = 0;
};

std::unique_ptr<Collector> makeDevlinkHealthCollector(const Sources& /*sources*/,
                                                      const Config& config) {
  const auto& settings = config.collectorSettings.get<DevlinkHealthSettings>();
  return std::make_unique<DevlinkHealthCollector>(settings.file
                                                      ? makeDevlinkHealthFileSource(*settings.file)
                                                      : makeDevlinkHealthNetlinkSource());
}

}  // namespace

// Fast: a dump is one netlink round trip that reads counters the kernel keeps (no driver callback,
// no firmware command: devlink_nl_health_reporter_fill()), and an error is an event; a reporter
// that recovers within milliseconds leaves only its counters behind, which a fast poll turns into a
// finding one poll later, as nic_driver_log does for the kernel log's record of the same fault.
// clang-format off
extern const CollectorEntry kDevlinkHealthCollector{"devlink_health", Cadence::kFast, {}, &makeDevlinkHealthCollector,
                                                    &bindCollectorSettings<DevlinkHealthSettings>};
// clang-format on

}  // namespace fabricmon
