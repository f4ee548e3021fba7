#include "collectors/pcie_aer_collector.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "collectors/host_topology.hpp"
#include "collectors/registry.hpp"
#include "collectors/sources/parse.hpp"
#include "collectors/sources/sysfs.hpp"
#include "model/families/pcie.hpp"

namespace fabricmon {

namespace {

using families::pcie::kAerErrors;

constexpr std::array<AerSeverity, 3> kSeverities{AerSeverity::kCorrectable, AerSeverity::kNonFatal,
                                                 AerSeverity::kFatal};
/// Series per file: what the kernel prints plus room for a few unnamed bits. A file whose names
/// keep changing (a hostile fixture) cannot grow it further.
constexpr size_t kMaxSeriesPerFile = 64;
/// A sysfs show() fills at most one page.
constexpr size_t kMaxFileBytes = 4096;

struct AerFile {
  explicit AerFile(AerSeverity s, std::string absPath) : severity(s), file(std::move(absPath)) {}
  AerSeverity severity;
  CounterFile file;
  std::string key;  ///< error-tracking key ("0000:17:00.0/aer_dev_correctable")
  std::string namesKey;
  std::vector<std::pair<std::string, SeriesPtr>> series;
};

/// One PCI function read for the watched devices: a device's own or a port above one or more.
struct AerNode {
  std::string pciAddress;
  std::string position;  ///< function | switch_port | root_port
  std::set<std::string> devices;
  std::string deviceLabel;     ///< `devices` sorted and comma-separated: the series' device label
  std::vector<AerFile> files;  ///< only those present: a function without AER has none
};

class PcieAerCollector final : public Collector {
 public:
  explicit PcieAerCollector(std::shared_ptr<const SysfsRoot> sysfs) : sysfs_(std::move(sysfs)) {}

  std::span<const FamilyDef* const> families() const override { return families::pcie::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (topology.devices.empty()) return CollectStatus::kNoData;
    if (topology.generation == 0 || topology.generation != generation_) {
      rebuild(topology);
      generation_ = topology.generation;
    }
    // No function on any watched path has the AER capability (or the kernel was built without
    // CONFIG_PCIEAER): no data, not an error.
    if (nodes_.empty()) return CollectStatus::kNoData;
    for (AerNode& node : nodes_) {
      for (AerFile& f : node.files) read(node, f, out);
    }
    return CollectStatus::kOk;
  }

 private:
  void rebuild(const Topology& topology) {
    std::map<std::string, AerNode> byPath;  // resolved path: a shared port is one node
    for (const RdmaDevice& device : topology.devices) {
      const auto chain = pciChain(*sysfs_, device.name);
      for (size_t i = 0; i < chain.size(); ++i) {
        AerNode& node = byPath[chain[i].path];
        node.pciAddress = chain[i].pciAddress;
        const char* position = i + 1 == chain.size() ? "function"
                               : i == 0              ? "root_port"
                                                     : "switch_port";
        // A function is only ever a device's own (it is no bridge); "function" wins if both are
        // said.
        if (node.position != "function") node.position = position;
        node.devices.insert(device.name);
      }
    }
    // A file whose node serves the same devices from the same position keeps the series it gave:
    // they stay exported, and a failed read reports them unread rather than dropping them.
    std::map<std::string, AerFile*> before;
    for (AerNode& node : nodes_) {
      for (AerFile& f : node.files) before.emplace(carryKey(node, f), &f);
    }
    std::vector<AerNode> built;
    for (auto& [path, node] : byPath) {
      for (const auto& d : node.devices) node.deviceLabel += (node.deviceLabel.empty() ? "" : ",") + d;
      for (AerSeverity s : kSeverities) {
        const std::string rel = path + "/" + std::string(aerFileName(s));
        if (!sysfs_->exists(rel)) continue;  // no AER capability here: nothing to read
        AerFile f(s, sysfs_->path(rel));
        f.key = node.pciAddress + "/" + std::string(aerFileName(s));
        f.namesKey = f.key + "#names";
        if (auto it = before.find(carryKey(node, f)); it != before.end()) {
          f.series = std::move(it->second->series);
        }
        node.files.push_back(std::move(f));
      }
      if (!node.files.empty()) built.push_back(std::move(node));
    }
    nodes_ = std::move(built);
  }

