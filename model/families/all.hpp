#pragma once
// Every family the collectors emit, across the groups of model/families/: for tools and tests that
// start from a name (a fixture, a query). Components that emit or read a family use its definition
// directly.

#include <span>
#include <string_view>

#include "model/sample.hpp"

namespace fabricmon::families {

std::span<const FamilyDef* const> all();
/// nullptr when no collector emits a family of that name.
const FamilyDef* byName(std::string_view name);

}  // namespace fabricmon::families
