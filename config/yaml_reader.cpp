#include "config/yaml_reader.hpp"

#include <charconv>
#include <cmath>
#include <regex>
#include <set>

#include "config/duration.hpp"
#include "config/key_suggestion.hpp"

namespace fabricmon::config_detail {
namespace {

// yaml-cpp tags: "?" for a plain scalar, "!" for a quoted one, the full URI for an explicit tag.
constexpr std::string_view kPlainTag = "?";

std::string quoted(std::string_view s) {
  std::string out = "\"";
  out.append(s);
  out += '"';
  return out;
}

std::string formatNumber(double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}

bool isNumericTag(const std::string& tag) {
  return tag == kPlainTag || tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float";
}

}  // namespace

std::string describeNode(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "the string " + quoted(node.Scalar());
    default:
      return "nothing";
  }
}

YamlReader::YamlReader(std::string_view file, std::vector<ConfigError>& errors)
    : file_(file), errors_(errors) {}

void YamlReader::error(const YAML::Mark& mark, std::string key, std::string message) {
  // yaml-cpp marks are 0-based; a node without a position (an empty document) reports 1:1.
  const int line = mark.line >= 0 ? mark.line + 1 : 1;
  const int column = mark.column >= 0 ? mark.column + 1 : 1;
  errors_.push_back(ConfigError{file_, line, column, std::move(key), std::move(message)});
}

std::string YamlReader::position(const YAML::Mark& mark) const {
  const int line = mark.line >= 0 ? mark.line + 1 : 1;
  const int column = mark.column >= 0 ? mark.column + 1 : 1;
  return file_ + ":" + std::to_string(line) + ":" + std::to_string(column);
}

void YamlReader::remember(const Field& field) { marks_[field.key] = field.mark; }

std::optional<YAML::Mark> YamlReader::markOf(std::string_view key) const {
  const auto it = marks_.find(key);
  if (it == marks_.end()) return std::nullopt;
  return it->second;
}

void YamlReader::readMap(const Field& field, std::span<const Entry> entries) {
  if (field.node.IsNull()) return;
  if (!field.node.IsMap()) {
    error(field, "expected a map, got " + describeNode(field.node));
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (auto it = field.node.begin(); it != field.node.end(); ++it) {
    // Copies: the iterator's operator-> returns a proxy that dies at the end of the statement.
    const YAML::Node keyNode = it->first;
    const std::string prefix = field.key.empty() ? "" : field.key + ".";
    if (!keyNode.IsScalar()) {
      error(keyNode.Mark(), field.key, "keys must be plain names, got " + describeNode(keyNode));
      continue;
    }
    const std::string& name = keyNode.Scalar();
    const std::string key = prefix + name;
    if (!seen.insert(name).second) {
      error(keyNode.Mark(), key, "duplicate key (YAML keeps only one of them; remove the other)");
      continue;
    }
    const Entry* entry = nullptr;
    for (const Entry& e : entries) {
      if (e.name == name) entry = &e;
    }
    if (entry == nullptr) {
      std::vector<std::string_view> names;
      for (const Entry& e : entries) names.push_back(e.name);
      if (auto suggestion = closestKey(name, names)) {
        error(keyNode.Mark(), key, "unknown key, did you mean " + quoted(*suggestion) + "?");
      } else {
        std::string known;
        for (std::string_view n : names) known += (known.empty() ? "" : ", ") + std::string(n);
        error(keyNode.Mark(), key, "unknown key (known here: " + known + ")");
      }
      continue;
    }
    const YAML::Node value = it->second;
    entry->read(Field{value, key, value.IsNull() ? keyNode.Mark() : value.Mark()});
  }
}

bool YamlReader::expectScalar(const Field& field, std::string_view what) {
  if (field.node.IsScalar()) return true;
  error(field, "expected " + std::string(what) + ", got " + describeNode(field.node));
  return false;
}

bool YamlReader::readString(const Field& field, std::string& out) {
  if (!expectScalar(field, "a string")) return false;
  if (field.node.Scalar().empty()) {
    error(field, "must not be empty");
    return false;
  }
  out = field.node.Scalar();
  remember(field);
  return true;
}

bool YamlReader::readOptionalString(const Field& field, std::optional<std::string>& out) {
  if (field.node.IsNull()) {
    out.reset();
    remember(field);
    return true;
  }
  std::string value;
  if (!readString(field, value)) return false;
  out = std::move(value);
  return true;
}

bool YamlReader::readBool(const Field& field, bool& out) {
  if (!expectScalar(field, "true or false")) return false;
  bool value = false;
  if (field.node.Tag() != kPlainTag || !YAML::convert<bool>::decode(field.node, value)) {
    error(field, "expected true or false, got " + describeNode(field.node));
    return false;
  }
  out = value;
  remember(field);
  return true;
}

bool YamlReader::readUnsigned(const Field& field, unsigned& out, unsigned min, unsigned max) {
  if (!expectScalar(field, "an integer")) return false;
  const std::string& text = field.node.Scalar();
  const std::string range = " between " + std::to_string(min) + " and " + std::to_string(max);
  if (!isNumericTag(field.node.Tag())) {
    error(field, "expected an integer, got " + describeNode(field.node) + " (remove the quotes)");
    return false;
  }
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range && end == text.data() + text.size()) {
    error(field, "must be" + range + ", got " + text);
    return false;
  }
  if (ec != std::errc{} || end != text.data() + text.size()) {
    error(field, "expected an integer" + range + ", got " + describeNode(field.node));
    return false;
  }
  if (value < static_cast<long long>(min) || value > static_cast<long long>(max)) {
    error(field, "must be" + range + ", got " + text);
    return false;
  }
  out = static_cast<unsigned>(value);
  remember(field);
  return true;
}

