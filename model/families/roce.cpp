#include "model/families/roce.hpp"

#include <array>

namespace fabricmon::families::roce {

using enum MetricType;

const FamilyDef kEcnMarked{
    "fabricmon_roce_ecn_marked_packets_total",
    "RoCE packets that arrived ECN-marked (congestion experienced), as notification "
    "point, from hw_counters/np_ecn_marked_roce_packets.",
    kCounter, "packets", "device,port"};
const FamilyDef kCnpSent{"fabricmon_roce_cnp_sent_total",
                         "Congestion notification packets sent as notification point, from "
                         "hw_counters/np_cnp_sent.",
                         kCounter, "packets", "device,port"};
const FamilyDef kCnpHandled{"fabricmon_roce_cnp_handled_total",
                            "Congestion notification packets handled by the reaction point (rate "
                            "reduced), from hw_counters/rp_cnp_handled.",
                            kCounter, "packets", "device,port"};
const FamilyDef kCnpIgnored{
    "fabricmon_roce_cnp_ignored_total",
    "Congestion notification packets received but ignored by the reaction point, "
    "from hw_counters/rp_cnp_ignored.",
    kCounter, "packets", "device,port"};
const FamilyDef kOutOfSequence{
    "fabricmon_roce_out_of_sequence_total",
    "Packets received out of sequence (a sign of loss), from "
    "hw_counters/out_of_sequence (mlx5: 32-bit, wraps, resets on driver reload).",
    kCounter, "packets", "device,port"};
const FamilyDef kPacketSeqErr{
    "fabricmon_roce_packet_sequence_errors_total",
    "NAK sequence errors received by the requester, from hw_counters/packet_seq_err.", kCounter,
    "events", "device,port"};
const FamilyDef kLocalAckTimeout{"fabricmon_roce_local_ack_timeouts_total",
                                 "Requester ACK timeouts (retransmission after no response), from "
                                 "hw_counters/local_ack_timeout_err.",
                                 kCounter, "events", "device,port"};
const FamilyDef kHwCounter{
    "fabricmon_hw_stat_total",
    "Every other file of ports/<port>/hw_counters/ of any driver, named as in sysfs "
    "(lifespan, a setting, is left out).",
    kCounter, "as the file", "device,port,counter"};
const FamilyDef kDeviceHwCounter{
    "fabricmon_device_hw_stat_total",
    "Device-level counters from class/infiniband/<device>/hw_counters/, named as "
    "in sysfs (hfi1 names contain spaces and commas).",
    kCounter, "as the file", "device,counter"};

const std::array<const FamilyDef*, 9> kAll{&kEcnMarked,       &kCnpSent,       &kCnpHandled,
                                           &kCnpIgnored,      &kOutOfSequence, &kPacketSeqErr,
                                           &kLocalAckTimeout, &kHwCounter,     &kDeviceHwCounter};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::roce
