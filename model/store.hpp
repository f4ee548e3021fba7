#pragma once
// The store keeps the latest batch of every collector. Publishing builds a new immutable Snapshot and
// swaps a pointer, so readers (the exporter, the watchdog) never wait for a writer.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/sample.hpp"

namespace fabricmon {

struct Snapshot {
  std::map<std::string, BatchPtr> batches;  ///< latest batch per collector
  uint64_t generation = 0;                  ///< grows by one with every change
};
using SnapshotPtr = std::shared_ptr<const Snapshot>;

class Store {
 public:
  Store();

  /// Replaces the latest batch of `batch->collector`.
  void publish(BatchPtr batch);
  /// Drops a collector's batch (stale, or the collector was removed).
  void remove(const std::string& collector);
  /// The current snapshot; never blocks on a publisher.
  SnapshotPtr snapshot() const { return current_.load(std::memory_order_acquire); }

 private:
  std::mutex writeMutex_;  // serialises writers only
  std::atomic<SnapshotPtr> current_;
};

}  // namespace fabricmon
