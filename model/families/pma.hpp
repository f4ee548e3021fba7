#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// PMA port counters, from ports/<port>/counters/ (pma_counters).
// docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>
#include <string_view>

#include "model/sample.hpp"

namespace fabricmon::families::pma {

extern const FamilyDef kTransmitBytes;      // fabricmon_port_transmit_bytes_total
extern const FamilyDef kReceiveBytes;       // fabricmon_port_receive_bytes_total
extern const FamilyDef kTransmitPackets;    // fabricmon_port_transmit_packets_total
extern const FamilyDef kReceivePackets;     // fabricmon_port_receive_packets_total
extern const FamilyDef kTransmitWait;       // fabricmon_port_transmit_wait_total
extern const FamilyDef kSymbolErrors;       // fabricmon_port_symbol_errors_total
extern const FamilyDef kLinkErrorRecovery;  // fabricmon_port_link_error_recovery_total
extern const FamilyDef kLinkDowned;         // fabricmon_port_link_downed_total
extern const FamilyDef kReceiveErrors;      // fabricmon_port_receive_errors_total
extern const FamilyDef kTransmitDiscards;   // fabricmon_port_transmit_discards_total
extern const FamilyDef kPortCounter;        // fabricmon_pma_stat_total
extern const FamilyDef kSaturated;          // fabricmon_port_pma_saturated

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

/// A PMA counter with a family of its own (docs/contract.md §4), named as its sysfs file under
/// ports/<p>/counters/, with the factor from its unit to the family's.
struct NamedCounter {
  std::string_view file;
  const FamilyDef* family;
  double scale;
};
std::span<const NamedCounter> namedCounters();
/// The entry of `file` ("symbol_error"), or nullptr when it has no family of its own (it is then a
/// fabricmon_pma_stat_total{counter}).
const NamedCounter* namedCounter(std::string_view file);

}  // namespace fabricmon::families::pma
