// The window's encodings (window/sample_codec.hpp): lossless, and as small as they are meant to be.
#include "window/sample_codec.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace fabricmon {
namespace {

std::vector<double> roundTrip(const std::vector<double>& values, BitBuffer& buf) {
  XorState enc;
  for (size_t i = 0; i < values.size(); ++i) xorAppend(buf, enc, values[i], i == 0);
  BitReader in(buf);
  XorState dec;
  std::vector<double> out;
  for (size_t i = 0; i < values.size(); ++i) out.push_back(xorNext(in, dec, i == 0));
  EXPECT_TRUE(in.atEnd());
  return out;
}

TEST(SampleCodec, XorKeepsEveryDoubleBitForBit) {
  std::mt19937_64 rng(1);
  std::vector<double> values = {0.0, -0.0, 1.0, 1.0, std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max(), -1e300, 42, 42, 43, 1e12, 1e12 + 4096};
  for (int i = 0; i < 2000; ++i) values.push_back(bitsDouble(rng()));  // any bit pattern
  double counter = 7e11;
  for (int i = 0; i < 2000; ++i) values.push_back(counter += double(rng() % 5'000'000'000));
  BitBuffer buf;
  const auto out = roundTrip(values, buf);
  ASSERT_EQ(out.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(doubleBits(out[i]), doubleBits(values[i])) << i;
}

TEST(SampleCodec, AStillCounterCostsABitPerSampleAndNoHeap) {
  BitBuffer buf;
  const std::vector<double> values(120, 12345.0);
  roundTrip(values, buf);
  EXPECT_EQ(buf.bits(), 64u + 119u);
  EXPECT_EQ(buf.heapBytes(), 0u);  // open: the value inline, the zero bits counted, not stored
  buf.shrink();
  EXPECT_EQ(buf.heapBytes(), 0u);
  EXPECT_LE(buf.heldBytes(), BitBuffer::kInlineBytes);
  BitReader in(buf);
  XorState dec;
  for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(xorNext(in, dec, i == 0), 12345.0) << i;
  EXPECT_TRUE(in.atEnd());
}

// Whatever was written, shrunk at any point, written on, moved: every bit reads back as written
// (bytes dropped by shrink() read as zero; a buffer that shrank to inline grows onto the heap
// again). Random bit strings with long zero runs, as a still counter's chunk has.
TEST(SampleCodec, ShrinkAndMoveKeepEveryBit) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 2000; ++round) {
    BitBuffer buf;
    std::vector<bool> expect;
    const int writes = int(rng() % 40);
    for (int w = 0; w < writes; ++w) {
      const unsigned n = 1 + unsigned(rng() % 64);
      const uint64_t value = (rng() % 3 == 0) ? rng() : 0;  // mostly zeros
      buf.write(value, n);
      for (unsigned b = n; b-- > 0;) expect.push_back((value >> b) & 1);
      if (rng() % 4 == 0) buf.shrink();
      if (rng() % 8 == 0) {
        BitBuffer moved(std::move(buf));
        buf = std::move(moved);
      }
    }
    if (rng() % 2 == 0) buf.shrink();
    ASSERT_EQ(buf.bits(), expect.size());
    BitReader in(buf);
    for (size_t i = 0; i < expect.size(); ++i) ASSERT_EQ(in.readBit(), expect[i]) << round << " bit " << i;
    EXPECT_TRUE(in.atEnd());
  }
}

TEST(SampleCodec, AClosedChunkKeepsNoTrailingZeroBytes) {
  BitBuffer buf;
  buf.write(0xABCD, 16);
  buf.write(0, 64);
  buf.write(0, 64);
  buf.write(0x1, 1);  // one set bit at position 144: 19 bytes
  buf.write(0, 60);
  buf.shrink();
  EXPECT_EQ(buf.heapBytes(), 19u);  // the 60 zero bits written last are not held
  BitBuffer zeros;
  zeros.write(0, 64);
  zeros.write(0, 64);
  zeros.shrink();
  EXPECT_EQ(zeros.heapBytes(), 0u);
  EXPECT_EQ(zeros.bits(), 128u);
  BitReader in(zeros);
  EXPECT_EQ(in.read(64), 0u);
  EXPECT_EQ(in.read(64), 0u);
  EXPECT_TRUE(in.atEnd());
}

TEST(SampleCodec, DeltaOfDeltaKeepsEveryTimestamp) {
  std::mt19937_64 rng(2);
  std::vector<int64_t> ts;
  int64_t t = 3'600'000'000'000'000;
  for (int i = 0; i < 5000; ++i) {
    switch (rng() % 6) {
      case 0: t += 1'000'000'000; break;                                  // on time
      case 1: t += 1'000'000'000 + int64_t(rng() % 2'000'000) - 1'000'000; break;  // ms jitter
      case 2: t += int64_t(rng() % 40'000'000'000); break;                // a stall
      case 3: t += 250'000'000 + int64_t(rng() % 30'000) - 15'000; break;  // µs jitter
      case 4: t -= int64_t(rng() % 1000); break;                          // never from the clock, still kept
      default: t += int64_t(rng() % 1'000'000'000'000); break;  // up to 1000 s: beyond every bucket
    }
    ts.push_back(t);
  }
  BitBuffer buf;
  DodState enc;
  for (size_t i = 0; i < ts.size(); ++i) dodAppend(buf, enc, ts[i], uint32_t(i));
  BitReader in(buf);
  DodState dec;
  for (size_t i = 0; i < ts.size(); ++i) ASSERT_EQ(dodNext(in, dec, uint32_t(i)), ts[i]) << i;
  EXPECT_TRUE(in.atEnd());
}

TEST(SampleCodec, RegularTimestampsCostABitEach) {
  BitBuffer buf;
  DodState enc;
  for (uint32_t i = 0; i < 120; ++i) dodAppend(buf, enc, 5'000'000'000 + int64_t(i) * 250'000'000, i);
  EXPECT_EQ(buf.bits(), 64u + 64u + 118u);
}

}  // namespace
}  // namespace fabricmon
