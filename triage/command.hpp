#pragma once
// `fabricmon triage` (docs/runbook.md): its own flags, the source, the verdict, the exit code.

#include <string>
#include <vector>

namespace fabricmon::triage {

/// Exit codes: 0 nothing wrong, 1 something is, 2 bad usage or no source answered.
int runTriage(const std::vector<std::string>& args);
std::string triageUsage();

}  // namespace fabricmon::triage
