// Cost follows scrapes (docs/architecture.md, "One render per snapshot"): the pipeline publishes
// each snapshot's batches and never renders; the first scrape of a snapshot renders it once for
// every scraper of that snapshot, and a new snapshot is rendered by the next scrape. Passes are
// driven by hand (runPass), so no test here depends on timing.
#include <gtest/gtest.h>

#include <future>
#include <set>
#include <thread>
#include <vector>

#include "daemon/pipeline.hpp"
#include "exporters/http_server.hpp"
#include "tests/support/http_get.hpp"
#include "tests/unit/exporters/gunzip.hpp"
#include "tests/support/owned_samples.hpp"

namespace fabricmon {
namespace {

const FamilyDef kValue{"fabricmon_test_value", "A value the test publishes.", MetricType::kGauge};

/// The health of one collector that has just succeeded: its batch is fresh, so it is served.
Pipeline::HealthSource justSucceeded(std::string name) {
  return [name = std::move(name)] {
    CollectorHealth h;
    h.name = name;
    h.up = true;
    h.lastSuccess = std::chrono::steady_clock::now();
    return std::vector<CollectorHealth>{h};
  };
}

struct PipelineRig {
  std::shared_ptr<Store> store = std::make_shared<Store>();
  SeriesPtr series = makeSeries(kValue, {{"device", "mlx5_0"}});
  Pipeline pipeline{store,
                    nullptr,
                    SelfMetrics("test", "test", std::make_shared<RequestDurations>()),
                    justSucceeded("test"),
                    PipelineOptions{}};

