#pragma once
// FEC statistics, FEC mode and link geometry of one interface (docs/contract.md §2): the real
// source asks the kernel over ethtool generic netlink (ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS,
// ETHTOOL_MSG_LINKMODES_GET); the file source reads `<fec_dir>/<ifname>` YAML.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

/// One FEC counter as the kernel reports it (net/ethtool/fec.c, fec_stats_recalc): the total, and
/// per lane where the driver counts per lane (at most ETHTOOL_MAX_LANES = 8).
struct FecCounter {
  std::optional<uint64_t> total;  ///< unset: the driver does not report this counter
  std::vector<uint64_t> lanes;
};

struct FecInfo {
  /// The active FEC as ethtool names it: "off", "rs", "baser", "llrs"; "none" when the driver
  /// says FEC does not apply; unset when unknown.
  std::optional<std::string> mode;
  std::optional<uint64_t> speedMbps;  ///< ETHTOOL_A_LINKMODES_SPEED; unset when unknown (link down)
  std::optional<uint32_t> lanes;      ///< ETHTOOL_A_LINKMODES_LANES
  FecCounter corrected;               ///< corrected_blocks
  FecCounter uncorrectable;           ///< uncorrectable_blocks
  FecCounter correctedBits;           ///< corrected_bits (also in ethtool -S; not exported twice)
};

class FecSource {
 public:
  virtual ~FecSource() = default;
  /// std::nullopt when the interface has no FEC information (a veth, a driver without the ethtool
  /// netlink FEC operation, an interface that left meanwhile): no series, no error.
  virtual Result<std::optional<FecInfo>> read(const std::string& ifname) = 0;
};

/// `<dir>/<ifname>` YAML files, re-read at every call (docs/contract.md §2).
std::unique_ptr<FecSource> makeFecFileSource(std::filesystem::path dir);
/// ethtool generic netlink; the family id is resolved at first use.
std::unique_ptr<FecSource> makeFecNetlinkSource();

/// Parses the text of one fec_dir file (exposed for tests).
Result<FecInfo> parseFecYaml(const std::string& text);

}  // namespace fabricmon
