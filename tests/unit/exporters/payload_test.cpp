#include "exporters/payload.hpp"

#include "tests/unit/exporters/gunzip.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fabricmon {
namespace {

TEST(PayloadTest, GzipRoundTrip) {
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += "fabricmon_hw_counter_total{device=\"mlx5_" + std::to_string(i % 8) +
            "\",port=\"1\",counter=\"c" + std::to_string(i) + "\"} " + std::to_string(i * 977) + "\n";
  }
  const Payload p = makePayload(text, 42);
  EXPECT_EQ(p.text, text);
  EXPECT_EQ(p.generation, 42u);
  ASSERT_GE(p.gzip.size(), 18u);
  // RFC 1952 §2.3.1: ID1 ID2 CM(8 = deflate).
  EXPECT_EQ(static_cast<unsigned char>(p.gzip[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(p.gzip[1]), 0x8b);
  EXPECT_EQ(p.gzip[2], 8);
  EXPECT_LT(p.gzip.size(), text.size() / 4);  // repetitive exposition text compresses well
  EXPECT_EQ(test_util::gunzip(p.gzip), text);
}

TEST(PayloadTest, EmptyTextIsAValidGzipStream) {
  const Payload p = makePayload("", 0);
  ASSERT_FALSE(p.gzip.empty());
  EXPECT_EQ(test_util::gunzip(p.gzip), "");
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

}  // namespace
}  // namespace fabricmon
