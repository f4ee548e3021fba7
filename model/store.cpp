#include "model/store.hpp"

namespace fabricmon {

Store::Store() : current_(std::make_shared<const Snapshot>()) {}

void Store::publish(BatchPtr batch) {
  std::lock_guard lock(writeMutex_);
  auto next = std::make_shared<Snapshot>(*current_.load(std::memory_order_acquire));
  next->batches[batch->collector] = std::move(batch);
  ++next->generation;
  current_.store(std::move(next), std::memory_order_release);
}

void Store::remove(const std::string& collector) {
  std::lock_guard lock(writeMutex_);
  auto prev = current_.load(std::memory_order_acquire);
  if (prev->batches.find(collector) == prev->batches.end()) return;
  auto next = std::make_shared<Snapshot>(*prev);
  next->batches.erase(collector);
  ++next->generation;
  current_.store(std::move(next), std::memory_order_release);
}

}  // namespace fabricmon
