// Scale check: ~5,000 series (a node with 8 NICs × ~600 counters) rendered and compressed once per
// snapshot. Prints the measured render time and payload sizes; asserts the output is complete.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "exporters/payload.hpp"
#include "exporters/prometheus_text.hpp"

namespace fabricmon {
namespace {

constexpr FamilyDef kHw{"fabricmon_hw_stat_total", "Every other hw_counters file.",
                        MetricType::kCounter};
constexpr FamilyDef kPort{"fabricmon_pma_stat_total", "Every other counters file.",
                          MetricType::kCounter};
constexpr FamilyDef kEthtool{"fabricmon_ethtool_stat_total", "Selected ethtool stats.",
                             MetricType::kCounter};
constexpr FamilyDef kParam{"fabricmon_dcqcn_parameter", "DCQCN parameter.", MetricType::kGauge};

TEST(RenderScaleTest, FiveThousandSeries) {
  const FamilyDef* defs[] = {&kHw, &kPort, &kEthtool, &kParam};
  std::vector<BatchPtr> batches;
  uint64_t value = 1234567;
  size_t series = 0;
  for (int dev = 0; dev < 8; ++dev) {
    auto b = std::make_shared<Batch>();
    b->collector = "c" + std::to_string(dev);
    SampleWriter out(*b);
    for (int i = 0; i < 625; ++i) {
      const FamilyDef& def = *defs[i % 4];
      value = value * 6364136223846793005ull + 1442695040888963407ull;
      out.add(makeSeries(def, {{"device", "mlx5_" + std::to_string(dev)},
                               {"port", "1"},
                               {"counter", "rx_prio" + std::to_string(i % 8) + "_stat_" + std::to_string(i)}}),
              static_cast<double>(value >> 20));
      ++series;
    }
    out.finish();
    batches.push_back(std::move(b));
  }
  ASSERT_EQ(series, 5000u);

  // CPU time next to wall time: the build machine is shared, so wall time includes waiting.
  const std::clock_t c0 = std::clock();
  const auto t0 = std::chrono::steady_clock::now();
  std::string text = renderPrometheusText(batches);
  const auto t1 = std::chrono::steady_clock::now();
  const std::clock_t c1 = std::clock();
  const Payload payload = makePayload(std::move(text), 1);
  const auto t2 = std::chrono::steady_clock::now();
  const std::clock_t c2 = std::clock();
  const auto cpuMs = [](std::clock_t a, std::clock_t b) { return 1000.0 * double(b - a) / CLOCKS_PER_SEC; };

  size_t sampleLines = 0, headerLines = 0;
  for (size_t pos = 0; pos < payload.text.size();) {
    const size_t eol = payload.text.find('\n', pos);
    ASSERT_NE(eol, std::string::npos);
    (payload.text[pos] == '#' ? headerLines : sampleLines)++;
    pos = eol + 1;
  }
  EXPECT_EQ(sampleLines, 5000u);
  EXPECT_EQ(headerLines, 8u);  // HELP + TYPE of 4 families

  using ms = std::chrono::duration<double, std::milli>;
  std::printf(
      "[ scale    ] 5000 series: render %.2f ms (cpu %.2f), gzip %.2f ms (cpu %.2f), text %zu bytes, "
      "gzip %zu bytes\n",
      ms(t1 - t0).count(), cpuMs(c0, c1), ms(t2 - t1).count(), cpuMs(c1, c2), payload.text.size(),
      payload.gzip().size());
  RecordProperty("render_ms", std::to_string(ms(t1 - t0).count()));
  RecordProperty("text_bytes", std::to_string(payload.text.size()));
  RecordProperty("gzip_bytes", std::to_string(payload.gzip().size()));
}

}  // namespace
}  // namespace fabricmon
