#include "model/families/dcb.hpp"

#include <array>

namespace fabricmon::families::dcb {

using enum MetricType;

const FamilyDef kPfcEnabled{"fabricmon_pfc_enabled",
                            "1 when priority flow control is enabled for the priority (DCB "
                            "ieee_pfc.pfc_en, or the dcb_dir file).",
                            kGauge, "0/1", "interface,priority"};
const FamilyDef kTrustDscp{"fabricmon_dcb_trust_dscp",
                           "1 when the port classifies traffic by DSCP (trust dscp), 0 when by the "
                           "VLAN PCP (trust pcp); from netlink "
                           "it is inferred from DSCP entries in the DCB APP table.",
                           kGauge, "0/1", "interface"};
const FamilyDef kDscpPriority{
    "fabricmon_dcb_dscp_priority",
    "The priority that packets with this DSCP value are mapped to (DCB APP table, selector DSCP).",
    kGauge, "priority (0-7)", "interface,dscp"};
const FamilyDef kPfcRequests{"fabricmon_dcb_pfc_requests_total",
                             "PFC requests per priority as the driver reports them in "
                             "ieee_pfc.requests (mlx5: pause frames sent).",
                             kCounter, "frames", "interface,priority"};
const FamilyDef kPfcIndications{"fabricmon_dcb_pfc_indications_total",
                                "PFC indications per priority as the driver reports them in "
                                "ieee_pfc.indications (mlx5: pause frames "
                                "received).",
                                kCounter, "frames", "interface,priority"};
const FamilyDef kDcbxMode{"fabricmon_dcb_dcbx_mode",
                          "The DCBX mode of the interface as DCB_CAP_DCBX_* bits (1 host, 2 "
                          "LLD-managed, 4 CEE, 8 IEEE, 16 static).",
                          kGauge, "bit set", "interface"};
const FamilyDef kStormTimeout{"fabricmon_pfc_storm_prevention_timeout_seconds",
                              "PFC storm prevention timeout (ethtool tunable pfc-prevention-tout): "
                              "how long the NIC may be paused "
                              "before it stops honouring pause frames; 0 = off.",
                              kGauge, "seconds", "interface"};
const FamilyDef kIntent{"fabricmon_qos_intent_info",
                        "The QoS this node is meant to have (config qos): RoCE and CNP priority "
                        "and DSCP, and whether DCQCN is "
                        "meant to be on. Always 1.",
                        kGauge, "1", "roce_priority,roce_dscp,cnp_priority,cnp_dscp,dcqcn"};

const std::array<const FamilyDef*, 8> kAll{&kPfcEnabled,   &kTrustDscp,      &kDscpPriority,
                                           &kPfcRequests,  &kPfcIndications, &kDcbxMode,
                                           &kStormTimeout, &kIntent};

std::span<const FamilyDef* const> all() { return kAll; }

}  // namespace fabricmon::families::dcb
