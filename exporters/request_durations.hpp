#pragma once
// How long the HTTP server takes to answer, per handler, as a Prometheus histogram
// (fabricmon_http_request_duration_seconds), so a user sees the scrape cost in Prometheus itself.
// observe() is a few relaxed atomic increments: it runs on the HTTP threads for every request.

#include <prometheus/metric_family.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "model/sample.hpp"

namespace fabricmon {

class RequestDurations {
 public:
  /// Fixed set, so the label's cardinality is bounded whatever paths clients ask for.
  enum class Handler { kMetrics, kHealth, kFindings, kIndex, kWindow, kStatus, kStatic, kOther };
  static constexpr size_t kHandlers = 8;
  /// Upper bounds in seconds: a scrape of a prerendered payload takes well under a millisecond, a
  /// render of a large node a few; anything past a second is a problem worth its own bucket.
  static constexpr std::array<double, 12> kBuckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                     0.01,   0.025,   0.05,   0.1,   0.25,   1.0};

  /// The family's name, type and help (docs test, self-metrics listing).
  static const FamilyDef& familyDef();
  static Handler handlerFor(std::string_view path);

  /// Time from the request being read to its response being written.
  void observe(Handler handler, double seconds);
  /// The current counts as one histogram family with a series per handler seen so far.
  prometheus::MetricFamily family() const;

 private:
  struct PerHandler {
    std::array<std::atomic<uint64_t>, kBuckets.size()> buckets{};  // not cumulative; +Inf = count
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> sumNanoseconds{0};
  };
  std::array<PerHandler, kHandlers> handlers_;
};

}  // namespace fabricmon
