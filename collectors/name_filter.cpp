#include "collectors/name_filter.hpp"

#include <algorithm>
#include <cerrno>

namespace fabricmon {
namespace {

bool matchesAny(const std::vector<std::regex>& patterns, std::string_view name) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::regex& re) { return std::regex_match(name.begin(), name.end(), re); });
}

}  // namespace

NameFilter::NameFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
                       std::string_view key) {
  auto compile = [&](const std::vector<std::string>& patterns, std::vector<std::regex>& out, std::string_view list) {
    for (const auto& p : patterns) {
      try {
        out.emplace_back(p, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        if (!error_) error_ = Error{std::string(key) + "." + std::string(list) + ": invalid regex \"" + p + "\": " + e.what(), EINVAL};
      }
    }
  };
  compile(include, include_, "include");
  if (include_.size() == include.size()) includeText_ = include;
  compile(exclude, exclude_, "exclude");
}

bool NameFilter::selected(std::string_view name) const {
  if (matchesAny(exclude_, name)) return false;
  return include_.empty() || matchesAny(include_, name);
}

std::vector<std::string> NameFilter::unmatchedIncludes(const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (size_t i = 0; i < include_.size() && i < includeText_.size(); ++i) {
    const bool any = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return std::regex_match(n.begin(), n.end(), include_[i]);
    });
    if (!any) out.push_back(includeText_[i]);
  }
  return out;
}

}  // namespace fabricmon