  /// A file's series labels but the error: equal keys, equal series (see seriesFor).
  static std::string carryKey(const AerNode& node, const AerFile& f) {
    return f.key + '\n' + node.position + '\n' + node.deviceLabel;
  }

  void read(const AerNode& node, AerFile& f, CollectOutput& out) {
    // A file that cannot be read (or parsed) this run: its series are unread, not gone.
    auto unread = [&] {
      for (const auto& [name, series] : f.series) out.unread(series);
    };
    auto text = f.file.readRaw(buf_);
    if (!text) {
      out.fileError(f.key, text.error());
      unread();
      return;
    }
    auto stats = parseAerStats(*text, f.severity);
    if (!stats) {
      out.fileError(f.key,
                    Error{f.file.path() + ": " + stats.error().message, stats.error().errnum});
      unread();
      return;
    }
    out.fileOk(f.key);
    size_t dropped = stats->rejectedNames;
    for (size_t i = 0; i < stats->count; ++i) {
      const AerEntry& e = stats->entries[i];
      // A per-type series appears with its first error and stays; the total always
      // (docs/metrics.md, "PCIe AER errors": 47 series per function, ~1,600 on a DGX-class node,
      // would nearly double its series for counters that are 0 on a healthy node).
      if (e.value == 0 && e.error != "total" && !known(f, e.error)) continue;
      if (const SeriesPtr& s = seriesFor(node, f, e.error)) {
        out.add(s, double(e.value));
      } else {
        ++dropped;
      }
    }
    if (dropped > 0) {
      out.fileError(f.namesKey, Error{f.file.path() + ": " + std::to_string(dropped) +
                                          " line(s) with a name outside [A-Za-z0-9_] or beyond the "
                                          "series cap, not exported",
                                      EINVAL});
    } else {
      out.fileOk(f.namesKey);
    }
  }

  static bool known(const AerFile& f, std::string_view error) {
    return std::any_of(f.series.begin(), f.series.end(),
                       [&](const auto& kv) { return kv.first == error; });
  }

  const SeriesPtr& seriesFor(const AerNode& node, AerFile& f, std::string_view error) {
    for (const auto& [name, series] : f.series) {
      if (name == error) return series;
    }
    static const SeriesPtr kNone;
    if (f.series.size() >= kMaxSeriesPerFile) return kNone;
    f.series.emplace_back(
        std::string(error),
        makeSeries(kAerErrors, {{"device", node.deviceLabel},
                                {"pci_address", node.pciAddress},
                                {"position", node.position},
                                {"severity", std::string(aerSeverityName(f.severity))},
                                {"error", std::string(error)}}));
    return f.series.back().second;
  }

  std::shared_ptr<const SysfsRoot> sysfs_;
  std::vector<AerNode> nodes_;
  uint64_t generation_ = 0;
  std::array<char, kMaxFileBytes> buf_{};
};

/// fabricmon_pcie_aer_errors_total for every PCI function on the way from each RDMA device up to
/// its root port; a port shared by several devices is read once and exported once.
std::unique_ptr<Collector> makePcieAerCollector(const Sources& sources, const Config& /*config*/) {
  return std::make_unique<PcieAerCollector>(sources.sysfs);
}

}  // namespace

// PCIe AER counters of each NIC's function and the ports above it (docs/metrics.md, "PCIe AER
// errors"): about 45 series per function, changed only by the kernel's AER handler; a few
// seconds more to see an error cost nothing beside the minutes its rule judges over.
extern const CollectorEntry kPcieAerCollector{
    "pcie_aer", Cadence::kSlow, {}, &makePcieAerCollector, nullptr};

}  // namespace fabricmon
