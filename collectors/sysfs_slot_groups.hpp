#pragma once
// Counter files kept open across polls (docs/architecture.md, "Files are read the cheap way"),
// grouped by the sysfs directory whose re-creation invalidates them (an RDMA device or a network
// interface). Shared by the rdma_port, pma_counters, hw_counters and netdev_link collectors.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.hpp"
#include "collectors/poll_demand.hpp"
#include "collectors/sources/dir_handles.hpp"
#include "collectors/sources/dir_state.hpp"
#include "collectors/sources/sysfs.hpp"
#include "collectors/topology.hpp"
#include "model/result.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// How the text of a slot's file becomes a value.
enum class SlotParse {
  kCounter,    ///< unsigned decimal ("12345"); anything else is a per-file error
  kPortState,  ///< "4: ACTIVE", a known ib_port_state (parsePortState)
  kPhysState,  ///< "5: LinkUp", a known physical state (parsePhysState)
  kRate,       ///< "400 Gb/sec (4X NDR)" in bytes per second, checked (parseRateBytesPerSecond)
  kIsUp,       ///< operstate: 1 for "up", 0 for the other RFC 2863 states, else an error
  kAdminUp,    ///< flags: 1 when IFF_UP is set (parseNetdevFlagsUp)
};

/// Parses a slot's text by its kind; an Error for anything outside the value's domain.
Result<double> parseSlotText(SlotParse parse, std::string_view text);

/// One file kept open and the series its value feeds.
struct CounterSlot {
  explicit CounterSlot(std::string absPath) : file(std::move(absPath)) {}

  /// Its error-tracking key is its path below the sysfs root (SlotGroupCache::keyOf), not a copy.
  CounterFile file;
  SeriesPtr series;
  SlotParse parse = SlotParse::kCounter;
  double scale = 1.0;
  /// Optional: gets 1 when the raw value equals `saturateAt` (a narrow PMA counter at its maximum), else 0.
  SeriesPtr saturated;
  uint64_t saturateAt = 0;
  /// The kernel or driver has no such value (ENOENT on the first read, EOPNOTSUPP, "N/A (no
  /// PMA)"): logged once, not read again and not an error (docs/metrics.md).
  bool unsupported = false;
  /// The file may not exist on this kernel (a fixed list, not a directory listing): ENOENT on the
  /// first read means "unsupported", not an error.
  bool optional = false;
  bool everRead = false;  ///< a value was read once: a later ENOENT is a deleted file, an error
  /// Nothing on the node reads its series at every poll (PollDemand): the file is read every
  /// PollDemand::exportOnlyInterval, and `held` is exported in between.
  bool exportOnly = false;
  bool hasHeld = false;        ///< `held` is this file's last good value (cleared by a failed read)
  bool heldSaturated = false;  ///< what `saturated` got with it
  size_t dir = 0;              ///< index in SlotGroup::dirs
  double held = 0;             ///< the series' value at the last read (scaled)
};

/// An info series (value 1) with one label taken from a file whose text may change (a port's `rate`
/// after renegotiation). The series is rebuilt only when the text changes, never per poll.
struct InfoSlot {
  explicit InfoSlot(std::string absPath) : file(std::move(absPath)) {}

  /// Its error-tracking key is its path below the sysfs root, as a CounterSlot's (when a
  /// CounterSlot reads the same file, countErrors is false and that slot counts them).
  CounterFile file;
  const FamilyDef* family = nullptr;
  Labels labels;          ///< labels[textLabel].second is replaced by the file's text
  size_t textLabel = 0;
  /// When set, the text must parse as this (else the label is empty); the info series is emitted
  /// even when the file cannot be read, with an empty label: it describes the port, not the file.
  std::optional<SlotParse> validate;
  /// False when a CounterSlot reads the same file and already counts its errors.
  bool countErrors = true;
  /// The index in SlotGroup::slots of a CounterSlot that reads the same file (a port's `rate`):
  /// its text of this poll is used instead of a second read of the file, so the info keeps no
  /// descriptor of its own. When that read failed this poll, or the slot is not read (unsupported),
  /// the info reads the file itself, as without it.
  static constexpr size_t kOwnFile = static_cast<size_t>(-1);
  size_t sameFileAs = kOwnFile;
  std::string lastText;
  SeriesPtr series;
};

