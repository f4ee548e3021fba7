#pragma once
// Renders batches as Prometheus text format 0.0.4 with prometheus-cpp's data model and serializer.

#include <span>
#include <string>

#include "model/sample.hpp"

namespace fabricmon {

/// Samples of the same family from different batches are merged under one HELP/TYPE header;
/// families are sorted by name and series keep the order in which they were collected.
std::string renderPrometheusText(std::span<const BatchPtr> batches);

}  // namespace fabricmon
