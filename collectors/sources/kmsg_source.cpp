// /dev/kmsg (kernel/printk/printk.c, devkmsg_read/devkmsg_llseek).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <iterator>
#include <string>

#include "collectors/sources/kernel_log_source.hpp"

namespace fabricmon {
namespace {

class KmsgSource final : public KernelLogSource {
 public:
  KmsgSource(std::string path, BacklogPriority priority)
      : path_(std::move(path)), origin_("kmsg:" + path_), priority_(std::move(priority)) {}
  ~KmsgSource() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status read(KernelLogRead& out, size_t max) override {
    if (fd_ < 0) {
      if (Status st = open(out); !st) return st;
    }
    // What the ring held at the open goes first (readBacklog).
    for (; !backlog_.empty() && max > 0; --max) {
      out.records.push_back(std::move(backlog_.front()));
      backlog_.pop_front();
    }
    for (size_t n = 0; n < max; ++n) {
      const ssize_t got = ::read(fd_, buffer_.data(), buffer_.size());
      if (got < 0) {
        const int err = errno;
        if (err == EAGAIN) break;  // nothing more now
        if (err == EINTR) continue;
        if (err == EPIPE) {
          // The ring overwrote records we had not read; the fd now points at the oldest one
          // left. How many went is known at the next record's sequence number.
          overrun_ = true;
          continue;
        }
        return sysError("read " + path_, err);
      }
      if (got == 0) break;
      auto record = parseKmsgRecord(std::string_view(buffer_.data(), static_cast<size_t>(got)));
      if (!record) {
        ++out.malformed;
        continue;
      }
      account(out, record->sequence);
      out.records.push_back(std::move(*record));
    }
    return {};
  }

  const std::string& origin() const override { return origin_; }

 private:
  Status open(KernelLogRead& out) {
    const auto now = std::chrono::steady_clock::now();
    if (denied_ && now - lastTry_ < std::chrono::minutes(1)) return Error{"no access to " + path_, EACCES};
    if (absent_ && now - lastTry_ < std::chrono::minutes(1)) return Error{"no kernel log at " + path_, ENODEV};
    lastTry_ = now;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      if ((err == EACCES || err == EPERM) && !denied_) {
        denied_ = true;
        out.accessDenied = true;
      }
      if (err == ENOENT || err == ENODEV || err == ENXIO) absent_ = true;
      return sysError("open " + path_ + (err == EACCES || err == EPERM ? " (needs CAP_SYSLOG)" : ""), err);
    }
    denied_ = false;
    // A container's /dev/kmsg is often a FIFO or /dev/null stand-in (systemd-nspawn makes it a FIFO
    // of the container's own writes): not the kernel's record interface, nothing to read here.
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 11)) {
      ::close(fd);
      absent_ = true;
      return Error{path_ + " is not the kernel log device (char 1:11): a container's stand-in?", ENODEV};
    }
    absent_ = false;
    readBacklog(fd);
    fd_ = fd;
    return {};
  }

  /// An open descriptor reads from the oldest record still in the ring (devkmsg_open(),
  /// kernel/printk/printk.c). Read to its end here, at the open: the kernel's records (facility 0)
  /// of the last kKernelLogBacklog are kept, at most kMaxBacklog of them (the newest, those `priority_`
  /// favours before the others), marked as the backlog, for the next read() to hand out first, so a
  /// NIC that failed at boot, or while the daemon was restarting, is not missed (the rule ages each
  /// record by its own time). Older records, and what user space wrote before the open (an earlier
  /// test's records), are passed over. The descriptor is then at the end, so a record logged from
  /// now on is read at the next poll, however large the ring. Records the ring overwrites meanwhile
  /// are not counted as lost: they were never news.
  void readBacklog(int fd) {
    timespec mono{};
    clock_gettime(CLOCK_MONOTONIC, &mono);
    const uint64_t nowUsec = uint64_t(mono.tv_sec) * 1000000 + uint64_t(mono.tv_nsec) / 1000;
    const uint64_t horizonUsec = std::chrono::duration_cast<std::chrono::microseconds>(kKernelLogBacklog).count();
    const uint64_t oldest = nowUsec > horizonUsec ? nowUsec - horizonUsec : 0;
    std::deque<KmsgRecord> favoured, others;
    for (size_t n = 0; n < kMaxBacklogReads; ++n) {
      const ssize_t got = ::read(fd, buffer_.data(), buffer_.size());
      if (got < 0 && (errno == EINTR || errno == EPIPE)) continue;
      if (got <= 0) break;  // EAGAIN: the end
      auto record = parseKmsgRecord(std::string_view(buffer_.data(), static_cast<size_t>(got)));
      if (!record) continue;
      haveSeq_ = true;
      nextSeq_ = record->sequence + 1;
      if (record->facility != 0 || record->timestampUsec < oldest) continue;
      record->backlog = true;
      (priority_ && priority_(record->message) ? favoured : others).push_back(std::move(*record));
      if (favoured.size() + others.size() > kMaxBacklog) (others.empty() ? favoured : others).pop_front();
    }
    overrun_ = false;
    // Handed out in the order the kernel logged them.
    backlog_.clear();
    std::merge(std::make_move_iterator(favoured.begin()), std::make_move_iterator(favoured.end()),
               std::make_move_iterator(others.begin()), std::make_move_iterator(others.end()),
               std::back_inserter(backlog_),
               [](const KmsgRecord& a, const KmsgRecord& b) { return a.sequence < b.sequence; });
  }

  void account(KernelLogRead& out, uint64_t seq) {
    if (haveSeq_ && seq > nextSeq_) {
      out.lost += seq - nextSeq_;
    } else if (!haveSeq_ && overrun_) {
      out.lost += 1;  // overrun before the first record: at least one went, how many is unknown
    }
    overrun_ = false;
    haveSeq_ = true;
    nextSeq_ = seq + 1;
  }

  /// The most backlog records kept: one run's worth (kMaxKernelRecordsPerRun), the newest.
  static constexpr size_t kMaxBacklog = 4096;
  /// More records than any ring holds (a 32 MiB log_buf_len of the shortest records); a log flooded
  /// faster than it is read ends the backlog there.
  static constexpr size_t kMaxBacklogReads = 1 << 20;
  std::string path_, origin_;
  BacklogPriority priority_;
  int fd_ = -1;
  bool denied_ = false;
  bool absent_ = false;  ///< no kernel log device here (a container): retried once a minute
  std::chrono::steady_clock::time_point lastTry_{};
  bool haveSeq_ = false;
  bool overrun_ = false;
  std::deque<KmsgRecord> backlog_;  ///< read at the open, not handed out yet
  uint64_t nextSeq_ = 0;
  std::string buffer_ = std::string(kKmsgReadBuffer, '\0');
};

}  // namespace

std::unique_ptr<KernelLogSource> makeKmsgSource(std::string path, BacklogPriority priority) {
  return std::make_unique<KmsgSource>(std::move(path), std::move(priority));
}

}  // namespace fabricmon
