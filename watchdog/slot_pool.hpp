#pragma once
// A pool of entries with an open-addressing index by key: History's tracked series (by key string)
// and its series ids use one. Written for memory (docs/benchmarks.md, "Fifth pass: watchdog
// history"): an entry costs itself plus a 4-byte slot number in an index at most 3/4 full; there is
// no node per entry and no copy of its key (the index hashes the key the entry holds).

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace fabricmon::watchdog {

/// Entries of T in fixed chunks of kChunk: an entry never moves while it is in the pool (pointers
/// to it stay valid until it is erased), and a freed slot is reused. The index holds slot numbers
/// by the entries' keys (linear probing, at most 3/4 full, backward-shift deletion).
///
/// Traits says what the pool does not know of T, as static functions:
///   bool live(const T& e)                 e holds an entry (a free slot is a T{})
///   K key(const T& e)                     e's key
///   size_t home(const Q& key, uint8_t b)  key's index position, in [0, 2^b); the same for the
///                                         stored key K and for every key type Q looked up
///   bool equal(const Q& key, const T& e)  key is e's key
template <class T, class Traits, uint32_t kChunk>
class SlotPool {
 public:
  /// The entry of `key`, or nullptr.
  template <class Q>
  T* find(const Q& key) const {
    if (index_.empty()) return nullptr;
    const size_t mask = index_.size() - 1;
    for (size_t i = Traits::home(key, bits_);; i = (i + 1) & mask) {
      if (index_[i] == kNone) return nullptr;
      if (T& e = at(index_[i]); Traits::equal(key, e)) return &e;
    }
  }

  /// Adds the entry of `key`, which is not in the pool (find first): a free slot (a T{}) to which
  /// `init` gives that key (Traits::key must read it back) and whatever else it sets.
  template <class Q, class Init>
  T& insert(const Q& key, Init&& init) {
    if (4 * (size_ + 1) > 3 * index_.size()) grow();
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      if (used_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<T[]>(kChunk));
      slot = used_++;
    }
    T& e = at(slot);
    init(e);
    place(Traits::home(key, bits_), slot);
    ++size_;
    return e;
  }

  /// Frees `e`, an entry of this pool; its slot becomes a T{}.
  void erase(T& e) {
    const size_t mask = index_.size() - 1;
    size_t i = Traits::home(Traits::key(e), bits_);
    while (&at(index_[i]) != &e) i = (i + 1) & mask;  // it is in the index
    free_.push_back(index_[i]);
    // Backward-shift deletion: move up every later entry of the probe run that may sit at i, so a
    // lookup never stops early at the hole.
    for (size_t j = (i + 1) & mask; index_[j] != kNone; j = (j + 1) & mask) {
      const size_t h = Traits::home(Traits::key(at(index_[j])), bits_);
      if (i <= j ? (i < h && h <= j) : (i < h || h <= j)) continue;  // its home is after the hole
      index_[i] = index_[j];
      i = j;
    }
    index_[i] = kNone;
    e = T{};
    --size_;
  }

  /// Calls f on every entry, in slot order.
  template <class F>
  void forEach(F&& f) {
    for (uint32_t i = 0; i < used_; ++i) {
      if (T& e = at(i); Traits::live(e)) f(e);
    }
  }

  /// Frees every entry for which `gone` is true.
  template <class F>
  void eraseIf(F&& gone) {
    for (uint32_t i = 0; i < used_; ++i) {
      if (T& e = at(i); Traits::live(e) && gone(e)) erase(e);
    }
  }

  /// Frees every entry, keeping the memory; slots are then reused lowest first.
  void clear() {
    forEach([](T& e) { e = T{}; });
    free_.clear();
    for (uint32_t slot = used_; slot-- > 0;) free_.push_back(slot);
    std::fill(index_.begin(), index_.end(), kNone);
    size_ = 0;
  }

  size_t size() const { return size_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  T& at(uint32_t slot) const { return chunks_[slot / kChunk][slot % kChunk]; }

  void place(size_t i, uint32_t slot) {
    const size_t mask = index_.size() - 1;
    while (index_[i] != kNone) i = (i + 1) & mask;
    index_[i] = slot;
  }

  /// Doubles the index (at least 64) and places every entry again.
  void grow() {
    std::vector<uint32_t> old(std::max<size_t>(64, 2 * index_.size()), kNone);
    old.swap(index_);
    bits_ = static_cast<uint8_t>(std::countr_zero(index_.size()));
    for (uint32_t slot : old) {
      if (slot != kNone) place(Traits::home(Traits::key(at(slot)), bits_), slot);
    }
  }

  std::vector<std::unique_ptr<T[]>> chunks_;
  uint32_t used_ = 0;            ///< slots handed out at least once
  std::vector<uint32_t> free_;   ///< freed slots, reused last freed first
  std::vector<uint32_t> index_;  ///< slots by home(key); kNone = empty; size a power of 2
  uint8_t bits_ = 0;             ///< log2 of index_.size()
  size_t size_ = 0;
};

}  // namespace fabricmon::watchdog
