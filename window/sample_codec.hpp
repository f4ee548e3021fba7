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
///
/// Bytes past the ones it holds read as zero: zero bits are counted but not stored, shrink() (a
/// closed chunk) drops the growth slack and trailing zero bytes, and up to kInlineBytes held bytes
/// live inside the object with no allocation. A chunk of a series that stands still is its first
/// value and then zero bits, so it holds at most the 8 bytes of that value and no heap block, open
/// or closed.
class BitBuffer {
 public:
  static constexpr uint32_t kInlineBytes = 8;

  BitBuffer() = default;
  ~BitBuffer() { release(); }
  BitBuffer(const BitBuffer&) = delete;
  BitBuffer& operator=(const BitBuffer&) = delete;
  BitBuffer(BitBuffer&& o) noexcept : word_(o.word_), bits_(o.bits_), capacity_(o.capacity_) { o.forget(); }
  BitBuffer& operator=(BitBuffer&& o) noexcept {
    if (this != &o) {
      release();
      word_ = o.word_;
      bits_ = o.bits_;
      capacity_ = o.capacity_;
      o.forget();
    }
    return *this;
  }

  void write(uint64_t value, unsigned bits);  ///< the low `bits` bits of `value`, most significant first
  void writeBit(bool bit);
  /// Gives back the unused tail and the trailing zero bytes (a closed chunk); writing may go on.
  void shrink();
  uint32_t bits() const { return bits_; }
  /// Bytes held; the rest of the bits() read as zero.
  uint32_t heldBytes() const { return onHeap() ? capacity_ : kInlineBytes; }
  /// Bytes of its heap block (0 while the bytes live inline).
  size_t heapBytes() const { return onHeap() ? capacity_ : 0; }
  const uint8_t* data() const {
    return onHeap() ? reinterpret_cast<const uint8_t*>(word_) : reinterpret_cast<const uint8_t*>(&word_);
  }

 private:
  bool onHeap() const { return capacity_ > kInlineBytes; }
  uint8_t* bytes() { return onHeap() ? reinterpret_cast<uint8_t*>(word_) : reinterpret_cast<uint8_t*>(&word_); }
  void reserveFor(uint32_t moreBits);
  void release() {
    if (onHeap()) delete[] reinterpret_cast<uint8_t*>(word_);
  }
  void forget() {
    word_ = 0;
    bits_ = 0;
    capacity_ = 0;
  }
  /// The heap block's address while capacity_ > kInlineBytes; else the held bytes themselves.
  uintptr_t word_ = 0;
  uint32_t bits_ = 0;
  uint32_t capacity_ = 0;  ///< bytes of the heap block; <= kInlineBytes: inline
};
static_assert(sizeof(uintptr_t) == BitBuffer::kInlineBytes, "the inline bytes share the pointer's word");

class BitReader {
 public:
  explicit BitReader(const BitBuffer& buf) : data_(buf.data()), bits_(buf.bits()), held_(buf.heldBytes()) {}
  bool readBit() {
    const bool b = (byteAt(pos_ >> 3) >> (7 - (pos_ & 7))) & 1;
    ++pos_;
    return b;
  }
  uint64_t read(unsigned bits);
  bool atEnd() const { return pos_ >= bits_; }

 private:
  uint8_t byteAt(uint32_t i) const { return i < held_ ? data_[i] : 0; }
  const uint8_t* data_;
  uint32_t bits_;
  uint32_t held_;
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
