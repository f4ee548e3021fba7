#include "exporters/request_durations.hpp"

#include <algorithm>
#include <cmath>

namespace fabricmon {
namespace {

const FamilyDef kFamily{
    "fabricmon_http_request_duration_seconds",
    "Time the HTTP server took to answer a request, from the request read to the "
    "response written, by handler (/metrics includes rendering the snapshot the "
    "first time it is asked for).",
    MetricType::kHistogram, "seconds", "handler"};

constexpr std::array<std::string_view, RequestDurations::kHandlers> kHandlerLabels = {
    "/metrics", "/healthz", "/api/v1/findings", "/", "/api/v1/window", "/api/v1/status", "/static/", "other"};

}  // namespace

const FamilyDef& RequestDurations::familyDef() { return kFamily; }

RequestDurations::Handler RequestDurations::handlerFor(std::string_view path) {
  for (size_t i = 0; i + 1 < kHandlerLabels.size(); ++i) {
    if (path == kHandlerLabels[i] || (kHandlerLabels[i].ends_with('/') && kHandlerLabels[i] != "/" &&
                                      path.starts_with(kHandlerLabels[i]))) {
      return static_cast<Handler>(i);
    }
  }
  return Handler::kOther;
}

void RequestDurations::observe(Handler handler, double seconds) {
  if (!(seconds >= 0)) seconds = 0;  // a clock oddity must not poison the sum
  PerHandler& h = handlers_[static_cast<size_t>(handler)];
  const auto it = std::lower_bound(kBuckets.begin(), kBuckets.end(), seconds);
  if (it != kBuckets.end()) h.buckets[static_cast<size_t>(it - kBuckets.begin())].fetch_add(1, std::memory_order_relaxed);
  h.sumNanoseconds.fetch_add(static_cast<uint64_t>(std::llround(seconds * 1e9)), std::memory_order_relaxed);
  h.count.fetch_add(1, std::memory_order_relaxed);
}

prometheus::MetricFamily RequestDurations::family() const {
  prometheus::MetricFamily family;
  family.name = std::string(kFamily.name);
  family.help = std::string(kFamily.help);
  family.type = prometheus::MetricType::Histogram;
  for (size_t i = 0; i < kHandlers; ++i) {
    const PerHandler& h = handlers_[i];
    // Read the count first: buckets incremented after it only make a bucket run ahead by one
    // request for a moment, never the cumulative series decrease between scrapes.
    const uint64_t count = h.count.load(std::memory_order_relaxed);
    if (count == 0) continue;
    prometheus::ClientMetric metric;
    metric.label.push_back({"handler", std::string(kHandlerLabels[i])});
    uint64_t cumulative = 0;
    for (size_t b = 0; b < kBuckets.size(); ++b) {
      cumulative += h.buckets[b].load(std::memory_order_relaxed);
      metric.histogram.bucket.push_back({std::min(cumulative, count), kBuckets[b]});
    }
    metric.histogram.sample_count = count;
    metric.histogram.sample_sum = static_cast<double>(h.sumNanoseconds.load(std::memory_order_relaxed)) / 1e9;
    family.metric.push_back(std::move(metric));
  }
  return family;
}

}  // namespace fabricmon
