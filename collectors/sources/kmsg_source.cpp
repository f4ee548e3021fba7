// /dev/kmsg (kernel/printk/printk.c, devkmsg_read/devkmsg_llseek).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>

#include "collectors/sources/kernel_log_source.hpp"

namespace fabricmon {
namespace {

class KmsgSource final : public KernelLogSource {
 public:
  explicit KmsgSource(std::string path) : path_(std::move(path)), origin_("kmsg:" + path_) {}
  ~KmsgSource() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status read(KernelLogRead& out, size_t max) override {
    if (fd_ < 0) {
      if (Status st = open(out); !st) return st;
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
      record->backlog = backlogEnd_ && record->sequence <= *backlogEnd_;
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
    // An open descriptor reads from the oldest record still in the ring (devkmsg_open(),
    // kernel/printk/printk.c): that backlog is read first, so a NIC that failed at boot, or while the
    // daemon was restarting, is not missed (the rule ages each record by its own time). Where the
    // backlog ends is the newest record's sequence number now; without it, reading starts after the
    // last record, as it did before there was a backlog.
    backlogEnd_ = newestSequence();
    if (!backlogEnd_ && ::lseek(fd, 0, SEEK_END) < 0) {
      const int err = errno;
      ::close(fd);
      return sysError("seek " + path_, err);
    }
    fd_ = fd;
    return {};
  }

  /// The sequence number of the newest record in the ring, read through a descriptor of its own
  /// (the interface tells it no other way); nullopt when the ring is empty or cannot be read.
  std::optional<uint64_t> newestSequence() {
    const int probe = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (probe < 0) return std::nullopt;
    std::optional<uint64_t> newest;
    // Bounded: a log flooded faster than it is read would keep the probe going.
    for (size_t n = 0; n < kMaxProbeReads; ++n) {
      const ssize_t got = ::read(probe, buffer_.data(), buffer_.size());
      if (got < 0 && (errno == EINTR || errno == EPIPE)) continue;  // EPIPE: overwritten meanwhile
      if (got <= 0) break;  // EAGAIN: the end
      if (auto r = parseKmsgRecord(std::string_view(buffer_.data(), static_cast<size_t>(got)))) newest = r->sequence;
    }
    ::close(probe);
    return newest;
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

  /// More records than any ring holds (a 32 MiB log_buf_len of the shortest records).
  static constexpr size_t kMaxProbeReads = 1 << 20;
  std::string path_, origin_;
  int fd_ = -1;
  bool denied_ = false;
  bool absent_ = false;  ///< no kernel log device here (a container): retried once a minute
  std::chrono::steady_clock::time_point lastTry_{};
  bool haveSeq_ = false;
  bool overrun_ = false;
  /// The newest record's sequence number when the log was opened: records up to it are the backlog.
  std::optional<uint64_t> backlogEnd_;
  uint64_t nextSeq_ = 0;
  std::string buffer_ = std::string(kKmsgReadBuffer, '\0');
};

}  // namespace

std::unique_ptr<KernelLogSource> makeKmsgSource(std::string path) {
  return std::make_unique<KmsgSource>(std::move(path));
}

}  // namespace fabricmon
