#pragma once
// dcb_config: PFC, trust, DSCP->priority, DCBX mode and PFC storm prevention of every watched
// netdev from the DcbSource (rtnetlink or YAML files), plus the QoS the operator intends (config
// `qos`), so the watchdog can compare the two.

#include <memory>

#include "collectors/collector.hpp"
#include "collectors/registry.hpp"
#include "config/config.hpp"

namespace fabricmon {

/// Emits fabricmon_pfc_enabled, fabricmon_dcb_trust_dscp, fabricmon_dcb_dscp_priority,
/// fabricmon_dcb_pfc_requests_total / _indications_total, fabricmon_dcb_dcbx_mode,
/// fabricmon_pfc_storm_prevention_timeout_seconds per interface (only what the source knows) and,
/// on every run, fabricmon_qos_intent_info from `config.qos`. An interface without DCB support has
/// no series; a source error is one skipped interface (CollectOutput::fileError).
std::unique_ptr<Collector> makeDcbConfigCollector(const Sources& sources, const Config& config);

}  // namespace fabricmon
