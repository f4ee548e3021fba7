#include "exporters/prometheus_text.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace fabricmon {
namespace {

constexpr FamilyDef kRxBytes{"fabricmon_port_receive_bytes_total",
                             "Bytes received on the port (port_rcv_data x 4).", MetricType::kCounter};
constexpr FamilyDef kState{"fabricmon_port_state", "Port state number (4 = ACTIVE).",
                           MetricType::kGauge};
constexpr FamilyDef kHwCounter{"fabricmon_hw_counter_total", "Every other hw_counters file.",
                               MetricType::kCounter};
constexpr FamilyDef kAwkwardHelp{"fabricmon_awkward", "Path C:\\sys\\x and\na second line.",
                                 MetricType::kGauge};

BatchPtr batch(std::string collector, std::vector<Sample> samples) {
  auto b = std::make_shared<Batch>();
  b->collector = std::move(collector);
  b->samples = std::move(samples);
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
            "# HELP fabricmon_hw_counter_total Every other hw_counters file.\n"
            "# TYPE fabricmon_hw_counter_total counter\n"
            "fabricmon_hw_counter_total{device=\"mlx5_0\",port=\"1\",counter=\"x\"} 3\n"
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
  // The one lint finding tolerated: CONTRACT §4 fixes the names of the generic families
  // fabricmon_hw_counter_total / fabricmon_port_counter_total, which contain "counter".
  std::string otherLint;
  std::istringstream lines(promtoolSaid);
  for (std::string line; std::getline(lines, line);) {
    if (line != "fabricmon_hw_counter_total metric name should not include type 'counter'") {
      otherLint += line + "\n";
    }
  }
  EXPECT_EQ(otherLint, "") << "input:\n" << text;
}

}  // namespace
}  // namespace fabricmon
