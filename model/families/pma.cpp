#include "model/families/pma.hpp"

#include <array>

namespace fabricmon::families::pma {

using enum MetricType;

const FamilyDef kTransmitBytes{
    "fabricmon_port_transmit_bytes_total",
    "Bytes transmitted by the port: counters/port_xmit_data (4-byte words) x 4.", kCounter, "bytes",
    "device,port"};
const FamilyDef kReceiveBytes{
    "fabricmon_port_receive_bytes_total",
    "Bytes received by the port: counters/port_rcv_data (4-byte words) x 4.", kCounter, "bytes",
    "device,port"};
const FamilyDef kTransmitPackets{
    "fabricmon_port_transmit_packets_total",
    "Packets transmitted by the port, from counters/port_xmit_packets.", kCounter, "packets",
    "device,port"};
const FamilyDef kReceivePackets{"fabricmon_port_receive_packets_total",
                                "Packets received by the port, from counters/port_rcv_packets.",
                                kCounter, "packets", "device,port"};
const FamilyDef kTransmitWait{"fabricmon_port_transmit_wait_total",
                              "Ticks the port had data to send but no flow-control credits, from "
                              "counters/port_xmit_wait (32-bit PMA counter, saturates).",
                              kCounter, "ticks", "device,port"};
const FamilyDef kSymbolErrors{
    "fabricmon_port_symbol_errors_total",
    "Minor link errors detected on physical lanes, from counters/symbol_error "
    "(16-bit PMA counter, saturates).",
    kCounter, "errors", "device,port"};
const FamilyDef kLinkErrorRecovery{"fabricmon_port_link_error_recovery_total",
                                   "Times the link error recovery process completed, from "
                                   "counters/link_error_recovery (8-bit PMA counter, saturates).",
                                   kCounter, "events", "device,port"};
const FamilyDef kLinkDowned{
    "fabricmon_port_link_downed_total",
    "Times the link failed to recover and went down, from counters/link_downed "
    "(8-bit PMA counter, saturates).",
    kCounter, "events", "device,port"};
const FamilyDef kReceiveErrors{"fabricmon_port_receive_errors_total",
                               "Packets received with errors, from counters/port_rcv_errors "
                               "(16-bit PMA counter, saturates).",
                               kCounter, "packets", "device,port"};
const FamilyDef kTransmitDiscards{"fabricmon_port_transmit_discards_total",
                                  "Outbound packets discarded (port down or congested), from "
                                  "counters/port_xmit_discards (16-bit PMA counter, saturates).",
                                  kCounter, "packets", "device,port"};
const FamilyDef kPortCounter{"fabricmon_pma_stat_total",
                             "Every other file of ports/<port>/counters/ (PMA), named as in sysfs.",
                             kCounter, "as the file", "device,port,counter"};
const FamilyDef kSaturated{
    "fabricmon_port_pma_saturated",
    "1 when a narrow PMA counter sits at the maximum of its width (PMA counters "
    "saturate, they do not wrap), else 0.",
    kGauge, "0/1", "device,port,counter"};

const std::array<const FamilyDef*, 12> kAll{&kTransmitBytes,     &kReceiveBytes, &kTransmitPackets,
                                            &kReceivePackets,    &kTransmitWait, &kSymbolErrors,
                                            &kLinkErrorRecovery, &kLinkDowned,   &kReceiveErrors,
                                            &kTransmitDiscards,  &kPortCounter,  &kSaturated};

std::span<const FamilyDef* const> all() { return kAll; }

// port_xmit_data/port_rcv_data count 4-byte words (IBA PortCounters; the kernel's
// drivers/infiniband/core/sysfs.c).
const std::array<NamedCounter, 10> kNamed{{
    {"port_xmit_data", &kTransmitBytes, 4.0},
    {"port_rcv_data", &kReceiveBytes, 4.0},
    {"port_xmit_packets", &kTransmitPackets, 1.0},
    {"port_rcv_packets", &kReceivePackets, 1.0},
    {"port_xmit_wait", &kTransmitWait, 1.0},
    {"symbol_error", &kSymbolErrors, 1.0},
    {"link_error_recovery", &kLinkErrorRecovery, 1.0},
    {"link_downed", &kLinkDowned, 1.0},
    {"port_rcv_errors", &kReceiveErrors, 1.0},
    {"port_xmit_discards", &kTransmitDiscards, 1.0},
}};

std::span<const NamedCounter> namedCounters() { return kNamed; }

const NamedCounter* namedCounter(std::string_view file) {
  for (const NamedCounter& c : kNamed) {
    if (c.file == file) return &c;
  }
  return nullptr;
}

}  // namespace fabricmon::families::pma
