#include "config/key_suggestion.hpp"

#include <algorithm>
#include <vector>

namespace fabricmon {
namespace {

// camelCase and kebab-case to snake_case, lower case, so spelling conventions cost nothing.
std::string normalize(std::string_view key) {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (c >= 'A' && c <= 'Z') {
      if (i > 0 && key[i - 1] != '_' && key[i - 1] != '-') out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else if (c == '-') {
      out += '_';
    } else {
      out += c;
    }
  }
  return out;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> closestKey(std::string_view key,
                                      std::span<const std::string_view> candidates) {
  const std::string wanted = normalize(key);
  std::optional<std::string> best;
  std::size_t bestDistance = 0;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = editDistance(wanted, candidate);
    // Two edits for ordinary keys, a third of the length for long ones; one for very short keys,
    // where two edits turn any word into another (`log` -> `qos`).
    const std::size_t limit =
        std::max<std::size_t>(candidate.size() <= 4 ? 1 : 2, candidate.size() / 3);
    if (distance <= limit && (!best || distance < bestDistance)) {
      best = std::string(candidate);
      bestDistance = distance;
    }
  }
  return best;
}

}  // namespace fabricmon
