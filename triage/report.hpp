#pragma once
// How a verdict is printed: aligned text for a person (colour only on a terminal), JSON for tools.

#include <string>
#include <vector>

#include "triage/checks.hpp"

namespace fabricmon::triage {

/// Several nodes judged together (--prometheus): ranked, with the scope of the problem.
struct FleetVerdict {
  std::string source;
  double windowSeconds = 0;
  std::string scope;        ///< "none", "one node", "one switch's worth of nodes", "several nodes", "fabric-wide"
  std::string scopeReason;  ///< the numbers behind the scope
  size_t nodes = 0;         ///< nodes the selector matched
  std::vector<Verdict> ranked;  ///< sick nodes first (their top check's cause rank and severity)
  bool wrong() const;
};

std::string renderText(const Verdict& v, bool colour);
std::string renderJson(const Verdict& v);
std::string renderText(const FleetVerdict& v, bool colour);
std::string renderJson(const FleetVerdict& v);

}  // namespace fabricmon::triage
