#pragma once
// The NIC vendor of the simulated RoCE ports: which driver's `ethtool -S` dialect the files use,
// the driver the netdev is bound to, and how often that NIC refreshes its counters by default.
// The port model counts in one vocabulary (mlx5's en_stats.c names, port_model.cpp); a vendor
// renders its driver's names from those same counters, so every scenario works for every vendor.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sim/stat_table.hpp"

namespace fabricmon::sim {

enum class Vendor { kMlx5, kBnxt, kIce, kIonic };

/// "mlx5", "bnxt", "ice", "ionic" (the --vendor values), in the order of the enum.
std::span<const std::string_view> vendorNames();
/// Accepts the --vendor values and the driver names ("mlx5_core", "bnxt_en").
std::optional<Vendor> parseVendor(std::string_view name);
std::string_view vendorName(Vendor v);
/// The driver the netdev is bound to: the basename of class/net/<if>/device/driver.
std::string_view vendorDriver(Vendor v);
/// Seconds between the NIC's own counter refreshes when the user does not choose (0 = fresh on
/// every read). bnxt_en: the firmware DMAs port statistics every stats_coal_ticks, 1 s by default
/// (BNXT_DEF_STATS_COAL_TICKS in drivers/net/ethernet/broadcom/bnxt/bnxt.h, µs). mlx5 queries the firmware
/// on every read; ice reads its statistics registers on every ethtool call (ice_ethtool.c,
/// __ice_get_ethtool_stats calls ice_update_pf_stats). ionic copies port statistics the firmware
/// keeps in a DMA region (ionic_stats.c reads port_info->stats); the driver states no period, so 0.
double vendorCounterRefresh(Vendor v);

/// Whether the driver reports FEC codeword statistics (ethtool netlink ETHTOOL_A_FEC_STATS, the
/// driver's get_fec_stats): mlx5, bnxt_en and ice do (mlx5e_get_fec_stats, bnxt_get_fec_stats,
/// ice_get_fec_stats); ionic implements get_fecparam only (drivers/net/ethernet/pensando/ionic/
/// ionic_ethtool.c), so its FEC reply has the mode and no counters (docs/metrics.md, "What each
/// vendor gives").
bool vendorReportsFecStats(Vendor v);

/// `ethtool -S` text of a RoCE port in the vendor's dialect, from the port's model counters
/// (`mlx5` = the model's own table).
std::string vendorEthtoolText(Vendor v, const StatTable& model);

}  // namespace fabricmon::sim
