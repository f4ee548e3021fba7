#pragma once
// The nic_driver_log collector: kernel log records about the NICs fabricmon watches, matched
// against the driver message table (collectors/nic_driver_messages.hpp) and attributed to an RDMA
// device, port and interface through the topology (docs/metrics.md, "NIC and driver health").

#include <chrono>
#include <functional>
#include <memory>

#include "collectors/collector.hpp"
#include "collectors/sources/kernel_log_source.hpp"

namespace fabricmon {

struct SourcesConfig;

/// What outlives a configuration reload: the kernel log source (its descriptor and sequence
/// number, so nothing logged during the reload is lost) and the tallies (counters stay monotonic,
/// findings stay up). Built by makeSources().
struct NicDriverLogState;

/// The state for `config`: `previous` when it reads the same log, else a new one.
std::shared_ptr<NicDriverLogState> makeNicDriverLogState(const SourcesConfig& config,
                                                         std::shared_ptr<NicDriverLogState> previous);
/// A state over a given source (tests).
std::shared_ptr<NicDriverLogState> makeNicDriverLogState(std::unique_ptr<KernelLogSource> source);

/// The most records one run reads: a log flood is read over several polls (the ring may overrun
/// meanwhile; that is counted) instead of pinning a core.
inline constexpr size_t kMaxKernelRecordsPerRun = 4096;
/// The most message bytes kept per (function, pattern): the finding's text is cut shorter still.
inline constexpr size_t kMaxKeptMessage = 512;

}  // namespace fabricmon
