#include "exporters/prometheus_text.hpp"
#include "tests/support/owned_samples.hpp"

#include <prometheus/text_serializer.h>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fabricmon {
namespace {

constexpr FamilyDef kRxBytes{"fabricmon_port_receive_bytes_total",
                             "Bytes received on the port (port_rcv_data x 4).", MetricType::kCounter};
constexpr FamilyDef kState{"fabricmon_port_state", "Port state number (4 = ACTIVE).",
                           MetricType::kGauge};
constexpr FamilyDef kHwCounter{"fabricmon_hw_stat_total", "Every other hw_counters file.",
                               MetricType::kCounter};
constexpr FamilyDef kAwkwardHelp{"fabricmon_awkward", "Path C:\\sys\\x and\na second line.",
                                 MetricType::kGauge};

BatchPtr batch(std::string collector, const std::vector<testing::OwnedSample>& samples) {
  auto b = std::make_shared<Batch>();
  b->collector = std::move(collector);
  testing::writeSamples(*b, samples);
  return b;
}

std::string render(std::vector<BatchPtr> batches) { return renderPrometheusText(batches); }

TEST(PrometheusTextTest, EmptyInputRendersNothing) {
  EXPECT_EQ(render({}), "");
  EXPECT_EQ(render({nullptr, batch("empty", {})}), "");
}

TEST(PrometheusTextTest, MergesFamiliesAcrossBatchesSortedByName) {
  const auto rx0 = makeSeries(kRxBytes, {{"device", "mlx5_0"}, {"port", "1"}});
  const auto rx1 = makeSeries(kRxBytes, {{"device", "mlx5_1"}, {"port", "1"}});
  const auto st0 = makeSeries(kState, {{"device", "mlx5_0"}, {"port", "1"}});
  const auto hw = makeSeries(kHwCounter, {{"device", "mlx5_0"}, {"port", "1"}, {"counter", "x"}});
  const std::string text =
      render({batch("a", {{st0, 4}, {rx0, 4096}}), batch("b", {{rx1, 8}, {hw, 3}})});
  EXPECT_EQ(text,
            "# HELP fabricmon_hw_stat_total Every other hw_counters file.\n"
            "# TYPE fabricmon_hw_stat_total counter\n"
            "fabricmon_hw_stat_total{device=\"mlx5_0\",port=\"1\",counter=\"x\"} 3\n"
            "# HELP fabricmon_port_receive_bytes_total Bytes received on the port (port_rcv_data x 4).\n"
            "# TYPE fabricmon_port_receive_bytes_total counter\n"
            "fabricmon_port_receive_bytes_total{device=\"mlx5_0\",port=\"1\"} 4096\n"
            "fabricmon_port_receive_bytes_total{device=\"mlx5_1\",port=\"1\"} 8\n"
            "# HELP fabricmon_port_state Port state number (4 = ACTIVE).\n"
            "# TYPE fabricmon_port_state gauge\n"
            "fabricmon_port_state{device=\"mlx5_0\",port=\"1\"} 4\n");
}

TEST(PrometheusTextTest, CounterNameIsNotSuffixedAgain) {
  const std::string text = render({batch("a", {{makeSeries(kRxBytes, {}), 1}})});
  EXPECT_EQ(text.find("_total_total"), std::string::npos) << text;
  EXPECT_NE(text.find("\nfabricmon_port_receive_bytes_total 1\n"), std::string::npos) << text;
}

TEST(PrometheusTextTest, EscapesLabelValuesAndHelp) {
  // hfi1 names counters like "SDMAInt10,32"; the rest covers every character the format escapes.
  const auto s1 = makeSeries(kHwCounter, {{"device", "hfi1_0"}, {"counter", "SDMAInt10,32"}});
  const auto s2 = makeSeries(kHwCounter, {{"device", "hfi1_0"}, {"counter", "a \"q\" \\ b\nc"}});
  const auto s3 = makeSeries(kAwkwardHelp, {{"where", "bad\xFFutf8"}});
  const std::string text = render({batch("a", {{s1, 1}, {s2, 2}, {s3, 3}})});
  EXPECT_NE(text.find("{device=\"hfi1_0\",counter=\"SDMAInt10,32\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("{device=\"hfi1_0\",counter=\"a \\\"q\\\" \\\\ b\\nc\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP fabricmon_awkward Path C:\\\\sys\\\\x and\\na second line.\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fabricmon_awkward{where=\"bad\xEF\xBF\xBDutf8\"} 3\n"), std::string::npos)
      << text;
}

TEST(PrometheusTextTest, DuplicateSeriesKeepsTheFirst) {
  const auto s = makeSeries(kState, {{"device", "mlx5_0"}, {"port", "1"}});
  const auto again = makeSeries(kState, {{"device", "mlx5_0"}, {"port", "1"}});
  const std::string text = render({batch("a", {{s, 4}}), batch("b", {{again, 1}})});
  EXPECT_NE(text.find("} 4\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("} 1\n"), std::string::npos) << text;
}

// Thousands of series, each published by three batches in shuffled orders: every series is written
// once, with the value of the first batch that carried it (the duplicate check's table wraps and
// probes; a lost or doubled line would show in the counts).
TEST(PrometheusTextTest, ManyDuplicateSeriesEachKeepTheirFirstValue) {
  constexpr int kSeries = 5000;
  std::vector<SeriesPtr> series;
  for (int i = 0; i < kSeries; ++i) {
    series.push_back(makeSeries(kState, {{"device", "d" + std::to_string(i)}}));
  }
  std::mt19937 rng(7);
  std::vector<BatchPtr> batches;
  for (int b = 0; b < 3; ++b) {
    std::vector<int> order(kSeries);
    for (int i = 0; i < kSeries; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<testing::OwnedSample> samples;
    for (int i : order) samples.push_back({series[i], double(b)});
    batches.push_back(batch("b" + std::to_string(b), samples));
  }
  const std::string text = render(batches);
  size_t lines = 0, firstValue = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    ++lines;
    if (line.ends_with(" 0")) ++firstValue;
  }
  EXPECT_EQ(lines, size_t(kSeries));
  EXPECT_EQ(firstValue, size_t(kSeries));
}

TEST(PrometheusTextTest, SpecialValues) {
  const auto a = makeSeries(kState, {{"device", "a"}});
  const auto b = makeSeries(kState, {{"device", "b"}});
  const auto c = makeSeries(kState, {{"device", "c"}});
  const auto d = makeSeries(kState, {{"device", "d"}});
  const std::string text = render({batch("a", {{a, std::numeric_limits<double>::quiet_NaN()},
                                               {b, std::numeric_limits<double>::infinity()},
                                               {c, -0.25},
                                               {d, 123456789012.0}})});
  EXPECT_NE(text.find("{device=\"a\"} Nan\n"), std::string::npos) << text;
  EXPECT_NE(text.find("{device=\"b\"} +Inf\n"), std::string::npos) << text;
  EXPECT_NE(text.find("{device=\"c\"} -0.25\n"), std::string::npos) << text;
  EXPECT_NE(text.find("{device=\"d\"} 123456789012\n"), std::string::npos) << text;
}

// The real parser and linter of the Prometheus project, over output with every awkward case.
/// What prometheus-cpp's serializer writes for one family built the library's way (a ClientMetric
/// per series): the reference the fast sample lines must equal byte for byte.
std::string referenceRender(const FamilyDef& def, const std::vector<testing::OwnedSample>& samples) {
  prometheus::MetricFamily family;
  family.name = std::string(def.name);
  family.help = std::string(def.help);
  family.type = def.type == MetricType::kCounter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge;
  for (const testing::OwnedSample& s : samples) {
    prometheus::ClientMetric m;
    for (const auto& [k, v] : s.series->labels()) m.label.push_back({std::string(k), std::string(v)});
    (def.type == MetricType::kCounter ? m.counter.value : m.gauge.value) = s.value;
    family.metric.push_back(std::move(m));
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, {family});
  return out.str();
}

TEST(PrometheusTextTest, SampleLinesAreWhatPrometheusCppWrites) {
  std::mt19937_64 rng(12345);
  const std::string alphabet = "abcXYZ019_-.:/ \\\"\n,={}";
  std::vector<testing::OwnedSample> counters, gauges, bare;
  for (int i = 0; i < 3000; ++i) {
    std::string value;
    const int len = static_cast<int>(rng() % 12);
    for (int j = 0; j < len; ++j) value += alphabet[rng() % alphabet.size()];
    // Doubles of every kind: integers up to 2^64, fractions, tiny, huge, negative, specials.
    double v;
    switch (rng() % 8) {
      case 0: v = static_cast<double>(rng()); break;
      case 1: v = static_cast<double>(rng() % 100000); break;
      case 2: v = std::ldexp(static_cast<double>(rng() % 1000000), -static_cast<int>(rng() % 60)); break;
      case 3: v = -std::ldexp(static_cast<double>(rng()), static_cast<int>(rng() % 300)); break;
      case 4: v = 5e10; break;
      case 5: v = 0.1 * static_cast<double>(rng() % 1000); break;
      case 6: v = std::numeric_limits<double>::denorm_min() * static_cast<double>(rng() % 7); break;
      default: v = 1.0 / 3.0 * static_cast<double>(rng() % 9); break;
    }
    Labels labels{{"device", "mlx5_" + std::to_string(i)}, {"counter", value}};
    if (i % 2 == 0) {
      counters.push_back({makeSeries(kHwCounter, labels), v});
    } else {
      gauges.push_back({makeSeries(kState, labels), v});
    }
  }
  bare.push_back({makeSeries(kRxBytes, {}), 42});
  EXPECT_EQ(render({batch("c", counters)}), referenceRender(kHwCounter, counters));
  EXPECT_EQ(render({batch("g", gauges)}), referenceRender(kState, gauges));
  EXPECT_EQ(render({batch("b", bare)}), referenceRender(kRxBytes, bare));
}

TEST(PrometheusTextTest, PassesPromtoolCheckMetrics) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    FAIL() << "promtool is not installed (Debian package prometheus): scripts/install-deps installs "
              "every test tool, and a check that cannot run must not pass";
  }
  const auto s1 = makeSeries(kHwCounter, {{"device", "hfi1_0"}, {"port", "1"}, {"counter", "SDMAInt10,32"}});
  const auto s2 = makeSeries(kHwCounter, {{"device", "hfi1_0"}, {"port", "1"}, {"counter", "a \"q\" \\ b\nc"}});
  const auto s3 = makeSeries(kRxBytes, {{"device", "mlx5_0"}, {"port", "1"}});
  const auto s4 = makeSeries(kState, {{"device", "mlx5_0"}, {"port", "1"}});
  const auto s5 = makeSeries(kAwkwardHelp, {{"where", "bad\xFFutf8"}});
  const auto s6 = makeSeries(kState, {{"device", "mlx5_1"}, {"port", "1"}});
  const std::string text =
      render({batch("a", {{s1, 1}, {s3, 1e17}, {s4, 4}}),
              batch("b", {{s2, 2}, {s5, 0.5}, {s6, std::numeric_limits<double>::quiet_NaN()}})});

  const auto dir = std::filesystem::temp_directory_path();
  const auto in = dir / ("fabricmon_promtool_in_" + std::to_string(::getpid()));
  const auto out = dir / ("fabricmon_promtool_out_" + std::to_string(::getpid()));
  std::ofstream(in, std::ios::binary) << text;
  const std::string cmd = "promtool check metrics < '" + in.string() + "' > '" + out.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream report(out);
  const std::string promtoolSaid((std::istreambuf_iterator<char>(report)), {});
  std::filesystem::remove(in);
  std::filesystem::remove(out);
  // Exit 1 = the text does not parse; 3 = it parses but has lint problems (promtool check metrics).
  ASSERT_TRUE(WIFEXITED(rc));
  const int status = WEXITSTATUS(rc);
  ASSERT_TRUE(status == 0 || status == 3) << "promtool said:\n" << promtoolSaid << "\ninput:\n" << text;
  // The one lint finding tolerated: docs/contract.md §4 fixes the names of the generic families
  // fabricmon_hw_stat_total / fabricmon_pma_stat_total, which contain "counter".
  std::string otherLint;
  std::istringstream lines(promtoolSaid);
  for (std::string line; std::getline(lines, line);) {
    if (line != "fabricmon_hw_stat_total metric name should not include type 'counter'") {
      otherLint += line + "\n";
    }
  }
  EXPECT_EQ(otherLint, "") << "input:\n" << text;
}

}  // namespace
}  // namespace fabricmon
