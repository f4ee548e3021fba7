#include "exporters/prometheus_text.hpp"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <ostream>
#include <streambuf>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "exporters/utf8.hpp"

namespace fabricmon {
namespace {

// A family is handed to the serializer in slices of this many series, so the serializer's input
// (a ClientMetric with its own copies of every label string, ~300 bytes a series) never holds more
// than one slice: at 128 ports the whole node is ~24,000 series, and building them all at once
// made the render's transient heap (which glibc keeps as RSS afterwards) larger than the text.
constexpr size_t kSlice = 512;
// Typical exposition line, bytes, for the first reservation of the output.
constexpr size_t kBytesPerSeries = 96;

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
  switch (type) {
    case MetricType::kCounter:
      return prometheus::MetricType::Counter;
    case MetricType::kHistogram:
      return prometheus::MetricType::Histogram;
    case MetricType::kGauge:
      break;
  }
  return prometheus::MetricType::Gauge;
}

/// Appends whatever the serializer writes straight to the output string (no stringstream copy).
class AppendBuf : public std::streambuf {
 public:
  explicit AppendBuf(std::string& out) : out_(out) {}

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) out_.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_.append(s, static_cast<size_t>(n));
    return n;
  }

 private:
  std::string& out_;
};

struct Group {
  std::string_view name;
  const FamilyDef* def = nullptr;             // sampled family, or
  prometheus::MetricFamily* whole = nullptr;  // an extra family rendered as given
  std::vector<const Sample*> samples;
};

}  // namespace

std::string renderPrometheusText(std::span<const BatchPtr> batches,
                                 std::vector<prometheus::MetricFamily> extra) {
  std::vector<Group> groups;
  std::unordered_map<std::string_view, size_t> groupIndex;
  // A series published twice (two collectors emitting it by mistake) would be a duplicate sample in
  // the scrape; the first one wins.
  std::unordered_set<std::string_view> seenKeys;
  size_t total = 0;
  for (const BatchPtr& batch : batches) {
    if (batch) total += batch->samples.size();
  }
  seenKeys.reserve(total);

  for (const BatchPtr& batch : batches) {
    if (!batch) continue;
    for (const Sample& sample : batch->samples) {
      if (!sample.series || sample.series->family == nullptr) continue;
      const Series& series = *sample.series;
      if (!seenKeys.insert(series.key).second) continue;
      const FamilyDef& def = *series.family;
      auto [it, inserted] = groupIndex.try_emplace(def.name, groups.size());
      if (inserted) groups.push_back(Group{def.name, &def, nullptr, {}});
      groups[it->second].samples.push_back(&sample);
    }
  }
  for (prometheus::MetricFamily& family : extra) {
    if (family.metric.empty() || groupIndex.count(family.name)) continue;
    groups.push_back(Group{family.name, nullptr, &family, {}});
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.name < b.name; });

  std::string out;
  out.reserve(total * kBytesPerSeries);
  AppendBuf buf(out);
  std::ostream stream(&buf);
  const prometheus::TextSerializer serializer;
  std::vector<prometheus::MetricFamily> slice(1);
  prometheus::MetricFamily& family = slice.front();

  for (Group& group : groups) {
    if (group.whole) {
      serializer.Serialize(stream, std::vector<prometheus::MetricFamily>{std::move(*group.whole)});
      continue;
    }
    family.name = std::string(group.def->name);
    family.help = escapeHelp(group.def->help);
    family.type = toPrometheus(group.def->type);
    for (size_t begin = 0; begin < group.samples.size(); begin += kSlice) {
      const size_t end = std::min(group.samples.size(), begin + kSlice);
      family.metric.clear();
      family.metric.reserve(end - begin);
      for (size_t i = begin; i < end; ++i) {
        const Sample& sample = *group.samples[i];
        prometheus::ClientMetric metric;
        metric.label.reserve(sample.series->labels.size());
        for (const auto& [name, value] : sample.series->labels) {
          metric.label.push_back({name, isValidUtf8(value) ? value : toValidUtf8(value)});
        }
        // The family's definition decides the type, so a sample never lands in a field the
        // serializer does not read.
        if (family.type == prometheus::MetricType::Counter) {
          metric.counter.value = sample.value;
        } else {
          metric.gauge.value = sample.value;
        }
        family.metric.push_back(std::move(metric));
      }
      const size_t start = out.size();
      serializer.Serialize(stream, slice);
      if (begin > 0) {
        // A later slice of the same family: the serializer wrote its `# TYPE` line again (HELP was
        // cleared below); one family has one header in the text format, so drop it.
        const size_t eol = out.find('\n', start);
        out.erase(start, eol - start + 1);
      }
      family.help.clear();
    }
  }
  stream.flush();
  // The reservation is a guess; a payload lives until the next snapshot, so return the slack.
  if (out.capacity() > out.size() + out.size() / 8) out.shrink_to_fit();
  return out;
}

}  // namespace fabricmon
