#pragma once
// The flags of `fabricmon demo` (docs/contract.md §1), apart from the daemon's own.

#include <string>

namespace fabricmon {

/// What `fabricmon demo` simulates (its flags, docs/contract.md §1).
struct DemoOptions {
  std::string scenario = "healthy";
  std::string vendor = "mlx5";  ///< NIC of the RoCE ports (sim::SimOptions::vendor: mlx5, bnxt, ice, ionic)
  unsigned faultPort = 0;       ///< the RoCE port the scenario's fault hits
  /// The pod whose switches the node is cabled to, and the node's place in it: its LLDP neighbours
  /// are "<pod>-leaf<i>" port "swp<nodeIndex>" (sim::SimOptions::lldpPod). Demo nodes of one fleet
  /// test share switches by sharing a pod.
  std::string pod = "su1";
  unsigned nodeIndex = 1;
};

}  // namespace fabricmon
