// The exporters' tests load TLS and basic auth from the module this build made (tlsModule() looks
// at $FABRICMON_TLS_MODULE first); set before main, so every test and gtest's discovery see it.
#include <cstdlib>

namespace {
const bool kTlsModuleSet = ::setenv("FABRICMON_TLS_MODULE", FABRICMON_TLS_MODULE_PATH, 0) == 0;
}  // namespace