bool YamlReader::readNumber(const Field& field, double& out, const Range& range) {
  if (!expectScalar(field, "a number")) return false;
  const std::string& text = field.node.Scalar();
  if (!isNumericTag(field.node.Tag())) {
    error(field, "expected a number, got " + describeNode(field.node) + " (remove the quotes)");
    return false;
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    error(field, "expected a number, got " + describeNode(field.node));
    return false;
  }
  if (!range.contains(value)) {
    error(field, "must be " + range.describe() + ", got " + text);
    return false;
  }
  out = value;
  remember(field);
  return true;
}

bool YamlReader::readOptionalNumber(const Field& field, std::optional<double>& out,
                                    const Range& range) {
  if (field.node.IsNull()) {
    out.reset();
    remember(field);
    return true;
  }
  double value = 0;
  if (!readNumber(field, value, range)) return false;
  out = value;
  return true;
}

bool YamlReader::readDuration(const Field& field, Duration& out) {
  if (!expectScalar(field, "a duration (e.g. 1s, 250ms, 1m30s)")) return false;
  auto parsed = parseDuration(field.node.Scalar());
  if (!parsed) {
    error(field, parsed.error().message);
    return false;
  }
  if (parsed->count() <= 0) {
    error(field, "must be greater than 0");
    return false;
  }
  out = *parsed;
  remember(field);
  return true;
}

bool YamlReader::readDurationBetween(const Field& field, Duration& out, Duration min, Duration max) {
  Duration value = out;
  if (!readDuration(field, value)) return false;
  if (value < min || value > max) {
    error(field, "must be between " + formatDuration(min) + " and " + formatDuration(max) + ", got " +
                     formatDuration(value));
    return false;
  }
  out = value;
  return true;
}

bool YamlReader::readOptionalDuration(const Field& field, std::optional<Duration>& out) {
  if (field.node.IsNull()) {
    out.reset();
    remember(field);
    return true;
  }
  Duration value{};
  if (!readDuration(field, value)) return false;
  out = value;
  return true;
}

bool YamlReader::readRegexList(const Field& field, std::vector<std::string>& out) {
  if (field.node.IsNull()) {
    out.clear();
    remember(field);
    return true;
  }
  if (!field.node.IsSequence()) {
    error(field, "expected a list of regexes, got " + describeNode(field.node));
    return false;
  }
  std::vector<std::string> patterns;
  bool ok = true;
  for (std::size_t i = 0; i < field.node.size(); ++i) {
    const YAML::Node item = field.node[i];
    const Field itemField{item, field.key + "[" + std::to_string(i) + "]",
                          item.IsNull() ? field.mark : item.Mark()};
    if (!item.IsScalar()) {
      error(itemField, "expected a regex string, got " + describeNode(item));
      ok = false;
      continue;
    }
    try {
      std::regex compiled(item.Scalar(), std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      error(itemField, "invalid regex " + quoted(item.Scalar()) + ": " + e.what());
      ok = false;
      continue;
    }
    patterns.push_back(item.Scalar());
  }
  if (!ok) return false;
  out = std::move(patterns);
  remember(field);
  return true;
}

bool YamlReader::readStringList(const Field& field, std::vector<std::string>& out,
                                const std::function<std::string(const std::string&)>& check) {
  if (field.node.IsNull()) {
    out.clear();
    remember(field);
    return true;
  }
  if (!field.node.IsSequence()) {
    error(field, "expected a list, got " + describeNode(field.node));
    return false;
  }
  std::vector<std::string> items;
  std::set<std::string> seen;
  bool ok = true;
  for (std::size_t i = 0; i < field.node.size(); ++i) {
    const YAML::Node item = field.node[i];
    const Field itemField{item, field.key + "[" + std::to_string(i) + "]",
                          item.IsNull() ? field.mark : item.Mark()};
    if (!item.IsScalar() || item.Scalar().empty()) {
      error(itemField, "expected a non-empty string, got " + describeNode(item));
      ok = false;
      continue;
    }
    if (std::string why = check(item.Scalar()); !why.empty()) {
      error(itemField, why);
      ok = false;
      continue;
    }
    if (!seen.insert(item.Scalar()).second) {
      error(itemField, "duplicate entry " + quoted(item.Scalar()));
      ok = false;
      continue;
    }
    items.push_back(item.Scalar());
  }
  if (!ok) return false;
  out = std::move(items);
  remember(field);
  return true;
}

}  // namespace fabricmon::config_detail

namespace fabricmon {

bool Range::contains(double v) const {
  const bool aboveMin = minOpen ? v > min : v >= min;
  const bool belowMax = maxOpen ? v < max : v <= max;
  return aboveMin && belowMax;
}

std::string Range::describe() const {
  if (std::isinf(max)) return std::string(minOpen ? "> " : ">= ") + config_detail::formatNumber(min);
  return std::string(minOpen ? "(" : "[") + config_detail::formatNumber(min) + ", " + config_detail::formatNumber(max) +
         (maxOpen ? ")" : "]");
}

}  // namespace fabricmon
