#pragma once
// Text formats of the simulated files, exactly as the kernel and the tools print them.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/stat_table.hpp"

namespace fabricmon::sim {

/// `ethtool -S <if>`: "NIC statistics:" then one "     name: value" line per stat (ethtool.c
/// do_gstats).
std::string ethtoolText(const StatTable& stats);
/// The DCB file of docs/contract.md §2.
std::string dcbYaml(const std::vector<unsigned>& pfcEnabled, const std::string& trust,
                    const std::map<unsigned, unsigned>& dscpToPriority);
/// node_guid / sys_image_guid: four groups of four hex digits ("946d:ae03:00a1:b2c4", sysfs.c
/// show_node_guid).
std::string guidText(uint64_t guid);
/// MAC address from the low 48 bits ("94:6d:ae:a1:b2:c4").
std::string macText(uint64_t mac);
/// A GID as sysfs prints it: eight groups of four hex digits.
std::string gidText(const uint8_t (&raw)[16]);

}  // namespace fabricmon::sim
