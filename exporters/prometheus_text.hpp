#pragma once
// Renders batches as Prometheus text format 0.0.4: HELP/TYPE lines and whole histogram families
// through prometheus-cpp's serializer, sample lines from each series' precomputed key, written
// byte for byte as that serializer writes them (tests/unit/exporters/prometheus_text_test.cpp checks).

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
