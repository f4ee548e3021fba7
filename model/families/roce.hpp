#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// RoCE and driver hardware counters, from hw_counters/ (hw_counters).
// docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::roce {

extern const FamilyDef kEcnMarked;        // fabricmon_roce_ecn_marked_packets_total
extern const FamilyDef kCnpSent;          // fabricmon_roce_cnp_sent_total
extern const FamilyDef kCnpHandled;       // fabricmon_roce_cnp_handled_total
extern const FamilyDef kCnpIgnored;       // fabricmon_roce_cnp_ignored_total
extern const FamilyDef kOutOfSequence;    // fabricmon_roce_out_of_sequence_total
extern const FamilyDef kPacketSeqErr;     // fabricmon_roce_packet_sequence_errors_total
extern const FamilyDef kLocalAckTimeout;  // fabricmon_roce_local_ack_timeouts_total
extern const FamilyDef kHwCounter;        // fabricmon_hw_stat_total
extern const FamilyDef kDeviceHwCounter;  // fabricmon_device_hw_stat_total

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::roce
