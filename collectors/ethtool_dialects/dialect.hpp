#pragma once
// Vendor dialects of `ethtool -S`: one table per driver, each in its own file beside this header
// (mlx5.cpp, bnxt_en.cpp, ice.cpp, ionic.cpp), mapping the driver's stat names onto the families of
// model/families/ethtool.hpp. The ethtool_pfc collector picks the dialect by the interface's
// driver (the basename of class/net/<if>/device/driver). docs/metrics.md ("Vendor dialects") lists
// every name with the driver source it comes from.

#include <span>
#include <string_view>

#include "model/sample.hpp"

namespace fabricmon::ethtool {

/// Where one stat name lands: a family with its labels besides `interface`, and the factor that
/// converts the raw value to base units (µs -> s, percent -> ratio). `family == nullptr` for names
/// with no dedicated metric.
struct StatMapping {
  const FamilyDef* family = nullptr;
  Labels labels;
  double scale = 1.0;
};

struct Dialect {
  std::string_view name;                      ///< "mlx5", "bnxt_en", "ice", "ionic"
  std::span<const std::string_view> drivers;  ///< driver names it serves ("mlx5_core")
  StatMapping (*map)(std::string_view stat);  ///< the dialect's table
};

const Dialect& mlx5Dialect();
const Dialect& bnxtDialect();
const Dialect& iceDialect();
const Dialect& ionicDialect();

/// Every dialect in the order tried for an interface whose driver none of them serves: mlx5 first,
/// so captures without a driver link keep their mlx5 meaning.
std::span<const Dialect* const> dialects();
/// The dialect serving `driver`; nullptr when none does (or the driver is unknown, "").
const Dialect* dialectForDriver(std::string_view driver);
/// Maps `stat` of an interface driven by `driver`: through that driver's dialect, or, for a driver no
/// dialect serves, through the first dialect of dialects() that knows the name.
StatMapping mapStat(std::string_view driver, std::string_view stat);

// ---- helpers for the tables ----

/// One row: a stat (or the part of it a dialect matches), its family, one optional extra label and
/// the scale to base units.
struct Row {
  std::string_view stat;
  const FamilyDef* family;
  std::string_view label;  ///< "direction", "kind", or empty
  std::string_view value;
  double scale;
};

inline constexpr double kMicro = 1e-6;  // pause durations are microseconds in every dialect

/// The row whose `stat` equals `name`, or nullptr.
const Row* findRow(std::span<const Row> rows, std::string_view name);
/// The mapping of a row, with `priority` (a single digit, or empty) as the first label.
StatMapping fromRow(const Row& row, std::string_view priority = {});
/// Splits `name` = prefix + one digit 0-7 + suffix; returns the digit, or empty when it does not fit.
std::string_view priorityBetween(std::string_view name, std::string_view prefix,
                                 std::string_view suffix);

}  // namespace fabricmon::ethtool
