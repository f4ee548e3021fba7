#include "model/sample.hpp"

#include <atomic>
#include <cctype>
#include <memory>
#include <mutex>
#include <unordered_map>

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

/// Every live series by its key, so that a series is identified once: building the same family and
/// labels again while the first is alive (a collector re-creating its series after a topology
/// change, two collectors emitting one series by mistake) returns the same object and id. An entry
/// leaves with the last reference to its series.
class SeriesTable {
 public:
  SeriesPtr intern(const FamilyDef& family, Labels labels, std::string key, bool plain) {
    SeriesPtr
        found;  // outlives the lock: a last reference dropped here must not run forget() under it
    std::lock_guard lock(mutex_);
    if (auto it = byKey_.find(key); it != byKey_.end()) {
      found = it->second.series.lock();
      if (found && found->family == &family) return found;
      // Another FamilyDef with the same name (only tests make one): the newer definition wins.
      byKey_.erase(it);
    }
    static std::atomic<uint64_t> nextId{1};
    const uint64_t id = nextId.fetch_add(1, std::memory_order_relaxed);
    // The key was built by appending; a series lives long, so it keeps no growth slack.
    key.shrink_to_fit();
    // One allocation for the series and its reference counts (make_shared), instead of the series
    // and a separate control block holding a deleter: ~50 bytes less per series, ~1.3 MiB at 128
    // devices (docs/benchmarks.md, "Memory per component").
    auto created = std::make_shared<const Interned>(
        Series{&family, std::move(key), id,
               plain ? nullptr : std::make_unique<const Labels>(std::move(labels))},
        this);
    const Series* raw = created.get();
    byKey_.emplace(std::string_view(raw->key), Entry{created, raw});
    return created;
  }

 private:
  /// A series that leaves the table with its last reference.
  struct Interned final : Series {
    Interned(Series s, SeriesTable* t) : Series(std::move(s)), table(t) {}
    Interned(const Interned&) = delete;
    Interned& operator=(const Interned&) = delete;
    ~Interned() { table->forget(this); }
    SeriesTable* table;
  };

  void forget(const Series* s) {
    std::lock_guard lock(mutex_);
    auto it = byKey_.find(s->key);
    if (it != byKey_.end() && it->second.raw == s) byKey_.erase(it);
  }

  struct Entry {
    std::weak_ptr<const Series> series;
    const Series* raw;  ///< which object the entry is for, even once `series` has expired
  };
  std::mutex mutex_;
  std::unordered_map<std::string_view, Entry> byKey_;  ///< keys view the series' own key
};

SeriesTable& seriesTable() {
  // Never destroyed: series with static storage duration may be released after main returns.
  static auto* const table = new SeriesTable;
  return *table;
}

}  // namespace

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
