#include "exporters/prometheus_text.hpp"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "exporters/utf8.hpp"

namespace fabricmon {
namespace {

// prometheus-cpp 1.0.1 escapes label values but writes HELP verbatim, and the text format requires
// `\` and newline to be escaped there (exposition_formats.md, "Comments, help text, and type
// information"); an unescaped backslash makes the whole scrape fail to parse.
std::string escapeHelp(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return isValidUtf8(out) ? out : toValidUtf8(out);
}

prometheus::MetricType toPrometheus(MetricType type) {
  return type == MetricType::kCounter ? prometheus::MetricType::Counter
                                      : prometheus::MetricType::Gauge;
}

}  // namespace

std::string renderPrometheusText(std::span<const BatchPtr> batches) {
  std::vector<prometheus::MetricFamily> families;
  std::unordered_map<std::string_view, size_t> familyIndex;
  // A series published twice (two collectors emitting it by mistake) would be a duplicate sample in
  // the scrape; the first one wins.
  std::unordered_set<std::string_view> seenSeries;

  for (const BatchPtr& batch : batches) {
    if (!batch) continue;
    for (const Sample& sample : batch->samples) {
      if (!sample.series || sample.series->family == nullptr) continue;
      const Series& series = *sample.series;
      if (!seenSeries.insert(series.key).second) continue;

      const FamilyDef& def = *series.family;
      auto [it, inserted] = familyIndex.try_emplace(def.name, families.size());
      if (inserted) {
        prometheus::MetricFamily family;
        family.name = std::string(def.name);
        family.help = escapeHelp(def.help);
        family.type = toPrometheus(def.type);
        families.push_back(std::move(family));
      }
      prometheus::MetricFamily& family = families[it->second];

      prometheus::ClientMetric metric;
      metric.label.reserve(series.labels.size());
      for (const auto& [name, value] : series.labels) {
        metric.label.push_back({name, isValidUtf8(value) ? value : toValidUtf8(value)});
      }
      // The family's first definition decides the type, so a sample never lands in a field the
      // serializer does not read.
      if (family.type == prometheus::MetricType::Counter) {
        metric.counter.value = sample.value;
      } else {
        metric.gauge.value = sample.value;
      }
      family.metric.push_back(std::move(metric));
    }
  }

  std::sort(families.begin(), families.end(),
            [](const prometheus::MetricFamily& a, const prometheus::MetricFamily& b) {
              return a.name < b.name;
            });

  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return std::move(out).str();
}

}  // namespace fabricmon
