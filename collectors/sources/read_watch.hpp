#pragma once
// What a collector's thread is waiting for in the kernel right now. A NIC whose firmware stopped
// answering commands does not fail a read at once: the driver's command waits for its own timeout
// (mlx5: 60 s per command, MLX5_CMD_TIMEOUT_MSEC in include/linux/mlx5/driver.h; bnxt_en: the
// HWRM timeout), and the read of a sysfs counter, an ethtool call or a netlink request that needs
// the firmware blocks in the meantime. The job on that NIC is stuck from the same moment. So every
// read that may reach a NIC's firmware marks itself here (WatchedRead), and another thread asks how
// long the current one has been waiting (docs/rules.md, "nic_unresponsive").
//
// One ReadWatch per collector thread. The reading thread writes, any thread reads: a sequence lock
// over atomic words, so marking a read costs a few stores and never a lock (it runs ~6,000 times
// a second at 128 devices).

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fabricmon {

class ReadWatch {
 public:
  using Clock = std::chrono::steady_clock;
  /// The longest target kept; a longer one keeps its end, which names the file.
  static constexpr size_t kMaxTarget = 248;

  struct Waiting {
    std::string_view kind;  ///< "read", "ethtool ioctl", ... (a string literal)
    std::string target;     ///< a sysfs path, or class/net/<interface> for an interface's calls
    Clock::time_point since;  ///< CLOCK_MONOTONIC_COARSE: up to a tick (a few ms) early
  };

  /// Marks the start of a read; `kind` must be a string literal (it is kept by pointer).
  void begin(const char* kind, std::string_view prefix, std::string_view name);
  void end();
  /// The read in progress, if any. Never blocks the reading thread.
  std::optional<Waiting> waiting() const;

 private:
  static constexpr size_t kWords = (kMaxTarget + 7) / 8;
  std::atomic<uint32_t> seq_{0};  ///< odd while the reading thread writes
  std::atomic<const char*> kind_{nullptr};  ///< nullptr: no read in progress
  std::atomic<int64_t> since_{0};
  std::atomic<uint32_t> length_{0};
  std::array<std::atomic<uint64_t>, kWords> text_{};
};

/// The calling thread's watch (nullptr: this thread's reads are not watched).
ReadWatch* currentReadWatch();
void setCurrentReadWatch(ReadWatch* watch);

/// Marks one read on the calling thread's watch for its lifetime. Does nothing on a thread without
/// a watch, so sources need not know who calls them.
class WatchedRead {
 public:
  WatchedRead(const char* kind, std::string_view prefix, std::string_view name = {})
      : watch_(currentReadWatch()) {
    if (watch_ != nullptr) watch_->begin(kind, prefix, name);
  }
  ~WatchedRead() {
    if (watch_ != nullptr) watch_->end();
  }
  WatchedRead(const WatchedRead&) = delete;
  WatchedRead& operator=(const WatchedRead&) = delete;

 private:
  ReadWatch* watch_;
};

}  // namespace fabricmon
