#include "collectors/ethtool_dialects/dialect.hpp"

#include <array>
#include <string>

namespace fabricmon::ethtool {

std::span<const Dialect* const> dialects() {
  static const std::array<const Dialect*, 4> kAll = {&mlx5Dialect(), &bnxtDialect(), &iceDialect(),
                                                     &ionicDialect()};
  return kAll;
}

const Dialect* dialectForDriver(std::string_view driver) {
  if (driver.empty()) return nullptr;
  for (const Dialect* d : dialects()) {
    for (std::string_view served : d->drivers) {
      if (served == driver) return d;
    }
  }
  return nullptr;
}

StatMapping mapStat(std::string_view driver, std::string_view stat) {
  if (const Dialect* d = dialectForDriver(driver)) return d->map(stat);
  for (const Dialect* d : dialects()) {
    StatMapping m = d->map(stat);
    if (m.family != nullptr) return m;
  }
  return {};
}

const Row* findRow(std::span<const Row> rows, std::string_view name) {
  for (const Row& r : rows) {
    if (r.stat == name) return &r;
  }
  return nullptr;
}

StatMapping fromRow(const Row& row, std::string_view priority) {
  StatMapping m{row.family, {}, row.scale};
  if (!priority.empty()) m.labels.emplace_back("priority", std::string(priority));
  if (!row.label.empty()) m.labels.emplace_back(std::string(row.label), std::string(row.value));
  return m;
}

std::string_view priorityBetween(std::string_view name, std::string_view prefix,
                                 std::string_view suffix) {
  // IEEE 802.1Q priorities are 0-7: exactly one digit.
  if (name.size() != prefix.size() + 1 + suffix.size()) return {};
  if (!name.starts_with(prefix) || !name.ends_with(suffix)) return {};
  const char d = name[prefix.size()];
  if (d < '0' || d > '7') return {};
  return name.substr(prefix.size(), 1);
}

}  // namespace fabricmon::ethtool
