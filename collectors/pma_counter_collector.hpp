#pragma once
// The PMA counter collector (collector name "pma_counters").

#include "model/sample.hpp"

namespace fabricmon {

/// fabricmon_port_transmit_bytes_total / fabricmon_port_receive_bytes_total, for drivers without
/// a PMA whose hw_counters carry the port's bytes (EFA's tx_bytes/rx_bytes): one definition.
const FamilyDef& portTransmitBytesFamily();
const FamilyDef& portReceiveBytesFamily();

}  // namespace fabricmon
