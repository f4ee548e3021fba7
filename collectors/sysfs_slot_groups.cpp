#include "collectors/sysfs_slot_groups.hpp"

#include <sys/stat.h>

#include "collectors/sources/parse.hpp"

namespace fabricmon {

void SlotGroup::clear() {
  constants.clear();
  slots.clear();  // closes the descriptors
  infos.clear();
}

Result<uint64_t> sysfsIdentity(const std::string& absPath) {
  struct stat st {};
  if (::stat(absPath.c_str(), &st) != 0) return sysError("stat " + absPath, errno);
  return static_cast<uint64_t>(st.st_ino);
}

Result<uint64_t> sysfsIdentity(const SysfsRoot& sysfs, std::string_view rel) {
  return sysfsIdentity(sysfs.path(rel));
}

std::string slotKey(std::string_view group, std::string_view rest) {
  std::string key(group);
  key += '/';
  key += rest;
  return key;
}

SlotGroupCache::SlotGroupCache(std::shared_ptr<const SysfsRoot> sysfs, Lister lister, Builder builder)
    : sysfs_(std::move(sysfs)), lister_(std::move(lister)), builder_(std::move(builder)) {}

size_t SlotGroupCache::collect(const Topology& topology, CollectOutput& out) {
  if (!listed_ || topology.generation != generation_) {
    groups_.clear();
    lister_(topology, groups_);
    for (auto& group : groups_) group.dirAbs = sysfs_->path(group.dirRel);
    generation_ = topology.generation;
    listed_ = true;
  }
  size_t present = 0;
  for (auto& group : groups_) {
    auto identity = sysfsIdentity(group.dirAbs);
    if (!identity) {
      // Vanished since discovery: its series leave the next snapshot and its files are closed.
      if (group.present) group.clear();
      group.present = false;
      continue;
    }
    if (!group.present || *identity != group.identity) {
      group.clear();
      group.identity = *identity;
      group.present = true;
      builder_(topology, group);
    }
    ++present;
    readGroup(group, out);
  }
  return present;
}

void SlotGroupCache::readGroup(SlotGroup& group, CollectOutput& out) {
  for (const auto& series : group.constants) out.add(series, 1.0);

  // All counter files of the group back-to-back: the kernel refreshes hw_counters at most once per
  // `lifespan` ms, so one burst gives one consistent set (drivers/infiniband/core/sysfs.c).
  for (auto& slot : group.slots) {
    double value = 0;
    uint64_t raw = 0;
    bool haveRaw = false;
    if (slot.parse == SlotParse::kCounter) {
      auto v = slot.file.readU64();
      if (!v) {
        out.fileError(slot.key, v.error());
        continue;
      }
      raw = *v;
      haveRaw = true;
      value = static_cast<double>(raw) * slot.scale;
    } else {
      auto text = slot.file.readText();
      if (!text) {
        out.fileError(slot.key, text.error());
        continue;
      }
      if (slot.parse == SlotParse::kIsUp) {
        value = *text == "up" ? 1.0 : 0.0;
      } else if (slot.parse == SlotParse::kEnum) {
        auto v = parseEnumNumber(*text);
        if (!v) {
          out.fileError(slot.key, Error{"read " + slot.file.path() + ": " + v.error().message, v.error().errnum});
          continue;
        }
        value = static_cast<double>(*v);
      } else {
        auto v = parseRateBytesPerSecond(*text);
        if (!v) {
          out.fileError(slot.key, Error{"read " + slot.file.path() + ": " + v.error().message, v.error().errnum});
          continue;
        }
        value = *v;
      }
    }
    out.fileOk(slot.key);
    out.add(slot.series, value);
    if (slot.saturated && haveRaw) out.add(slot.saturated, raw == slot.saturateAt ? 1.0 : 0.0);
  }

  for (auto& info : group.infos) {
    auto text = info.file.readText();
    if (!text) {
      out.fileError(info.key, text.error());
      continue;
    }
    if (!info.series || *text != info.lastText) {
      info.lastText.assign(text->data(), text->size());
      Labels labels = info.labels;
      labels[info.textLabel].second = info.lastText;
      info.series = makeSeries(*info.family, std::move(labels));
    }
    out.fileOk(info.key);
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

}  // namespace fabricmon
