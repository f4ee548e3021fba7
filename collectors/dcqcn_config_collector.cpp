// dcqcn_config: the DCQCN (RoCE congestion control) configuration of every watched netdev, from the
// NVIDIA OFED sysfs tree class/net/<if>/ecn/roce_{np,rp}/ and from the upstream mlx5 driver's
// debugfs kernel/debug/mlx5/<pci>/cc_params/ (drivers/infiniband/hw/mlx5/cong.c). Slow cadence:
// config values.

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collectors/registry.hpp"
#include "collectors/sources/dir_state.hpp"
#include "collectors/sources/parse.hpp"
#include "collectors/sources/sysfs.hpp"
#include "model/families/dcqcn.hpp"

namespace fabricmon {

namespace {

using namespace families::dcqcn;

constexpr std::array<std::string_view, 2> kRoles{"np", "rp"};

// Config files hold unsigned decimals; mlx5 debugfs prints its u32 parameters with "%d"
// (drivers/infiniband/hw/mlx5/cong.c), so a leading minus is accepted there.
Result<double> parseValue(std::string_view text) {
  text = trim(text);
  const bool negative = !text.empty() && text.front() == '-';
  auto v = parseCounter(negative ? text.substr(1) : text);
  if (!v) return v.error();
  return negative ? -static_cast<double>(*v) : static_cast<double>(*v);
}

// One parameter or enable file, kept open between polls.
// Its error-tracking key is its path below the sysfs root (SysfsRoot::relative).
struct ValueSlot {
  ValueSlot(std::string absPath, SeriesPtr s) : file(std::move(absPath)), series(std::move(s)) {}

  CounterFile file;
  SeriesPtr series;
};

// The files of one tree (the OFED ecn/ directory or a debugfs cc_params directory), listed when the
// tree first appears and again only when it changed: a new stamp of its top directory, or an event
// on one of its watched directories.
struct Tree {
  std::string rel;  // "" when the interface cannot have this tree (no PCI address for debugfs)
  std::string abs;
  bool listed = false;
  bool relist = false;   // a listing or a watch failed, or a watched directory changed
  bool hasData = false;  // the tree holds DCQCN files (OFED: a roce_np or roce_rp directory)
  DirStamp stamp;
  std::vector<int> watches;
  std::vector<ValueSlot> slots;
};

struct Interface {
  std::string name;
  std::string pciAddress;
  Tree ofed;
  Tree debugfs;
};

class DcqcnConfigCollector final : public Collector {
 public:
  explicit DcqcnConfigCollector(std::shared_ptr<const SysfsRoot> sysfs)
      : sysfs_(std::move(sysfs)) {}

  std::span<const FamilyDef* const> families() const override { return families::dcqcn::all(); }

  CollectStatus collect(const Topology& topology, CollectOutput& out) override {
    if (!sysfs_) return CollectStatus::kFailed;
    followTopology(topology);
    markChangedTrees();
    const bool debugfs = stampDir(debugfsRoot_).has_value();  // one stat when there is no debugfs
    bool anyTree = false;
    for (Interface& itf : interfaces_) {
      anyTree |= pollTree(itf, itf.ofed, true, out);
      anyTree |= pollTree(itf, itf.debugfs, debugfs, out);
    }
    return anyTree ? CollectStatus::kOk : CollectStatus::kNoData;
  }

 private:
  // A new topology generation (or, in tests, another interface list under the same generation)
  // lists every tree again; an interface that left the topology closes its files and frees its
  // series.
  void followTopology(const Topology& topology) {
    if (synced_ && topology.generation == generation_ && sameInterfaces(topology)) return;
    std::vector<Interface> next;
    next.reserve(topology.netdevs.size());
    std::vector<bool> kept(interfaces_.size(), false);
    for (const Netdev& nd : topology.netdevs) {
      Interface itf;
      for (size_t i = 0; i < interfaces_.size(); ++i) {
        if (!kept[i] && interfaces_[i].name == nd.name &&
            interfaces_[i].pciAddress == nd.pciAddress) {
          itf = std::move(interfaces_[i]);
          kept[i] = true;
          break;
        }
      }
      if (itf.name.empty()) {
        itf.name = nd.name;
        itf.pciAddress = nd.pciAddress;
        itf.ofed.rel = "class/net/" + nd.name + "/ecn";
        itf.ofed.abs = sysfs_->path(itf.ofed.rel);
        if (!nd.pciAddress.empty()) {
          itf.debugfs.rel = "kernel/debug/mlx5/" + nd.pciAddress + "/cc_params";
          itf.debugfs.abs = sysfs_->path(itf.debugfs.rel);
        }
      }
      itf.ofed.relist = itf.debugfs.relist = true;  // descriptors and series are kept for reuse
      next.push_back(std::move(itf));
    }
    for (size_t i = 0; i < interfaces_.size(); ++i) {
      if (kept[i]) continue;
      clearTree(interfaces_[i].ofed);
      clearTree(interfaces_[i].debugfs);
    }
    interfaces_ = std::move(next);
    generation_ = topology.generation;
    synced_ = true;
  }

