#include "model/sample.hpp"

#include <atomic>

namespace fabricmon {

std::string_view Series::label(std::string_view name) const {
  for (const auto& [k, v] : labels) {
    if (k == name) return v;
  }
  return {};
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
    key += v;
    key += '"';
  }
  key += '}';
  bool plain = true;
  for (const auto& [k, v] : labels) {
    for (const unsigned char c : v) {
      if (c < 0x20 || c >= 0x7f || c == '\\' || c == '"') plain = false;
    }
  }
  static std::atomic<uint64_t> nextId{1};
  const uint64_t id = nextId.fetch_add(1, std::memory_order_relaxed);
  return std::make_shared<const Series>(Series{&family, std::move(labels), std::move(key), plain, id});
}

}  // namespace fabricmon
