#pragma once
// A batch collected before the latest discovery, without what has vanished since.

#include "collectors/topology.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// A batch collected before the latest discovery may still carry a device or interface that has
/// vanished since (a slow collector runs every 10 s): a copy without those samples, so a vanished
/// device's series leave the very next snapshot (docs/contract.md §4). Their series are the copy's
/// unread ones: whether they are gone is for the collector's next run to say, not for a discovery
/// that came between two runs (the watchdog holds an unread series, docs/architecture.md; a
/// collector whose next batch has neither a sample nor an unread entry of it lets it go, one that
/// still reports it unread, as nic_driver_log does for a function away for its recovery, keeps it
/// held). A series stays a sample while its interface and one of its devices (a shared PCIe port's
/// label lists several, comma-separated) are in `topology`.
BatchPtr withoutVanished(const BatchPtr& batch, const Topology& topology);

}  // namespace fabricmon
