#pragma once
// The PMA counter collector (collector name "pma_counters").

#include <memory>

#include "collectors/collector.hpp"

namespace fabricmon {

struct Sources;
struct Config;

/// The ports/<p>/counters/ (PMA) files: the docs/contract.md §4 port counters, every other file as
/// fabricmon_pma_stat_total, and fabricmon_port_pma_saturated for the narrow ones. Drivers
/// without counters/ (irdma, EFA) simply yield no series.
std::unique_ptr<Collector> makePmaCounterCollector(const Sources& sources, const Config& config);

/// fabricmon_port_transmit_bytes_total / fabricmon_port_receive_bytes_total, for drivers without
/// a PMA whose hw_counters carry the port's bytes (EFA's tx_bytes/rx_bytes): one definition.
const FamilyDef& portTransmitBytesFamily();
const FamilyDef& portReceiveBytesFamily();

}  // namespace fabricmon
