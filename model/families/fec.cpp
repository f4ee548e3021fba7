#include "model/families/fec.hpp"

#include <array>

namespace fabricmon::families::fec {

using enum MetricType;

const FamilyDef kCorrectedBlocks{
    "fabricmon_fec_corrected_blocks_total",
    "FEC codewords received with errors that the FEC corrected (ethtool netlink FEC statistics, "
    "corrected_blocks).",
    kCounter, "codewords", "interface"};
const FamilyDef kUncorrectableBlocks{
    "fabricmon_fec_uncorrectable_blocks_total",
    "FEC codewords received with more errors than the FEC can correct: post-FEC errors, the frames "
    "in them are lost (ethtool netlink FEC statistics, uncorrectable_blocks).",
    kCounter, "codewords", "interface"};
const FamilyDef kLaneCorrectedBlocks{
    "fabricmon_fec_lane_corrected_blocks_total",
    "Corrected FEC codewords per lane, where the driver counts per lane (mlx5 in BASE-R FEC mode).",
    kCounter, "codewords", "interface,lane"};
const FamilyDef kLaneUncorrectableBlocks{
    "fabricmon_fec_lane_uncorrectable_blocks_total",
    "Uncorrectable FEC codewords per lane, where the driver counts per lane.", kCounter,
    "codewords", "interface,lane"};
const FamilyDef kInfo{"fabricmon_fec_info",
                      "The FEC the link runs now (ethtool netlink ETHTOOL_A_FEC_ACTIVE): mode as "
                      "ethtool names it (off, rs, baser, llrs, none) and the code it implies at the "
                      "link's lane speed, e.g. RS(544,514).",
                      kGauge, "1", "interface,mode,code"};
const FamilyDef kLinkLanes{"fabricmon_link_lanes",
                           "Lanes the link runs on (ethtool netlink ETHTOOL_A_LINKMODES_LANES).",
                           kGauge, "lanes", "interface"};
const FamilyDef kLinkSpeed{"fabricmon_link_speed_bytes_per_second",
                           "Speed of the link (ethtool netlink ETHTOOL_A_LINKMODES_SPEED, Mb/s), in "
                           "bytes per second.",
                           kGauge, "bytes/s", "interface"};

const std::array kFamilies = {&kCorrectedBlocks,         &kUncorrectableBlocks, &kLaneCorrectedBlocks,
                              &kLaneUncorrectableBlocks, &kInfo,                &kLinkLanes,
                              &kLinkSpeed};

std::span<const FamilyDef* const> all() { return kFamilies; }

std::string_view fecCode(std::string_view mode, double laneBitsPerSecond) {
  if (mode == "rs") {
    if (laneBitsPerSecond >= 40e9) return "RS(544,514)";
    if (laneBitsPerSecond > 0) return "RS(528,514)";
    return "RS";
  }
  if (mode == "baser") return "BaseR(2112,2080)";
  if (mode == "llrs") return "RS(272,257+1)";
  if (mode == "off" || mode == "none") return "none";
  return "unknown";
}

}  // namespace fabricmon::families::fec
