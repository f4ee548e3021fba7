#pragma once
// A batch collected before the latest discovery, without what has vanished since.

#include "collectors/topology.hpp"
#include "model/sample.hpp"

namespace fabricmon {

/// A batch collected before the latest discovery may still carry a device or interface that has
/// vanished since (a slow collector runs every 10 s): a copy without those samples and unread
/// series, so a vanished device's series leave the very next snapshot (docs/contract.md §4). A
/// series stays while its interface and one of its devices (a shared PCIe port's label lists
/// several, comma-separated) are in `topology`.
BatchPtr withoutVanished(const BatchPtr& batch, const Topology& topology);

}  // namespace fabricmon
