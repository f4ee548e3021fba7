#pragma once
// The metric families of the fec group (collector "fec"): FEC block counters, the FEC mode in use and
// the link's lanes and speed, read from the ethtool netlink FEC and link-mode requests (or the
// fec_dir files). The corrected *bit* counts live in the ethtool group
// (fabricmon_phy_corrected_bit_errors_total, fabricmon_phy_lane_corrected_bit_errors_total): the
// drivers that report them over netlink report the same firmware counter in `ethtool -S`, and one
// quantity has one series from one source. docs/metrics.md documents each family.

#include <span>
#include <string_view>

#include "model/sample.hpp"

namespace fabricmon::families::fec {

extern const FamilyDef kCorrectedBlocks;          // fabricmon_fec_corrected_blocks_total
extern const FamilyDef kUncorrectableBlocks;      // fabricmon_fec_uncorrectable_blocks_total
extern const FamilyDef kLaneCorrectedBlocks;      // fabricmon_fec_lane_corrected_blocks_total
extern const FamilyDef kLaneUncorrectableBlocks;  // fabricmon_fec_lane_uncorrectable_blocks_total
extern const FamilyDef kInfo;                     // fabricmon_fec_info
extern const FamilyDef kLinkLanes;                // fabricmon_link_lanes
extern const FamilyDef kLinkSpeed;                // fabricmon_link_speed_bytes_per_second

/// Every family above, in the order its collector lists them.
std::span<const FamilyDef* const> all();

/// The code of the active FEC (the `code` label of fabricmon_fec_info) from ethtool's mode name
/// ("off", "rs", "baser", "llrs", "none") and the lane speed in bits per second (0 = unknown).
/// Clause 91 RS(528,514) serves 25G NRZ lanes, Clause 119/134 RS(544,514) ("KP4") the 50G and 100G
/// PAM4 lanes (IEEE 802.3-2022); BASE-R is Clause 74's (2112,2080) code, LLRS the Consortium's
/// RS(272,257+1). "RS" when the lane speed is unknown.
std::string_view fecCode(std::string_view mode, double laneBitsPerSecond);

}  // namespace fabricmon::families::fec
