#pragma once
// The metric families of one group, defined once (docs/architecture.md, "Adding a collector"):
// DCB/PFC configuration and the intended QoS (dcb_config).
// docs/metrics.md documents each; tests/unit/daemon/docs_test.cpp checks the two agree.

#include <span>

#include "model/sample.hpp"

namespace fabricmon::families::dcb {

extern const FamilyDef kPfcEnabled;      // fabricmon_pfc_enabled
extern const FamilyDef kTrustDscp;       // fabricmon_dcb_trust_dscp
extern const FamilyDef kDscpPriority;    // fabricmon_dcb_dscp_priority
extern const FamilyDef kPfcRequests;     // fabricmon_dcb_pfc_requests_total
extern const FamilyDef kPfcIndications;  // fabricmon_dcb_pfc_indications_total
extern const FamilyDef kDcbxMode;        // fabricmon_dcb_dcbx_mode
extern const FamilyDef kStormTimeout;    // fabricmon_pfc_storm_prevention_timeout_seconds
extern const FamilyDef kIntent;          // fabricmon_qos_intent_info

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

}  // namespace fabricmon::families::dcb
