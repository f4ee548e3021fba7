// Stand-in for watchdog/storm_ledger.cpp in the fuzz build only. The config target needs the rules'
// schema (watchdog/rules/rule_table.cpp), which links pause_storm and dcqcn_misconfig, which call
// the storm ledger; clang 14 cannot compile storm_ledger.cpp (a heterogeneous std::map lookup with
// a tuple of string_view references). No fuzz target evaluates a rule: a call here is a harness bug.
#include <cstdio>
#include <cstdlib>

#include "watchdog/storm_ledger.hpp"

namespace fabricmon::watchdog {

namespace {
[[noreturn]] void unused(const char* what) {
  std::fprintf(stderr, "StormLedger::%s called in a fuzz target (tests/fuzz/storm_ledger_unused.cpp)\n", what);
  std::abort();
}
}  // namespace

void StormLedger::record(std::string_view, std::string_view, std::string_view, Nanos, Nanos, double, bool) {
  unused("record");
}

StormLedger::Claimed StormLedger::claimed(std::string_view, std::string_view, std::string_view, Nanos,
                                          Nanos) const {
  unused("claimed");
}

void StormLedger::sweep() { unused("sweep"); }

}  // namespace fabricmon::watchdog
