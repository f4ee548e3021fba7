#pragma once
// The far end of the demo node's InfiniBand cable: a MadSource that answers SMPs and PMA queries
// the way the simulated node's InfiniBand port and the leaf switch port it is cabled to would, so
// `fabricmon demo` shows the peer_port families and the port's switch neighbour
// (fabricmon_port_neighbor_info{source="mad"}) without a fabric. Everything about our own port
// comes from the simulator's sysfs tree (state, LID, counters); the switch's counters mirror ours
// (what it sends us is what we receive). The real MAD path is tested against ibsim (tests/ibsim).

#include <filesystem>
#include <memory>
#include <string>

#include "collectors/sources/mad_source.hpp"
#include "collectors/sources/sysfs.hpp"

namespace fabricmon {

/// The switch is "<pod>-ib-leaf", and its port facing this node is `nodeIndex` (as in the LLDP
/// neighbours of the RoCE ports: sim/lldp.hpp). `madDir` holds the simulator's `<device>/<port>`
/// files of both ends' FEC (sim/simulator.cpp, ibFecText); without one, PortInfoExtended and
/// PortExtendedSpeedsCounters do not answer, as on ibsim.
std::unique_ptr<MadSource> makeDemoMadSource(std::shared_ptr<const SysfsRoot> sysfs, std::string pod,
                                             unsigned nodeIndex, std::filesystem::path madDir = {});

}  // namespace fabricmon