  void publish(double value) {
    auto batch = std::make_shared<Batch>();
    batch->collector = "test";
    batch->monotonic = std::chrono::steady_clock::now();
    testing::writeSamples(*batch, {{series, value}});
    store->publish(std::move(batch));
  }
};

TEST(PipelineTest, PassesWithoutAScrapeRenderNothing) {
  PipelineRig rig;
  for (int i = 0; i < 50; ++i) {
    rig.publish(i);
    rig.pipeline.runPass();
  }
  EXPECT_EQ(rig.pipeline.renders(), 0u);

  const auto payload = rig.pipeline.payload();
  ASSERT_NE(payload, nullptr);
  EXPECT_EQ(testing::seriesValue(payload->text, "fabricmon_test_value{device=\"mlx5_0\"}"), 49);
  EXPECT_EQ(rig.pipeline.renders(), 1u) << "only the snapshot that was asked for is rendered";
  EXPECT_FALSE(payload->gzipReady()) << "nobody asked for gzip";
}

TEST(PipelineTest, ANewSnapshotIsRenderedByTheNextScrape) {
  PipelineRig rig;
  rig.publish(1);
  rig.pipeline.runPass();
  const auto first = rig.pipeline.payload();
  EXPECT_EQ(rig.pipeline.payload(), first);
  EXPECT_EQ(rig.pipeline.renders(), 1u);

  rig.publish(2);
  rig.pipeline.runPass();
  EXPECT_EQ(rig.pipeline.renders(), 1u);
  const auto second = rig.pipeline.payload();
  EXPECT_GT(second->generation, first->generation);
  EXPECT_EQ(testing::seriesValue(second->text, "fabricmon_test_value{device=\"mlx5_0\"}"), 2);
  EXPECT_EQ(rig.pipeline.renders(), 2u);
}

// A batch made before the latest discovery is served without the series of devices and interfaces
// that have vanished since (daemon/pipeline.cpp, withoutVanished): the pruned copy gets a roster of
// its own, parallel to the samples it keeps, and the kept series stay alive with it.
TEST(PipelineTest, ABatchFromBeforeADiscoveryLosesTheSeriesOfVanishedDevices) {
  auto store = std::make_shared<Store>();
  auto topology = std::make_shared<TopologyHolder>();
  auto before = std::make_shared<Topology>();
  before->devices = {RdmaDevice{"mlx5_0", "", 1, {}}, RdmaDevice{"mlx5_1", "", 2, {}}};
  before->netdevs = {Netdev{"eth0", "", "", 0}, Netdev{"eth1", "", "", 0}};
  before->generation = 1;
  topology->set(before);
  Pipeline pipeline{store,
                    nullptr,
                    SelfMetrics("test", "test", std::make_shared<RequestDurations>()),
                    justSucceeded("slow"),
                    PipelineOptions{},
                    topology};
  {
    auto batch = std::make_shared<Batch>();
    batch->collector = "slow";
    batch->monotonic = std::chrono::steady_clock::now();
    batch->topologyGeneration = 1;
    // Made here and held by nothing but the batch: the pruned copy must keep what it serves alive.
    testing::writeSamples(*batch, {{makeSeries(kValue, {{"device", "mlx5_0"}}), 1},
                                   {makeSeries(kValue, {{"device", "mlx5_1"}}), 2},
                                   {makeSeries(kValue, {{"interface", "eth1"}}), 3},
                                   {makeSeries(kValue, {{"interface", "eth0"}}), 4}});
    store->publish(std::move(batch));
  }
  auto after = std::make_shared<Topology>(*before);
  after->devices.pop_back();  // mlx5_1 vanished
  after->netdevs.pop_back();  // and eth1
  after->generation = 2;
  topology->set(after);
  pipeline.runPass();
  store->remove("slow");  // only the pipeline's snapshot holds the batch now
  const auto payload = pipeline.payload();
  ASSERT_NE(payload, nullptr);
  EXPECT_EQ(testing::seriesValue(payload->text, "fabricmon_test_value{device=\"mlx5_0\"}"), 1);
  EXPECT_EQ(testing::seriesValue(payload->text, "fabricmon_test_value{interface=\"eth0\"}"), 4);
  EXPECT_EQ(payload->text.find("mlx5_1"), std::string::npos) << payload->text;
  EXPECT_EQ(payload->text.find("eth1"), std::string::npos) << payload->text;
}

class PipelineHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rig_.publish(42);
    rig_.pipeline.runPass();
    HttpHandlers handlers;
    handlers.metrics = [this] { return rig_.pipeline.payload(); };
    HttpServerOptions options;
    options.durations = rig_.pipeline.requestDurations();
    server_ = std::make_unique<HttpServer>(io_, std::move(handlers), options);
    auto port = server_->listen("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().message;
    port_ = *port;
    // Two threads, as the daemon runs its HTTP loop, so scrapes really are concurrent.
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  void stopServer() {
    if (!server_) return;
    server_->stop();
    guard_.reset();
    for (auto& t : threads_) t.join();
    threads_.clear();
    server_.reset();
  }
  void TearDown() override { stopServer(); }

  PipelineRig rig_;
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guard_{
      boost::asio::make_work_guard(io_)};
  std::vector<std::thread> threads_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

TEST_F(PipelineHttpTest, ConcurrentScrapesOfOneSnapshotRenderItOnce) {
  constexpr int kScrapers = 8;
  std::vector<std::future<testing::HttpResponse>> scrapes;
  for (int i = 0; i < kScrapers; ++i) {
    const bool gzip = i % 2 == 1;
    scrapes.push_back(std::async(std::launch::async, [this, gzip] {
      return testing::httpGet(port_, "/metrics", gzip ? "Accept-Encoding: gzip\r\n" : "");
    }));
  }
  std::set<std::string> bodies;
  for (int i = 0; i < kScrapers; ++i) {
    auto r = scrapes[i].get();
    ASSERT_EQ(r.status, 200);
    bodies.insert(i % 2 == 1 ? test_util::gunzip(r.body) : r.body);
  }
  EXPECT_EQ(rig_.pipeline.renders(), 1u) << "eight scrapes of one snapshot, one render";
  EXPECT_EQ(bodies.size(), 1u) << "every scraper got the same bytes";
  EXPECT_TRUE(rig_.pipeline.payload()->gzipReady());

  // The server recorded every request (the write completes on the server's threads; stopping
  // them makes the count final).
  stopServer();
  const auto family = rig_.pipeline.requestDurations()->family();
  ASSERT_EQ(family.metric.size(), 1u);
  EXPECT_EQ(family.metric[0].label[0].value, "/metrics");
  EXPECT_EQ(family.metric[0].histogram.sample_count, static_cast<uint64_t>(kScrapers));

  // The next snapshot carries the histogram, rendered on demand like everything else.
  rig_.pipeline.runPass();
  const std::string text = rig_.pipeline.payload()->text;
  EXPECT_EQ(rig_.pipeline.renders(), 2u);
  EXPECT_NE(text.find("# TYPE fabricmon_http_request_duration_seconds histogram\n"), std::string::npos) << text;
  EXPECT_EQ(testing::seriesValue(
                text, "fabricmon_http_request_duration_seconds_bucket{handler=\"/metrics\",le=\"+Inf\"}"),
            kScrapers);
  EXPECT_EQ(testing::seriesValue(text, "fabricmon_http_request_duration_seconds_count{handler=\"/metrics\"}"),
            kScrapers);
}

}  // namespace
}  // namespace fabricmon
