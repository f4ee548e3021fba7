#pragma once
// The LLDP neighbours of the simulated node, in the form `lldpcli -f json0 show neighbors details`
// prints them (the daemon parses the same text from lldpcli or from a file).

#include <string>
#include <vector>

namespace fabricmon::sim {

struct LldpPeer {
  std::string interface;        ///< the local netdev
  std::string chassisName;      ///< "su1-leaf3"
  std::string portId;           ///< "swp7"
  std::string portDescription;  ///< free text
};

/// The json0 document for these neighbours. The chassis ID is a MAC derived from the chassis name
/// (a switch's base MAC: the same switch has the same ID on every node that faces it).
std::string lldpJson0(const std::vector<LldpPeer>& peers);

}  // namespace fabricmon::sim
