#pragma once
// Which devices (or interfaces) a collector looks at: `include` / `exclude` regexes on the whole
// name, as node_exporter's device filters. One definition, used by discovery (sysfs) and by the
// peer_port collector (libibumad's own device list, which sysfs may not show).

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

class NameFilter {
 public:
  NameFilter() = default;
  /// `key` names the config list in errors ("devices"). An invalid pattern does not throw: it is
  /// kept as error() (config validation reports it earlier, with file and line).
  NameFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude, std::string_view key);

  /// Exclude wins over include; an empty include list selects every name.
  bool selected(std::string_view name) const;
  /// No pattern at all (for lists where "none given" means "nothing extra", not "everything").
  bool empty() const { return include_.empty() && exclude_.empty(); }
  const std::optional<Error>& error() const { return error_; }
  /// The include patterns that select none of `names` (as written in the config), for the warning
  /// that a pattern matches nothing present: a pattern must match the whole name, so `^mlx5` or
  /// `rdma-x` silently selects nothing where `mlx5.*` was meant (docs/configuration.md).
  std::vector<std::string> unmatchedIncludes(const std::vector<std::string>& names) const;

 private:
  std::vector<std::string> includeText_;
  std::vector<std::regex> include_;
  std::vector<std::regex> exclude_;
  std::optional<Error> error_;
};

}  // namespace fabricmon
