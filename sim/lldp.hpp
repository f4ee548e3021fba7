#pragma once
// The LLDP neighbours of the simulated node, in the form `lldpcli -f json0 show neighbors details`
// prints them (the daemon parses the same text from lldpcli or from a file).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fabricmon::sim {

struct LldpPeer {
  std::string interface;        ///< the local netdev
  std::string chassisName;      ///< "su1-leaf3"
  std::string portId;           ///< "swp7"
  std::string portDescription;  ///< free text
};

/// A simulated switch's identity from its name (FNV-1a), so every node that faces it agrees: the
/// LLDP chassis MAC and the InfiniBand node GUID of the demo's switches derive from it.
uint64_t switchIdOf(std::string_view name);

/// The json0 document for these neighbours. The chassis ID is a MAC derived from the chassis name
/// (a switch's base MAC: the same switch has the same ID on every node that faces it).
std::string lldpJson0(const std::vector<LldpPeer>& peers);

}  // namespace fabricmon::sim
