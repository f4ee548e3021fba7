#include "collectors/sysfs_slot_groups.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_map>

#include "collectors/sources/parse.hpp"

namespace fabricmon {

namespace {

// Groups the slots by directory; called once per (re)build.
void indexDirs(SlotGroup& group) {
  group.dirs.clear();
  std::unordered_map<std::string, size_t> index;
  for (auto& slot : group.slots) {
    const std::string& path = slot.file.path();
    const std::string dir = path.substr(0, path.rfind('/'));
    auto [it, inserted] = index.try_emplace(dir, group.dirs.size());
    if (inserted) {
      group.dirs.push_back(SlotGroup::Dir{dir, dir == group.dirAbs, stampDir(dir).value_or(DirStamp{}), {}});
    }
    slot.dir = it->second;
  }
}

// A value this kernel, driver or firmware does not provide: i40iw prints "N/A (no PMA)"
// (drivers/infiniband/hw/i40iw, the PMA-less port), kernels before 4.16 have no
// carrier_up_count/carrier_down_count (commit b2d3bcfa26a7), a firmware without a counter
// answers EOPNOTSUPP.
bool isUnsupported(const CounterSlot& slot, const Error& error) {
  if (error.errnum == EOPNOTSUPP) return true;
  return error.errnum == ENOENT && slot.optional && !slot.everRead;
}

bool isUnsupportedText(std::string_view text) { return text.starts_with("N/A"); }

}  // namespace

Result<double> parseSlotText(SlotParse parse, std::string_view text) {
  switch (parse) {
    case SlotParse::kCounter: {
      auto v = parseCounter(text);
      if (!v) return v.error();
      return static_cast<double>(*v);
    }
    case SlotParse::kPortState: {
      auto v = parsePortState(text);
      if (!v) return v.error();
      return static_cast<double>(*v);
    }
    case SlotParse::kPhysState: {
      auto v = parsePhysState(text);
      if (!v) return v.error();
      return static_cast<double>(*v);
    }
    case SlotParse::kRate:
      return parseRateBytesPerSecond(text);
    case SlotParse::kIsUp:
      return parseOperstateUp(text);
    case SlotParse::kAdminUp:
      return parseNetdevFlagsUp(text);
  }
  return Error{"unknown parse kind", EINVAL};
}

void SlotGroup::clear() {
  dirs.clear();
  constants.clear();
  slots.clear();  // closes the descriptors
  infos.clear();
}

SlotGroupCache::SlotGroupCache(std::shared_ptr<const SysfsRoot> sysfs, Lister lister, Builder builder,
                               std::shared_ptr<const PollDemand> demand)
    : sysfs_(std::move(sysfs)),
      lister_(std::move(lister)),
      builder_(std::move(builder)),
      demand_(std::move(demand)) {}

void SlotGroupCache::markExportOnly(SlotGroup& group) const {
  if (!demand_ || !demand_->readsEveryPoll) return;
  for (auto& slot : group.slots) {
    slot.exportOnly = !demand_->readsEveryPoll(*slot.series) &&
                      !(slot.saturated && demand_->readsEveryPoll(*slot.saturated));
  }
  // An info reads its text at every poll anyway: the slot it shares a file with stays read too.
  for (const auto& info : group.infos) {
    if (info.sameFileAs < group.slots.size()) group.slots[info.sameFileAs].exportOnly = false;
  }
}

std::string_view SlotGroupCache::keyOf(const CounterFile& file) const {
  return sysfs_->relative(file.path());
}

size_t SlotGroupCache::collect(const Topology& topology, CollectOutput& out) {
  if (!listed_ || topology.generation != generation_) {
    groups_.clear();
    lister_(topology, groups_);
    for (auto& group : groups_) group.dirAbs = sysfs_->path(group.dirRel);
    generation_ = topology.generation;
    listed_ = true;
  }
  // The export-only slots of every group are read at the same poll, the first one due. Polls keep
  // to their timer's grid (daemon/periodic_task.cpp), so the next time due is counted from this
  // one, not from when a late poll ran; a poll up to a twentieth of the interval (at most 100 ms)
  // early counts, so that a tick starting a few ms before its time does not wait a whole poll.
  bool refreshAll = true;
  if (demand_) {
    const auto now = demand_->now();
    const auto interval = std::chrono::duration_cast<PollDemand::Clock::duration>(demand_->exportOnlyInterval);
    const auto margin = std::min<PollDemand::Clock::duration>(interval / 20, std::chrono::milliseconds(100));
    refreshAll = now + margin >= exportOnlyDue_;
    if (refreshAll) {
      // More than an interval behind (the first poll, a stall): start over from now.
      exportOnlyDue_ = now - exportOnlyDue_ < interval ? exportOnlyDue_ + interval : now + interval;
    }
  }
  size_t present = 0;
  for (auto& group : groups_) {
    // One stat per group and poll, below a kept handle of class/infiniband or class/net: the
    // device's identity (a re-created one has a new inode) and the stamp of its directory.
    auto stamp = stampPath(group.dirAbs, &group.parentHold);
    if (!stamp) {
      // Vanished since discovery: its series leave the next snapshot and its files are closed.
      if (group.present) group.clear();
      group.present = false;
      continue;
    }
    if (!group.present || stamp->stamp.inode != group.identity) {
      group.clear();
      group.identity = stamp->stamp.inode;
      group.present = true;
      builder_(topology, group);
      indexDirs(group);
      markExportOnly(group);
    }
    ++present;
    readGroup(group, *stamp, refreshAll, out);
  }
  return present;
}

void SlotGroupCache::readGroup(SlotGroup& group, const PathStamp& groupStamp, bool refreshAll,
                               CollectOutput& out) {
  for (const auto& series : group.constants) out.add(series, 1.0);

  // A file renamed over or deleted changes its directory's stamp: only then do the kept
  // descriptors of that directory compare themselves with their paths.
  for (size_t d = 0; d < group.dirs.size(); ++d) {
    SlotGroup::Dir& dir = group.dirs[d];
    std::optional<DirStamp> stamp;
    if (!dir.self) {
      stamp = stampDir(dir.path, &dir.parentHold);
    } else if (groupStamp.isDir) {
      stamp = groupStamp.stamp;  // the same stat stampDir(dir.path) would make
    }
    const DirStamp now = stamp.value_or(DirStamp{});
    if (now == dir.stamp) {
      continue;
    }
    for (auto& slot : group.slots) {
      if (slot.dir != d) continue;
      slot.file.checkIdentity();
      slot.hasHeld = false;  // a file renamed over or deleted is read (or fails) at this poll
    }
    dir.stamp = now;
  }

  // All counter files of the group back-to-back: the kernel refreshes hw_counters at most once per
  // `lifespan` ms, so one burst gives one consistent set (drivers/infiniband/core/sysfs.c).
  const bool keepTexts = !group.infos.empty();
  if (keepTexts) {
    slotTexts_.resize(group.slots.size());
    slotTextRead_.assign(group.slots.size(), false);
  }
  for (size_t i = 0; i < group.slots.size(); ++i) {
    CounterSlot& slot = group.slots[i];
    if (slot.unsupported) continue;
    if (slot.exportOnly && slot.hasHeld && !refreshAll) {
      out.add(slot.series, slot.held);
      if (slot.saturated) out.add(slot.saturated, slot.heldSaturated ? 1.0 : 0.0);
      continue;
    }
    slot.hasHeld = false;  // until this read gives a value: a failed one is retried at the next poll
    auto text = slot.file.readText();
    if (keepTexts && text) {
      // readText's buffer is the thread's: copied (a short value, within the string's own storage).
      slotTexts_[i].assign(text->data(), text->size());
      slotTextRead_[i] = true;
    }
    if (!text) {
      if (isUnsupported(slot, text.error())) {
        slot.unsupported = true;
        slot.file.reset();
        spdlog::info("{}: not provided by this kernel or driver ({}); not read again", keyOf(slot.file),
                     text.error().message);
        continue;
      }
      out.fileError(keyOf(slot.file), text.error());
      out.unread(slot.series);
      out.unread(slot.saturated);
      continue;
    }
    if (isUnsupportedText(*text)) {
      spdlog::info("{}: not provided by this driver (\"{}\"); not read again", keyOf(slot.file), *text);
      slot.unsupported = true;
      slot.file.reset();
      continue;
    }
    auto parsed = parseSlotText(slot.parse, *text);
    if (!parsed) {
      out.fileError(keyOf(slot.file), Error{"read " + slot.file.path() + ": " + parsed.error().message,
                                    parsed.error().errnum});
      out.unread(slot.series);
      out.unread(slot.saturated);
      continue;
    }
    slot.everRead = true;
    out.fileOk(keyOf(slot.file));
    slot.held = *parsed * slot.scale;
    slot.hasHeld = true;
    out.add(slot.series, slot.held);
    if (slot.saturated) {
      // Only counters saturate; *parsed is exact below 2^53, and saturateAt is a narrow width.
      slot.heldSaturated = static_cast<uint64_t>(*parsed) == slot.saturateAt;
      out.add(slot.saturated, slot.heldSaturated ? 1.0 : 0.0);
    }
  }

  for (auto& info : group.infos) {
    Result<std::string_view> text = std::string_view();
    if (info.sameFileAs < slotTexts_.size() && slotTextRead_[info.sameFileAs]) {
      text = std::string_view(slotTexts_[info.sameFileAs]);
    } else {
      text = info.file.readText();
    }
    std::string_view shown;
    if (!text) {
      if (info.countErrors) out.fileError(keyOf(info.file), text.error());
    } else if (info.validate && !parseSlotText(*info.validate, *text)) {
      if (info.countErrors) {
        out.fileError(keyOf(info.file), Error{"read " + info.file.path() + ": not a valid label value", EINVAL});
      }
    } else {
      if (info.countErrors) out.fileOk(keyOf(info.file));
      shown = *text;
    }
    if (!info.series || shown != info.lastText) {
      info.lastText.assign(shown.data(), shown.size());
      Labels labels = info.labels;
      labels[info.textLabel].second = info.lastText;
      info.series = makeSeries(*info.family, std::move(labels));
    }
    out.add(info.series, 1.0);
  }
}

void listRdmaDevices(const Topology& topology, std::vector<SlotGroup>& groups) {
  for (const auto& d : topology.devices) {
    SlotGroup g;
    g.name = d.name;
    g.dirRel = "class/infiniband/" + d.name;
    groups.push_back(std::move(g));
  }
}

void listNetdevs(const Topology& topology, std::vector<SlotGroup>& groups) {
  for (const auto& n : topology.netdevs) {
    SlotGroup g;
    g.name = n.name;
    g.dirRel = "class/net/" + n.name;
    groups.push_back(std::move(g));
  }
}

}  // namespace fabricmon
