#include "window/sample_codec.hpp"

#include <algorithm>
#include <bit>

namespace fabricmon {

void BitBuffer::reserveFor(uint32_t moreBits) {
  const uint64_t needBytes = (uint64_t(bits_) + moreBits + 7) / 8;
  const uint32_t held = heldBytes();
  if (needBytes <= held) return;
  // Grow by a quarter, at least 16 bytes: a chunk ends at most ~25 % over its size until shrink().
  const uint32_t cap = uint32_t(std::max<uint64_t>(needBytes, held + std::max<uint32_t>(16, held / 4)));
  auto* grown = new uint8_t[cap]();  // zeroed: bytes not held read as zero
  std::memcpy(grown, data(), held);
  release();
  word_ = reinterpret_cast<uintptr_t>(grown);
  capacity_ = cap;
}

// Zero bits take no storage: bytes past the held ones read as zero, so a series that stands still
// (a '0' bit per sample after its first value) never grows its chunk past the inline bytes.
void BitBuffer::writeBit(bool bit) {
  if (bit) {
    reserveFor(1);
    bytes()[bits_ >> 3] |= uint8_t(0x80u >> (bits_ & 7));
  }
  ++bits_;
}

void BitBuffer::write(uint64_t value, unsigned bits) {
  if (bits < 64) value &= (uint64_t(1) << bits) - 1;
  if (value == 0) {
    bits_ += bits;
    return;
  }
  reserveFor(bits);
  uint8_t* out = bytes();
  while (bits > 0) {
    const unsigned free = 8 - (bits_ & 7);
    const unsigned n = std::min(free, bits);
    const uint8_t part = uint8_t((value >> (bits - n)) & ((1u << n) - 1));
    out[bits_ >> 3] |= uint8_t(part << (free - n));
    bits_ += n;
    bits -= n;
  }
}

void BitBuffer::shrink() {
  const uint8_t* in = data();
  uint32_t used = std::min((bits_ + 7) / 8, heldBytes());
  while (used > 0 && in[used - 1] == 0) --used;  // read back as zero anyway
  if (used <= kInlineBytes) {
    uintptr_t word = 0;
    std::memcpy(&word, in, used);
    release();
    word_ = word;
    capacity_ = 0;
    return;
  }
  if (used == capacity_) return;
  auto* exact = new uint8_t[used];
  std::memcpy(exact, in, used);
  release();
  word_ = reinterpret_cast<uintptr_t>(exact);
  capacity_ = used;
}

uint64_t BitReader::read(unsigned bits) {
  uint64_t v = 0;
  while (bits > 0) {
    const unsigned avail = 8 - (pos_ & 7);
    const unsigned n = std::min(avail, bits);
    const uint8_t byte = byteAt(pos_ >> 3);
    v = (v << n) | ((byte >> (avail - n)) & ((1u << n) - 1));
    pos_ += n;
    bits -= n;
  }
  return v;
}

void xorAppend(BitBuffer& out, XorState& s, double value, bool first) {
  const uint64_t u = doubleBits(value);
  if (first) {
    out.write(u, 64);
    s = XorState{u, 0xff, 0};
    return;
  }
  const uint64_t x = u ^ s.prev;
  s.prev = u;
  if (x == 0) {
    out.writeBit(false);  // '0': the same value (a counter standing still)
    return;
  }
  out.writeBit(true);
  // Leading zeros fit 5 bits (capped at 31); the meaningful length 1..64 is written as 6 bits, 64 as 0.
  const unsigned leading = std::min(31, std::countl_zero(x));
  const unsigned trailing = unsigned(std::countr_zero(x));
  if (s.leading != 0xff && leading >= s.leading && trailing >= s.trailing) {
    out.writeBit(false);  // '10': inside the previous window
    const unsigned sig = 64 - s.leading - s.trailing;
    out.write(x >> s.trailing, sig);
    return;
  }
  out.writeBit(true);  // '11': a new window
  const unsigned sig = 64 - leading - trailing;
  out.write(leading, 5);
  out.write(sig & 63, 6);
  out.write(x >> trailing, sig);
  s.leading = uint8_t(leading);
  s.trailing = uint8_t(trailing);
}

double xorNext(BitReader& in, XorState& s, bool first) {
  if (first) {
    s = XorState{in.read(64), 0xff, 0};
    return bitsDouble(s.prev);
  }
  if (!in.readBit()) return bitsDouble(s.prev);
  if (in.readBit()) {
    s.leading = uint8_t(in.read(5));
    unsigned sig = unsigned(in.read(6));
    if (sig == 0) sig = 64;
    s.trailing = uint8_t(64 - s.leading - sig);
  }
  const unsigned sig = 64 - s.leading - s.trailing;
  s.prev ^= in.read(sig) << s.trailing;
  return bitsDouble(s.prev);
}

namespace {

// Delta-of-delta buckets for nanosecond timestamps of a collector run: scheduling jitter of a 1 s
// timer is microseconds to a few milliseconds (Gorilla's buckets are for seconds, Prometheus's for
// milliseconds; these are theirs scaled to nanoseconds). Shared by every series of the batch.
struct Bucket {
  unsigned prefixBits;
  uint64_t prefix;
  unsigned bits;
};
constexpr Bucket kBuckets[] = {{2, 0b10, 16}, {3, 0b110, 24}, {4, 0b1110, 36}};

bool fits(int64_t v, unsigned bits) {
  const int64_t lim = int64_t(1) << (bits - 1);
  return v >= -lim && v < lim;
}

int64_t signExtend(uint64_t v, unsigned bits) {
  const uint64_t m = uint64_t(1) << (bits - 1);
  return int64_t((v ^ m) - m);
}

}  // namespace

void dodAppend(BitBuffer& out, DodState& s, int64_t t, uint32_t index) {
  if (index == 0) {
    out.write(uint64_t(t), 64);
    s = DodState{t, 0};
    return;
  }
  const int64_t delta = t - s.prev;
  if (index == 1) {
    out.write(uint64_t(delta), 64);
  } else {
    const int64_t dod = delta - s.prevDelta;
    if (dod == 0) {
      out.writeBit(false);
    } else {
      bool done = false;
      for (const Bucket& b : kBuckets) {
        if (fits(dod, b.bits)) {
          out.write(b.prefix, b.prefixBits);
          out.write(uint64_t(dod), b.bits);
          done = true;
          break;
        }
      }
      if (!done) {
        out.write(0b1111, 4);
        out.write(uint64_t(dod), 64);
      }
    }
  }
  s.prevDelta = delta;
  s.prev = t;
}

int64_t dodNext(BitReader& in, DodState& s, uint32_t index) {
  if (index == 0) {
    s = DodState{int64_t(in.read(64)), 0};
    return s.prev;
  }
  int64_t delta;
  if (index == 1) {
    delta = int64_t(in.read(64));
  } else {
    int64_t dod = 0;
    if (in.readBit()) {
      unsigned ones = 1;
      while (ones < 4 && in.readBit()) ++ones;
      if (ones == 4) {
        dod = int64_t(in.read(64));
      } else {
        const unsigned bits = kBuckets[ones - 1].bits;
        dod = signExtend(in.read(bits), bits);
      }
    }
    delta = s.prevDelta + dod;
  }
  s.prevDelta = delta;
  s.prev += delta;
  return s.prev;
}

}  // namespace fabricmon
