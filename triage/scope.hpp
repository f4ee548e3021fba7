#pragma once
// The scope of a fleet's problems (docs/runbook.md, "Start here"): one node, one switch, one rail,
// the whole fabric — so on-call knows whether to drain a node, call the network team about a leaf,
// or look at a fabric-wide change.

#include <map>
#include <string>

#include "triage/evidence.hpp"
#include "triage/report.hpp"

namespace fabricmon::triage {

/// Sets f.scope and f.scopeReason from the ranked verdicts and, where the nodes export them, their
/// ports' switch neighbours (fabricmon_port_neighbor_info) and rails (fabricmon_port_topology_info):
/// every sick node with a problem on a port facing the same switch is "one switch"; on ports of the
/// same rail but different switches, "one rail"; more than half of at least 3 nodes, "fabric-wide".
/// Without topology, several nodes pausing on one priority is "one switch's worth of nodes".
/// `nodes` is the evidence each verdict was judged from, keyed by Verdict::source.
void setScope(FleetVerdict& f, const std::map<std::string, Evidence>& nodes);

}  // namespace fabricmon::triage
