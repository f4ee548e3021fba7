#include "model/sample.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <memory>
#include <mutex>
#include <vector>

namespace fabricmon {

std::string_view Series::label(std::string_view name) const {
  for (const auto& [k, v] : labels()) {
    if (k == name) return v;
  }
  return {};
}

// A plain key is `<family>{<name>="<value>",...}` (or `<family>{}`), names and values verbatim: a
// label starts after the `{` or a `,` and ends at the closing quote of its value, which a plain value
// cannot hold.
LabelView::iterator LabelView::begin() const {
  if (!series_->plainKey()) return iterator(series_, 0);
  return iterator(series_, series_->family->name.size() + 1);
}

LabelView::iterator LabelView::end() const {
  if (!series_->plainKey()) return iterator(series_, series_->escaped->size());
  return iterator(series_, series_->key.size() - 1);
}

size_t LabelView::size() const {
  size_t n = 0;
  for (auto it = begin(), e = end(); it != e; ++it) ++n;
  return n;
}

Labels LabelView::copy() const {
  Labels out;
  for (const auto& [k, v] : *this) out.emplace_back(k, v);
  return out;
}

void LabelView::iterator::load() {
  if (!series_) return;
  if (!series_->plainKey()) {
    const Labels& l = *series_->escaped;
    if (pos_ < l.size()) cur_ = {l[pos_].first, l[pos_].second};
    next_ = pos_ + 1;
    return;
  }
  const std::string_view key = series_->key;
  if (pos_ >= key.size() - 1) return;  // the closing brace: end
  const size_t eq = key.find('=', pos_);
  const size_t close = key.find('"', eq + 2);
  cur_ = {key.substr(pos_, eq - pos_), key.substr(eq + 2, close - eq - 2)};
  next_ = close + 1 < key.size() - 1 ? close + 2 : close + 1;  // past `",` or onto the `}`
}

void LabelView::iterator::advance() {
  pos_ = next_;
  load();
}

namespace {

class SeriesTable;
SeriesTable& seriesTable();

/// Every live series by its key, so that a series is identified once: building the same family and
/// labels again while the first is alive (a collector re-creating its series after a topology
/// change, two collectors emitting one series by mistake) returns the same object and id. An entry
/// leaves with the last reference to its series.
///
/// An open-addressing table of pointers (linear probing, at most 3/4 full, backward-shift erase):
/// ~11-21 bytes an entry where an unordered_map node with a weak_ptr took ~72, and the series
/// knows its own weak reference (enable_shared_from_this) in the 16 bytes the table pointer and a
/// separate weak_ptr took before. ~60 bytes less per series, ~1.8 MiB at 128 devices
/// (docs/benchmarks.md, "Sixth pass").
class SeriesTable {
 public:
  SeriesPtr intern(const FamilyDef& family, Labels labels, std::string key, bool plain) {
    SeriesPtr
        found;  // outlives the lock: a last reference dropped here must not run forget() under it
    std::lock_guard lock(mutex_);
    size_t at = find(key);
    if (at != kAbsent) {
      // weak_from_this() of the non-const object: a weak_ptr<const T> made from it would lock() to
      // convert, and that temporary's release could destroy the series here, under the lock.
      found = slots_[at]->weak_from_this().lock();
      if (found && found->family == &family) return found;
      // Dying (its last reference is gone and its forget() waits for the lock), or another
      // FamilyDef with the same name (only tests make one): the new series takes the entry, and
      // forget() of the old one then finds another object there and leaves it.
    }
    static std::atomic<uint64_t> nextId{1};
    const uint64_t id = nextId.fetch_add(1, std::memory_order_relaxed);
    // The key was built by appending; a series lives long, so it keeps no growth slack.
    key.shrink_to_fit();
    // One allocation for the series and its reference counts (make_shared), instead of the series
    // and a separate control block holding a deleter: ~50 bytes less per series, ~1.3 MiB at 128
    // devices (docs/benchmarks.md, "Memory per component").
    auto created = std::make_shared<Interned>(Series{&family, std::move(key), id,
                                                     plain ? nullptr : std::make_unique<const Labels>(std::move(labels))});
    if (at != kAbsent) {
      slots_[at] = created.get();
    } else {
      insert(created.get());
    }
    return created;
  }

 private:
  /// A series that leaves the table with its last reference.
  struct Interned final : Series, std::enable_shared_from_this<Interned> {
    explicit Interned(Series s) : Series(std::move(s)) {}
    Interned(const Interned&) = delete;
    Interned& operator=(const Interned&) = delete;
    // Runs before the members go: the key is still there to find the entry by.
    ~Interned() { seriesTable().forget(this); }
  };
  friend SeriesTable& seriesTable();

  static constexpr size_t kAbsent = static_cast<size_t>(-1);
  static constexpr size_t kMinSlots = 64;