  bool sameInterfaces(const Topology& topology) const {
    if (topology.netdevs.size() != interfaces_.size()) return false;
    for (size_t i = 0; i < interfaces_.size(); ++i) {
      if (topology.netdevs[i].name != interfaces_[i].name ||
          topology.netdevs[i].pciAddress != interfaces_[i].pciAddress) {
        return false;
      }
    }
    return true;
  }

  void markChangedTrees() {
    watcher_.drain(changedWatches_);
    for (int wd : changedWatches_) {
      for (Interface& itf : interfaces_) {
        for (Tree* tree : {&itf.ofed, &itf.debugfs}) {
          if (wd < 0 ||
              std::find(tree->watches.begin(), tree->watches.end(), wd) != tree->watches.end()) {
            tree->relist = true;
          }
        }
      }
    }
  }

  bool pollTree(const Interface& itf, Tree& tree, bool mayExist, CollectOutput& out) {
    if (tree.rel.empty()) return false;
    const std::optional<DirStamp> now = mayExist ? stampDir(tree.abs) : std::nullopt;
    if (!now) {
      if (tree.listed) clearTree(tree);
      return false;  // no tree: not an error
    }
    const DirStamp& stamp = *now;
    if (!tree.listed || tree.relist || stamp != tree.stamp) {
      if (&tree == &itf.ofed)
        listOfed(itf, tree, stamp, out);
      else
        listDebugfs(itf, tree, stamp, out);
    }
    if (!tree.hasData) return false;
    for (ValueSlot& slot : tree.slots) readSlot(slot, out);
    return true;
  }

  void clearTree(Tree& tree) {
    for (int wd : tree.watches) watcher_.remove(wd);
    tree.watches.clear();
    tree.slots.clear();  // closes the descriptors
    tree.listed = tree.relist = tree.hasData = false;
  }

  // Starts a new listing of `tree`. Watches go on before the directories are read, so a change
  // while listing shows at the next poll.
  std::unordered_map<std::string, SeriesPtr> beginListing(Tree& tree, const DirStamp& stamp) {
    std::unordered_map<std::string, SeriesPtr> series;
    for (ValueSlot& slot : tree.slots) {
      series.emplace(std::string(sysfs_->relative(slot.file.path())), std::move(slot.series));
    }
    clearTree(tree);
    tree.listed = true;
    tree.stamp = stamp;
    watch(tree, tree.abs);
    return series;
  }

  void addSlot(Tree& tree, std::unordered_map<std::string, SeriesPtr>& old, const std::string& rel,
               const FamilyDef& family, Labels labels) {
    SeriesPtr series;
    if (auto it = old.find(rel); it != old.end() && it->second->family == &family)
      series = std::move(it->second);
    if (!series) series = makeSeries(family, std::move(labels));
    tree.slots.emplace_back(sysfs_->path(rel), std::move(series));
  }

  // Slots in the order of the directory listings (sorted), as every run used to read them.
  void listOfed(const Interface& itf, Tree& tree, const DirStamp& stamp, CollectOutput& out) {
    auto old = beginListing(tree, stamp);
    for (size_t r = 0; r < kRoles.size(); ++r) {
      const std::string dir = tree.rel + "/roce_" + std::string(kRoles[r]);
      if (!sysfs_->isDir(dir)) continue;
      tree.hasData = true;
      watch(tree, sysfs_->path(dir));
      auto names = sysfs_->listDir(dir);
      if (!names) {
        out.fileError(dir, names.error());
        tree.relist = true;
        continue;
      }
      out.fileOk(dir);
      for (const std::string& file : *names) {
        std::string rel = dir + "/" + file;
        if (file == "enable" && sysfs_->isDir(rel)) {
          listEnable(itf, tree, old, r, rel);
        } else if (!sysfs_->isDir(rel)) {
          addSlot(tree, old, rel, kParameter,
                  {{"interface", itf.name}, {"role", std::string(kRoles[r])}, {"parameter", file}});
        }
      }
    }
  }

