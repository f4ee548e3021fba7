#pragma once
// "Did you mean ...?" for unknown config keys.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fabricmon {

/// The candidate closest to `key` when it is a near miss: a typo of a couple of letters, a
/// camelCase or kebab-case spelling of a snake_case key (`slowInterval`, `slow-interval`).
/// nullopt when nothing is close enough to be a likely intent.
std::optional<std::string> closestKey(std::string_view key,
                                      std::span<const std::string_view> candidates);

}  // namespace fabricmon
