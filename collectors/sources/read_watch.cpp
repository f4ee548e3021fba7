#include "collectors/sources/read_watch.hpp"

#include <algorithm>
#include <cstring>
#include <ctime>

namespace fabricmon {

namespace {
thread_local ReadWatch* tCurrent = nullptr;
}  // namespace

ReadWatch* currentReadWatch() { return tCurrent; }
void setCurrentReadWatch(ReadWatch* watch) { tCurrent = watch; }

void ReadWatch::begin(const char* kind, std::string_view prefix, std::string_view name) {
  // The end of a long target is what names the file: keep it.
  if (prefix.size() + name.size() > kMaxTarget) {
    const size_t cut = prefix.size() + name.size() - kMaxTarget;
    const size_t fromPrefix = std::min(cut, prefix.size());
    prefix.remove_prefix(fromPrefix);
    name.remove_prefix(cut - fromPrefix);
  }
  const size_t length = prefix.size() + name.size();
  // Assembled first, then stored a word at a time: this runs at every counter read.
  alignas(8) char bytes[kWords * 8];
  if (length > 0) std::memset(bytes + (length - 1) / 8 * 8, 0, 8);  // the last word's tail
  if (!prefix.empty()) std::memcpy(bytes, prefix.data(), prefix.size());
  if (!name.empty()) std::memcpy(bytes + prefix.size(), name.data(), name.size());
  // The coarse clock costs a fraction of the precise one and is late by at most a tick (a few
  // ms): nothing here is judged below a second.
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  const int64_t since = int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;

  const uint32_t s = seq_.load(std::memory_order_relaxed);
  seq_.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  for (size_t w = 0; w * 8 < length; ++w) {
    uint64_t word;
    std::memcpy(&word, bytes + w * 8, 8);
    text_[w].store(word, std::memory_order_relaxed);
  }
  length_.store(static_cast<uint32_t>(length), std::memory_order_relaxed);
  since_.store(since, std::memory_order_relaxed);
  kind_.store(kind, std::memory_order_relaxed);
  seq_.store(s + 2, std::memory_order_release);
}

void ReadWatch::end() {
  const uint32_t s = seq_.load(std::memory_order_relaxed);
  seq_.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  kind_.store(nullptr, std::memory_order_relaxed);
  seq_.store(s + 2, std::memory_order_release);
}

std::optional<ReadWatch::Waiting> ReadWatch::waiting() const {
  // A reader that meets a write in progress tries again; a read marked and ended in between is
  // not waiting any more, so a few tries that all collide mean nothing is stuck.
  for (int attempt = 0; attempt < 8; ++attempt) {
    const uint32_t before = seq_.load(std::memory_order_acquire);
    if (before & 1) continue;
    const char* kind = kind_.load(std::memory_order_relaxed);
    const int64_t since = since_.load(std::memory_order_relaxed);
    const size_t length = std::min<size_t>(length_.load(std::memory_order_relaxed), kMaxTarget);
    std::string target(length, '\0');
    for (size_t w = 0; w * 8 < length; ++w) {
      const uint64_t word = text_[w].load(std::memory_order_relaxed);
      std::memcpy(target.data() + w * 8, &word, std::min<size_t>(8, length - w * 8));
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq_.load(std::memory_order_relaxed) != before) continue;
    if (kind == nullptr) return std::nullopt;
    return Waiting{kind, std::move(target), Clock::time_point(Clock::duration(since))};
  }
  return std::nullopt;
}

}  // namespace fabricmon
