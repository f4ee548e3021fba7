#pragma once
// A collector that is only data: "read these files under each interface's (or each RDMA port's)
// sysfs directory and export each as this family". A new plain counter is one row; a new collector
// of plain files is a table and a factory that calls makeSysfsTableCollector.

#include <memory>
#include <span>
#include <string_view>

#include "collectors/collector.hpp"
#include "collectors/sources/sysfs.hpp"
#include "collectors/sysfs_slot_groups.hpp"

namespace fabricmon {

/// Where a table's files live and which labels their series carry.
enum class SysfsScope {
  kNetdev,    ///< class/net/<interface>/FILE; label interface
  kRdmaPort,  ///< class/infiniband/<device>/ports/<port>/FILE; labels device, port
};

/// One file, read at every poll (or every poll.export_only_interval when nothing on the node reads
/// its series at every poll: collectors/poll_demand.hpp).
struct SysfsFileRow {
  std::string_view file;  ///< path below the scope's directory ("carrier_changes")
  const FamilyDef* family;
  SlotParse parse = SlotParse::kCounter;
  double scale = 1.0;     ///< the file's unit times this is the family's unit
  bool optional = false;  ///< absent on some kernels: logged once as unsupported, not an error
};

struct SysfsTable {
  SysfsScope scope;
  std::span<const SysfsFileRow> rows;
  std::span<const FamilyDef* const> families;  ///< every family the rows use
};

/// The collector reading `table` (which must outlive it: a static table); its name is its
/// registry entry's. `demand`: Sources::demand (null: every file at every poll).
std::unique_ptr<Collector> makeSysfsTableCollector(const SysfsTable& table, std::shared_ptr<const SysfsRoot> sysfs,
                                                   std::shared_ptr<const PollDemand> demand = nullptr);

}  // namespace fabricmon
