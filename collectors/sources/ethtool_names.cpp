// The interned ethtool stat-name lists (ethtool_source.hpp): one list per distinct set of names,
// shared by every interface that reports it.

#include <algorithm>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "collectors/sources/ethtool_source.hpp"

namespace fabricmon {

namespace {

size_t hashNames(const EthtoolNames& names) {
  size_t h = names.size();
  for (const std::string& n : names) {
    h ^= std::hash<std::string_view>{}(n) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

// Lists by hash; weak, so a list no interface holds any more is freed, and its entry goes at the
// next sweep. Sweeps run when the table has doubled since the last one, so the table stays within
// twice the live lists (a handful: one per NIC model and firmware on the node).
struct Pool {
  std::mutex mu;
  std::unordered_multimap<size_t, std::weak_ptr<const EthtoolNames>> lists;
  size_t sweepAt = 16;
};

Pool& pool() {
  static Pool* p = new Pool();  // never destroyed: collectors may intern during static teardown
  return *p;
}

}  // namespace

EthtoolNamesPtr internEthtoolNames(EthtoolNames names) {
  const size_t h = hashNames(names);
  Pool& p = pool();
  std::lock_guard lock(p.mu);
  auto [b, e] = p.lists.equal_range(h);
  for (auto it = b; it != e; ++it) {
    if (auto live = it->second.lock(); live && *live == names) return live;
  }
  if (p.lists.size() >= p.sweepAt) {
    std::erase_if(p.lists, [](const auto& kv) { return kv.second.expired(); });
    p.sweepAt = std::max<size_t>(16, 2 * p.lists.size());
  }
  auto made = std::make_shared<const EthtoolNames>(std::move(names));
  p.lists.emplace(h, made);
  return made;
}

EthtoolStatPairs EthtoolStats::pairs() const {
  EthtoolStatPairs out;
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) out.emplace_back((*names)[i], values[i]);
  return out;
}

void EthtoolStats::assign(const EthtoolStatPairs& pairs) {
  EthtoolNames n;
  n.reserve(pairs.size());
  values.clear();
  for (const auto& [name, value] : pairs) {
    n.push_back(name);
    values.push_back(value);
  }
  names = n.empty() ? nullptr : internEthtoolNames(std::move(n));
}

}  // namespace fabricmon