  void listEnable(const Interface& itf, Tree& tree, std::unordered_map<std::string, SeriesPtr>& old,
                  size_t role, const std::string& dir) {
    watch(tree, sysfs_->path(dir));
    const FamilyDef& family = role == 0 ? kNpEnabled : kRpEnabled;
    for (unsigned p = 0; p < 8; ++p) {
      std::string rel = dir + "/" + std::to_string(p);
      if (!sysfs_->exists(rel)) continue;  // the driver lists only the priorities it has
      addSlot(tree, old, rel, family,
              {{"interface", itf.name}, {"priority", std::to_string(p)}});
    }
  }

  void listDebugfs(const Interface& itf, Tree& tree, const DirStamp& stamp, CollectOutput& out) {
    auto old = beginListing(tree, stamp);
    tree.hasData = true;
    auto names = sysfs_->listDir(tree.rel);
    if (!names) {
      out.fileError(tree.rel, names.error());
      tree.relist = true;
      return;
    }
    out.fileOk(tree.rel);
    for (const std::string& file : *names) {
      // cong.c names every parameter rp_* or np_*; anything else is not a DCQCN parameter.
      std::string_view role;
      if (file.starts_with("rp_"))
        role = "rp";
      else if (file.starts_with("np_"))
        role = "np";
      else
        continue;
      std::string rel = tree.rel + "/" + file;
      if (sysfs_->isDir(rel)) continue;
      addSlot(tree, old, rel, kParameter,
              {{"interface", itf.name}, {"role", std::string(role)}, {"parameter", file}});
    }
  }

  // A directory that cannot be watched is listed again at every poll.
  void watch(Tree& tree, const std::string& abs) {
    const int wd = watcher_.add(abs);
    if (wd < 0)
      tree.relist = true;
    else
      tree.watches.push_back(wd);
  }

  void readSlot(ValueSlot& slot, CollectOutput& out) const {
    const std::string_view key = sysfs_->relative(slot.file.path());
    auto text = slot.file.readText();  // a failed read reopens the file at the next poll
    if (!text) {
      out.fileError(key, text.error());
      out.unread(slot.series);
      return;
    }
    // An enable file is a 0/1 switch (mlx5 OFED ecn sysfs); anything else is not a plausible state.
    const bool isSwitch = slot.series->family == &kNpEnabled || slot.series->family == &kRpEnabled;
    auto value = isSwitch ? parseSwitch(*text) : parseValue(*text);
    if (!value) {
      out.fileError(key, Error{"read " + slot.file.path() + ": " + value.error().message,
                                    value.error().errnum});
      out.unread(slot.series);
      return;
    }
    out.fileOk(key);
    out.add(slot.series, *value);
  }

  std::shared_ptr<const SysfsRoot> sysfs_;
  std::string debugfsRoot_ = sysfs_ ? sysfs_->path("kernel/debug/mlx5") : std::string();
  DirWatcher watcher_;
  std::vector<int> changedWatches_;
  std::vector<Interface> interfaces_;  // in topology order, which is the order of the samples
  uint64_t generation_ = 0;
  bool synced_ = false;
};

/// Emits fabricmon_dcqcn_np_enabled / fabricmon_dcqcn_rp_enabled{interface,priority} and
/// fabricmon_dcqcn_parameter{interface,role,parameter}. A netdev without either tree has no series
/// (not an error); an unreadable or non-numeric file is one skipped value
/// (CollectOutput::fileError). The files stay open and are re-read (pread) every run; a tree is
/// listed again only when the topology generation changes or the tree changed on disk (re-created,
/// or an entry added, removed or renamed in it).
std::unique_ptr<Collector> makeDcqcnConfigCollector(const Sources& sources,
                                                    const Config& /*config*/) {
  return std::make_unique<DcqcnConfigCollector>(sources.sysfs);
}

}  // namespace

// Configuration, which rarely changes: poll.slow_interval.
extern const CollectorEntry kDcqcnConfigCollector{
    "dcqcn_config", Cadence::kSlow, {}, &makeDcqcnConfigCollector, nullptr};

}  // namespace fabricmon