  static size_t hashOf(std::string_view key) { return std::hash<std::string_view>{}(key); }

  size_t find(std::string_view key) const {
    if (slots_.empty()) return kAbsent;
    const size_t mask = slots_.size() - 1;
    for (size_t i = hashOf(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == nullptr) return kAbsent;
      if (slots_[i]->key == key) return i;
    }
  }

  void insert(Interned* s) {
    if ((count_ + 1) * 4 > slots_.size() * 3) resize(std::max(kMinSlots, slots_.size() * 2));
    place(s);
    ++count_;
  }

  void place(Interned* s) {
    const size_t mask = slots_.size() - 1;
    size_t i = hashOf(s->key) & mask;
    while (slots_[i] != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
  }

  void resize(size_t size) {
    std::vector<Interned*> old(size, nullptr);
    old.swap(slots_);
    for (Interned* s : old) {
      if (s != nullptr) place(s);
    }
  }

  void forget(const Interned* s) {
    std::lock_guard lock(mutex_);
    const size_t at = find(s->key);
    if (at == kAbsent || slots_[at] != s) return;
    // Backward-shift deletion: later entries of the probe run move up, so no tombstones.
    const size_t mask = slots_.size() - 1;
    size_t hole = at;
    for (size_t i = (hole + 1) & mask; slots_[i] != nullptr; i = (i + 1) & mask) {
      const size_t home = hashOf(slots_[i]->key) & mask;
      // Move i into the hole unless its home lies cyclically in (hole, i].
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        slots_[hole] = slots_[i];
        hole = i;
      }
    }
    slots_[hole] = nullptr;
    --count_;
    // A table that emptied (a large topology gone) gives its memory back.
    if (slots_.size() > kMinSlots && count_ * 8 < slots_.size()) resize(slots_.size() / 2);
  }

  std::mutex mutex_;
  std::vector<Interned*> slots_;  ///< nullptr = free; sized a power of two
  size_t count_ = 0;
};

SeriesTable& seriesTable() {
  // Never destroyed: series with static storage duration may be released after main returns.
  static auto* const table = new SeriesTable;
  return *table;
}

}  // namespace

SampleWriter::SampleWriter(Batch& batch, SeriesRosterPtr previous)
    : batch_(batch), previous_(std::move(previous)) {
  // Shared from the start: the samples' series are then alive whether or not finish() is called.
  batch_.roster = previous_;
  if (previous_) batch_.samples.reserve(previous_->series.size());
}

void SampleWriter::add(const SeriesPtr& series, double value) {
  // The roster takes the series before the sample points at it: an allocation that throws leaves
  // the roster longer than the samples, never shorter.
  if (!own_) {
    if (previous_ && matched_ < previous_->series.size() && previous_->series[matched_].get() == series.get()) {
      ++matched_;
      batch_.samples.push_back(Sample{series.get(), value});
      return;
    }
    diverge();
  }
  own_->series.push_back(series);
  batch_.samples.push_back(Sample{series.get(), value});
}

void SampleWriter::diverge() {
  own_ = std::make_shared<SeriesRoster>();
  own_->series.reserve(std::max({previous_ ? previous_->series.size() : 0, matched_ + 1, batch_.samples.capacity()}));
  if (previous_) {
    own_->series.assign(previous_->series.begin(), previous_->series.begin() + static_cast<std::ptrdiff_t>(matched_));
  }
  batch_.roster = own_;
}

const SeriesRosterPtr& SampleWriter::finish() {
  reused_ = false;
  if (!own_) {
    if (previous_ && matched_ == previous_->series.size()) {
      reused_ = true;
      return batch_.roster;
    }
    diverge();  // fewer samples than before: a roster of just the matched part
  }
  own_->series.shrink_to_fit();
  return batch_.roster;
}

SeriesPtr makeSeries(const FamilyDef& family, Labels labels) {
  std::string key(family.name);
  key += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) key += ',';
    first = false;
    key += k;
    key += "=\"";
    // Escaped as in the text format, so two label sets never share a key.
    for (const char c : v) {
      if (c == '\\' || c == '"') {
        key += '\\';
        key += c;
      } else if (c == '\n') {
        key += "\\n";
      } else {
        key += c;
      }
    }
    key += '"';
  }
  key += '}';
  bool plain = true;
  for (const auto& [k, v] : labels) {
    for (const unsigned char c : v) {
      if (c < 0x20 || c >= 0x7f || c == '\\' || c == '"') plain = false;
    }
    // A name is read back out of a plain key up to its `=`.
    if (k.empty()) plain = false;
    for (const unsigned char c : k) {
      if (!std::isalnum(c) && c != '_') plain = false;
    }
  }
  return seriesTable().intern(family, std::move(labels), std::move(key), plain);
}

}  // namespace fabricmon
