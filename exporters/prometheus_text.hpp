#pragma once
// Renders batches as Prometheus text format 0.0.4 with prometheus-cpp's data model and serializer.

#include <prometheus/metric_family.h>

#include <span>
#include <string>
#include <vector>

#include "model/sample.hpp"

namespace fabricmon {

/// Samples of the same family from different batches are merged under one HELP/TYPE header;
/// families are sorted by name and series keep the order in which they were collected. `extra`
/// families (histograms rendered whole by their owner) are merged into the same order; empty ones
/// are left out.
std::string renderPrometheusText(std::span<const BatchPtr> batches,
                                 std::vector<prometheus::MetricFamily> extra = {});

}  // namespace fabricmon
