#include "exporters/payload.hpp"

#include "tests/unit/exporters/gunzip.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace fabricmon {
namespace {

TEST(PayloadTest, GzipRoundTrip) {
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += "fabricmon_hw_stat_total{device=\"mlx5_" + std::to_string(i % 8) +
            "\",port=\"1\",counter=\"c" + std::to_string(i) + "\"} " + std::to_string(i * 977) + "\n";
  }
  const Payload p = makePayload(text, 42);
  EXPECT_EQ(p.text, text);
  EXPECT_EQ(p.generation, 42u);
  ASSERT_GE(p.gzip().size(), 18u);
  // RFC 1952 §2.3.1: ID1 ID2 CM(8 = deflate).
  EXPECT_EQ(static_cast<unsigned char>(p.gzip()[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(p.gzip()[1]), 0x8b);
  EXPECT_EQ(p.gzip()[2], 8);
  EXPECT_LT(p.gzip().size(), text.size() / 4);  // repetitive exposition text compresses well
  EXPECT_EQ(test_util::gunzip(p.gzip()), text);
}

TEST(PayloadTest, EmptyTextIsAValidGzipStream) {
  const Payload p = makePayload("", 0);
  ASSERT_FALSE(p.gzip().empty());
  EXPECT_EQ(test_util::gunzip(p.gzip()), "");
}

TEST(PayloadTest, IncompressibleBytesRoundTrip) {
  std::string text;
  uint32_t x = 12345;
  for (int i = 0; i < 100000; ++i) {
    x = x * 1664525u + 1013904223u;  // LCG: incompressible enough to exercise deflateBound
    text += static_cast<char>(x >> 24);
  }
  EXPECT_EQ(test_util::gunzip(gzipCompress(text)), text);
}

// The output grows with what deflate produces: a compressible exposition never holds a buffer of
// the text's size beside the text (docs/benchmarks.md, "Memory per component").
TEST(PayloadTest, GzipOfCompressibleTextHoldsNoTextSizedBuffer) {
  std::string text;
  for (int i = 0; text.size() < 2'000'000; ++i)
    text += "fabricmon_rdma_port_rcv_data_bytes_total{device=\"mlx5_" + std::to_string(i % 128) +
            "\",port=\"1\"} " + std::to_string(i * 977) + "\n";
  const std::string gz = gzipCompress(text);
  EXPECT_EQ(test_util::gunzip(gz), text);
  EXPECT_LT(gz.capacity(), text.size() / 4);
}

TEST(PayloadTest, GzipIsCompressedOnlyWhenAskedAndOnce) {
  const Payload p("abc\n", 7);
  EXPECT_FALSE(p.gzipReady());
  const std::string& first = p.gzip();
  EXPECT_TRUE(p.gzipReady());
  EXPECT_EQ(&first, &p.gzip()) << "the second caller gets the same bytes, not a new compression";
  EXPECT_EQ(test_util::gunzip(first), "abc\n");
}

/// A renderer that counts its calls and writes the generation it saw.
struct CountingRender {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  std::string operator()(std::span<const BatchPtr> batches) const {
    ++*calls;
    return "batches " + std::to_string(batches.size()) + "\n";
  }
};

TEST(LazyExpositionTest, NoRenderWithoutAReader) {
  CountingRender render;
  LazyExposition exposition(render);
  EXPECT_EQ(exposition.payload(), nullptr) << "nothing published yet";
  for (uint64_t g = 1; g <= 100; ++g) exposition.publish({nullptr, nullptr}, g);
  EXPECT_EQ(*render.calls, 0) << "publishing never renders";
  EXPECT_EQ(exposition.renders(), 0u);
  EXPECT_EQ(exposition.generation(), 100u);

  const auto payload = exposition.payload();
  ASSERT_NE(payload, nullptr);
  EXPECT_EQ(payload->generation, 100u);
  EXPECT_EQ(payload->text, "batches 2\n");
  EXPECT_FALSE(payload->gzipReady()) << "no reader asked for gzip";
  EXPECT_EQ(*render.calls, 1);
}

TEST(LazyExpositionTest, OneRenderPerSnapshotAndANewOneForTheNext) {
  CountingRender render;
  LazyExposition exposition(render);
  exposition.publish({}, 1);
  const auto a = exposition.payload();
  const auto b = exposition.payload();
  EXPECT_EQ(a, b) << "the same bytes for every reader of one snapshot";
  EXPECT_EQ(exposition.renders(), 1u);

  exposition.publish({nullptr}, 2);
  EXPECT_EQ(exposition.renders(), 1u) << "a new snapshot renders on the next read, not on publish";
  const auto c = exposition.payload();
  EXPECT_NE(c, a);
  EXPECT_EQ(c->generation, 2u);
  EXPECT_EQ(c->text, "batches 1\n");
  EXPECT_EQ(exposition.renders(), 2u);
  EXPECT_EQ(a->generation, 1u) << "a reader still holding the old payload keeps valid bytes";
}

TEST(LazyExpositionTest, ConcurrentReadersOfOneSnapshotShareOneRender) {
  constexpr int kReaders = 8;
  // The render blocks until every reader has started, so the others arrive while it is running.
  std::latch started(kReaders);
  auto calls = std::make_shared<std::atomic<int>>(0);
  LazyExposition exposition([&](std::span<const BatchPtr>) {
    ++*calls;
    started.wait();
    return std::string("rendered once\n");
  });
  exposition.publish({}, 1);

  std::vector<std::future<std::shared_ptr<const Payload>>> readers;
  for (int i = 0; i < kReaders; ++i) {
    readers.push_back(std::async(std::launch::async, [&] {
      started.count_down();
      const auto payload = exposition.payload();
      (void)payload->gzip();  // every reader asks for gzip too: compressed once
      return payload;
    }));
  }
  std::set<const Payload*> distinct;
  std::set<const std::string*> gzips;
  for (auto& r : readers) {
    const auto payload = r.get();
    distinct.insert(payload.get());
    gzips.insert(&payload->gzip());
  }
  EXPECT_EQ(*calls, 1);
  EXPECT_EQ(exposition.renders(), 1u);
  EXPECT_EQ(distinct.size(), 1u);
  EXPECT_EQ(gzips.size(), 1u);
}

TEST(LazyExpositionTest, AFailedRenderIsRetriedByTheNextReader) {
  int calls = 0;
  LazyExposition exposition([&](std::span<const BatchPtr>) -> std::string {
    if (++calls == 1) throw std::runtime_error("render failed");
    return "ok\n";
  });
  exposition.publish({}, 1);
  EXPECT_THROW(exposition.payload(), std::runtime_error);
  const auto payload = exposition.payload();
  ASSERT_NE(payload, nullptr);
  EXPECT_EQ(payload->text, "ok\n");
  EXPECT_EQ(exposition.renders(), 1u);
}

}  // namespace
}  // namespace fabricmon
