// The JSON `fabricmon triage` reads: a node's /api/v1/window and /api/v1/findings bodies
// (triage/evidence.hpp) and Prometheus's answers to its instant queries (triage/prometheus_answer.hpp).
// First byte: which; the rest is split at NUL bytes into the bodies (for Prometheus: one per query,
// in the order they are asked; the last one answers every later query).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/fuzz_support.hpp"
#include "triage/evidence.hpp"
#include "triage/prometheus_answer.hpp"

using namespace fabricmon;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<std::string> bodies;
  std::string_view rest = fuzz::asText(data + 1, size - 1);
  while (true) {
    const size_t end = rest.find('\0');
    bodies.emplace_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest = rest.substr(end + 1);
  }
  if (data[0] % 2 == 0) {
    const std::string findings = bodies.size() > 1 ? bodies[1] : std::string(R"({"findings":[]})");
    (void)triage::parseNodeEvidence(bodies[0], findings);
    return 0;
  }
  size_t next = 0;
  auto r = triage::prometheusEvidence("job=\"fabricmon\"", std::chrono::seconds(600),
                                      [&](const std::string&) -> Result<std::string> {
                                        const std::string& b = bodies[std::min(next, bodies.size() - 1)];
                                        ++next;
                                        return b;
                                      });
  (void)r;
  return 0;
}