/// Everything read below one sysfs directory (`dirRel`), stat'ed each poll: when it vanished the
/// group emits nothing and its files are closed; when its inode changed (re-created) it is rebuilt.
struct SlotGroup {
  std::string name;    ///< device or interface name
  std::string dirRel;  ///< "class/infiniband/mlx5_0", "class/net/eth0"
  std::string dirAbs;  ///< dirRel below the sysfs root, kept so the per-poll stat allocates nothing
  uint64_t identity = 0;
  bool present = false;
  /// The handle of dirAbs's parent (class/infiniband, class/net) the per-poll stat looks up below.
  DirHold parentHold;
  std::vector<SeriesPtr> constants;  ///< info series with fixed labels, emitted as 1
  std::vector<CounterSlot> slots;
  std::vector<InfoSlot> infos;
  /// The directories holding the slots' files, stat()ed once per poll: a change of their mtime,
  /// ctime or inode (an entry renamed over, added or deleted) makes the kept descriptors of their
  /// files check their identity. One stat per directory instead of one per file; the group's own
  /// directory (a network interface's attributes) reuses the poll's stat of `dirAbs`.
  struct Dir {
    std::string path;
    bool self = false;  ///< the group's directory itself
    DirStamp stamp;     ///< all zero while the directory is absent
    DirHold parentHold;  ///< the handle of its parent the per-poll stat looks up below
  };
  std::vector<Dir> dirs;

  void clear();
};


/// Keeps the groups of one collector. Groups are listed again only when the topology generation
/// changes; a group's files are (re)built only when it appears or is re-created.
class SlotGroupCache {
 public:
  /// Appends one SlotGroup (name and dirRel set) per object to watch in the topology.
  using Lister = std::function<void(const Topology&, std::vector<SlotGroup>&)>;
  /// Fills a group's constants, slots and infos (files are opened lazily at the first read).
  using Builder = std::function<void(const Topology&, SlotGroup&)>;

  /// `demand`: which slots are read at every poll (null: all of them).
  SlotGroupCache(std::shared_ptr<const SysfsRoot> sysfs, Lister lister, Builder builder,
                 std::shared_ptr<const PollDemand> demand = nullptr);

  /// One poll. Returns the number of groups present (0 = the hardware is absent).
  size_t collect(const Topology& topology, CollectOutput& out);

  const SysfsRoot& sysfs() const { return *sysfs_; }

 private:
  /// `refreshAll`: read the export-only slots too (their interval is due).
  void readGroup(SlotGroup& group, const PathStamp& groupStamp, bool refreshAll, CollectOutput& out);
  /// Marks the slots of a freshly built group whose series nothing reads at every poll.
  void markExportOnly(SlotGroup& group) const;
  /// A slot's error-tracking key (CounterSlot, InfoSlot): its file's path below the sysfs root
  /// ("class/infiniband/mlx5_0/ports/1/counters/symbol_error", SysfsRoot::relative).
  std::string_view keyOf(const CounterFile& file) const;

  std::shared_ptr<const SysfsRoot> sysfs_;
  Lister lister_;
  Builder builder_;
  std::shared_ptr<const PollDemand> demand_;
  /// When the export-only slots are read next (the epoch: at the first poll).
  PollDemand::Clock::time_point exportOnlyDue_{};
  std::vector<SlotGroup> groups_;
  /// readGroup's texts of this poll per slot, for InfoSlot::sameFileAs, and whether each was read.
  std::vector<std::string> slotTexts_;
  std::vector<bool> slotTextRead_;
  uint64_t generation_ = 0;
  bool listed_ = false;
};

/// One group per RDMA device of the topology, rooted at class/infiniband/<dev>: the Lister of every
/// collector that reads a device's files.
void listRdmaDevices(const Topology& topology, std::vector<SlotGroup>& groups);
/// One group per network interface in the topology (class/net/<interface>).
void listNetdevs(const Topology& topology, std::vector<SlotGroup>& groups);

}  // namespace fabricmon
