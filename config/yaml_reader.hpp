#pragma once
// Typed, validating reads of yaml-cpp nodes for the config loader. Internal to config/: every read
// either stores a checked value or records a ConfigError at the node's position and leaves the
// default in place, so one pass over a file finds every problem.

#include <yaml-cpp/yaml.h>

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "config/config_loader.hpp"

namespace fabricmon::config_detail {

/// A value in the file: its node, its dotted key and the position to report. For an empty value
/// (`key:` with nothing after it) the position is the key's, since yaml-cpp gives a null node the
/// position of whatever token follows it.
struct Field {
  YAML::Node node;
  std::string key;
  YAML::Mark mark;
};

// Range and its common values (kFraction, ...) are in config/rule_settings.hpp: rules use them too.
using fabricmon::kFraction;
using fabricmon::kNonNegative;
using fabricmon::kPositive;
using fabricmon::kProbability;
using fabricmon::Range;

class YamlReader {
 public:
  /// One known key of a map and what reads its value.
  struct Entry {
    std::string_view name;
    std::function<void(const Field&)> read;
  };

  YamlReader(std::string_view file, std::vector<ConfigError>& errors);

  void error(const YAML::Mark& mark, std::string key, std::string message);
  void error(const Field& field, std::string message) {
    error(field.mark, field.key, std::move(message));
  }

  /// Hands each known key of a map to its Entry; unknown keys (with a suggestion when one is
  /// close), duplicate keys and non-map values are errors. An empty value counts as an empty map.
  void readMap(const Field& field, std::span<const Entry> entries);

  bool readString(const Field& field, std::string& out);  ///< non-empty scalar
  bool readOptionalString(const Field& field,
                          std::optional<std::string>& out);  ///< empty value = unset
  bool readBool(const Field& field, bool& out);
  bool readUnsigned(const Field& field, unsigned& out, unsigned min, unsigned max);
  bool readNumber(const Field& field, double& out, const Range& range);
  bool readOptionalNumber(const Field& field, std::optional<double>& out, const Range& range);
  bool readDuration(const Field& field, Duration& out);  ///< must be > 0
  /// A duration within [min, max]; out keeps its value when the field is an error.
  bool readDurationBetween(const Field& field, Duration& out, Duration min, Duration max);
  bool readOptionalDuration(const Field& field, std::optional<Duration>& out);
  /// A list of ECMAScript regexes, each compiled to check it; an empty value is an empty list.
  bool readRegexList(const Field& field, std::vector<std::string>& out);
  /// A list of strings, each passed to `check`, which returns an error message for a bad item ("" =
  /// good); an empty value is an empty list. Duplicates are errors.
  bool readStringList(const Field& field, std::vector<std::string>& out,
                      const std::function<std::string(const std::string&)>& check);

  /// "file:line:column" of a position, as errors print it.
  std::string position(const YAML::Mark& mark) const;

  /// Where a key was set in the file, for errors about combinations of keys; nullopt = default.
  std::optional<YAML::Mark> markOf(std::string_view key) const;

 private:
  bool expectScalar(const Field& field, std::string_view what);
  void remember(const Field& field);

  std::string file_;
  std::vector<ConfigError>& errors_;
  std::map<std::string, YAML::Mark, std::less<>> marks_;
};

/// "a map", "a list", "a string", "nothing": for "expected X, got Y" messages.
std::string describeNode(const YAML::Node& node);

}  // namespace fabricmon::config_detail
