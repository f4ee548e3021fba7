#include "exporters/prometheus_text.hpp"

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <ostream>
#include <streambuf>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exporters/utf8.hpp"

namespace fabricmon {
namespace {

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

// Label values as prometheus-cpp 1.0.1 writes them (text_serializer.cc, WriteValue for strings):
// backslash, double quote and newline escaped; made valid UTF-8 first.
void appendLabelValue(std::string& out, std::string_view raw) {
  std::string fixed;
  if (!isValidUtf8(raw)) raw = fixed = toValidUtf8(raw);
  for (char c : raw) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// Numbers as prometheus-cpp 1.0.1 writes them: NaN as "Nan", infinities as "+Inf"/"-Inf", else an
// ostream in the classic locale with precision max_digits10 - 1, i.e. printf's %.16g, which is what
// to_chars(general, 16) produces without the locale and stream machinery.
void appendValue(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "Nan";
  } else if (std::isinf(value)) {
    out += value < 0 ? "-Inf" : "+Inf";
  } else {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::general,
                                 std::numeric_limits<double>::max_digits10 - 1);
    out.append(buf, r.ptr);
  }
}

/// One sample line, byte for byte what prometheus-cpp's serializer writes for the same series (the
/// unit tests compare the two): a Series' key is built once, when the series is, so the common case
/// is one copy of it and a number instead of a ClientMetric with its own copy of every label.
void appendSampleLine(std::string& out, const Sample& sample) {
  const Series& series = *sample.series;
  if (series.labels().empty()) {
    out += series.family->name;
  } else if (series.plainKey()) {
    out += series.key;
  } else {
    out += series.family->name;
    out += '{';
    bool first = true;
    for (const auto& [name, value] : series.labels()) {
      if (!first) out += ',';
      first = false;
      out += name;
      out += "=\"";
      appendLabelValue(out, value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  appendValue(out, sample.value);
  out += '\n';
}

/// The series ids a render has written, in one flat table (linear probing; ids start at 1, so 0 is
/// an empty slot): an unordered_set made a node per series, ~30,000 small blocks per render at 128
/// devices, interleaved in the arena the collector threads share with the HTTP thread, where the
/// series made meanwhile pinned the pages they freed (docs/benchmarks.md, "Eighth pass").
class SeenIds {
 public:
  explicit SeenIds(size_t expected) {
    size_t slots = 16;
    while (slots < expected * 2) slots *= 2;
    table_.assign(slots, 0);
  }
  /// True the first time `id` is given.
  bool insert(uint64_t id) {
    if (id == 0) return !std::exchange(zeroSeen_, true);  // not made by makeSeries; kept exact
    const size_t mask = table_.size() - 1;
    for (size_t i = (id * 0x9E3779B97F4A7C15ull) >> 7 & mask;; i = (i + 1) & mask) {
      if (table_[i] == id) return false;
      if (table_[i] == 0) {
        table_[i] = id;
        return true;
      }
    }
  }

 private:
  std::vector<uint64_t> table_;
  bool zeroSeen_ = false;
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
  // A series published twice (two collectors emitting it by mistake: makeSeries gives them one
  // object and id) would be a duplicate sample in the scrape; the first one wins.
  size_t total = 0;
  for (const BatchPtr& batch : batches) {
    if (batch) total += batch->samples.size();
  }
  SeenIds seenIds(total);

  for (const BatchPtr& batch : batches) {
    if (!batch) continue;
    for (const Sample& sample : batch->samples) {
      if (!sample.series || sample.series->family == nullptr) continue;
      const Series& series = *sample.series;
      if (!seenIds.insert(series.id)) continue;
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
  std::vector<prometheus::MetricFamily> header(1);

  for (Group& group : groups) {
    if (group.whole) {
      serializer.Serialize(stream, std::vector<prometheus::MetricFamily>{std::move(*group.whole)});
      continue;
    }
    // prometheus-cpp writes the HELP and TYPE lines; the sample lines are written here, since each
    // is the series' precomputed key and a number (see appendSampleLine).
    header[0].name = std::string(group.def->name);
    header[0].help = escapeHelp(group.def->help);
    header[0].type = toPrometheus(group.def->type);
    serializer.Serialize(stream, header);
    stream.flush();
    for (const Sample* sample : group.samples) appendSampleLine(out, *sample);
  }
  stream.flush();
  // The reservation is a guess, a few percent high; the text lives only while its snapshot is
  // current (a second at 1 s polling), so the slack is kept: shrink_to_fit would copy the whole
  // text and hold both copies at once (2.9 + 2.6 MiB at 128 devices, docs/benchmarks.md).
  return out;
}

}  // namespace fabricmon
