#pragma once
// An ordered set of named counters: one counters/ or hw_counters/ directory, or one `ethtool -S`
// listing. Order matters only for ethtool text, which prints stats in the driver's order.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/counter.hpp"

namespace fabricmon::sim {

class StatTable {
 public:
  /// Appends a stat; `bits` < 64 saturates. A gauge (outbound_pci_stalled_rd) is set, not added to.
  void add(std::string name, unsigned bits = 64, uint64_t start = 0, bool gauge = false) {
    index_.emplace(name, entries_.size());
    entries_.push_back(Entry{std::move(name), Counter(bits, start), gauge});
  }

  bool has(std::string_view name) const { return index_.count(std::string(name)) != 0; }
  /// The counter called `name`; the name must exist (the simulator only touches names it created).
  Counter& operator[](std::string_view name) {
    return entries_.at(index_.at(std::string(name))).counter;
  }
  const Counter& operator[](std::string_view name) const {
    return entries_.at(index_.at(std::string(name))).counter;
  }
  /// Adds `amount` when the stat exists (IB ports lack the RoCE-only names).
  void addIf(std::string_view name, double amount) {
    auto it = index_.find(std::string(name));
    if (it != index_.end()) entries_[it->second].counter.add(amount);
  }

  struct Entry {
    std::string name;
    Counter counter;
    bool gauge = false;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<Entry>& entries() { return entries_; }

 private:
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace fabricmon::sim
