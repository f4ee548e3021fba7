#pragma once
// The bit-level encodings of the recent-sample window (docs/architecture.md, "The recent-sample
// window"): delta-of-delta timestamps and XOR-compressed floats, as described in Pelkonen et al.,
// "Gorilla: A Fast, Scalable, In-Memory Time Series Database" (VLDB 2015), section 4.1, and as
// Prometheus's head chunks use them (tsdb/chunkenc/xor.go in github.com/prometheus/prometheus).
// Lossless: a decoded value is the encoded double bit for bit.

#include <cstdint>
#include <cstring>
#include <memory>

namespace fabricmon {

/// A growable bit string that allocates in small steps (a chunk of a series that stands still is
/// ~23 bytes; doubling would waste as much as it holds). 16 bytes on 64-bit.
class BitBuffer {
 public:
  BitBuffer() = default;
  BitBuffer(BitBuffer&&) noexcept = default;
  BitBuffer& operator=(BitBuffer&&) noexcept = default;

  void write(uint64_t value, unsigned bits);  ///< the low `bits` bits of `value`, most significant first
  void writeBit(bool bit);
  /// Gives back the unused tail (a closed chunk).
  void shrink();
  uint32_t bits() const { return bits_; }
  size_t capacityBytes() const { return capacity_; }
  const uint8_t* data() const { return data_.get(); }

 private:
  void reserveFor(uint32_t moreBits);
  std::unique_ptr<uint8_t[]> data_;
  uint32_t bits_ = 0;
  uint32_t capacity_ = 0;  ///< bytes
};

class BitReader {
 public:
  BitReader(const uint8_t* data, uint32_t bits) : data_(data), bits_(bits) {}
  bool readBit() {
    const bool b = (data_[pos_ >> 3] >> (7 - (pos_ & 7))) & 1;
    ++pos_;
    return b;
  }
  uint64_t read(unsigned bits);
  bool atEnd() const { return pos_ >= bits_; }

 private:
  const uint8_t* data_;
  uint32_t bits_;
  uint32_t pos_ = 0;
};

inline uint64_t doubleBits(double v) {
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}
inline double bitsDouble(uint64_t u) {
  double v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

/// Encoder state of one XOR stream (kept per series for its open chunk only).
struct XorState {
  uint64_t prev = 0;
  uint8_t leading = 0xff;  ///< 0xff: no window yet
  uint8_t trailing = 0;
};
/// Appends `value`; the first value of a chunk is written whole (`first`).
void xorAppend(BitBuffer& out, XorState& state, double value, bool first);
/// Decoder: the same state, advanced by one value.
double xorNext(BitReader& in, XorState& state, bool first);

/// Encoder state of one delta-of-delta timestamp stream (per collector, its open chunk).
struct DodState {
  int64_t prev = 0;
  int64_t prevDelta = 0;
};
/// Appends `t` (nanoseconds); the first timestamp of a chunk is written whole (`index` 0), the
/// second as a delta, the rest as deltas of deltas in variable-width buckets.
void dodAppend(BitBuffer& out, DodState& state, int64_t t, uint32_t index);
int64_t dodNext(BitReader& in, DodState& state, uint32_t index);

}  // namespace fabricmon
