// A file of kmsg-formatted records: the simulator's node and the demo write their kernel log here,
// so they need no root. Read from the start, then only what was appended; a file that shrank or was
// replaced is read again from its start.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/sources/kernel_log_source.hpp"

namespace fabricmon {

std::vector<std::string_view> splitKmsgText(std::string_view text, size_t& consumed) {
  std::vector<std::string_view> records;
  consumed = 0;
  size_t start = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;  // an incomplete line: wait for the rest
    pos = nl + 1;
    // The record goes on while the next line is a continuation (starts with a space). Writers
    // append a record with its dictionary in one write(), so text that ends after a newline ends
    // a record.
    if (pos < text.size() && text[pos] == ' ') continue;
    if (pos == text.size()) {
      records.push_back(text.substr(start, pos - start));
      consumed = pos;
      break;
    }
    records.push_back(text.substr(start, pos - start));
    start = pos;
    consumed = pos;
  }
  return records;
}

namespace {

class KmsgFileSource final : public KernelLogSource {
 public:
  explicit KmsgFileSource(std::string path) : path_(std::move(path)), origin_("file:" + path_) {}

  Status read(KernelLogRead& out, size_t max) override {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      if (err == ENOENT) return {};  // nothing logged yet
      return sysError("open " + path_, err);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return Error{path_ + ": not a regular file", EINVAL};
    }
    if (st.st_ino != inode_ || static_cast<uint64_t>(st.st_size) < offset_) {
      inode_ = st.st_ino;  // replaced or truncated: start over
      offset_ = 0;
      pending_.clear();
    }
    char buf[65536];
    // Bounded per call: a huge file is read over several polls.
    for (int chunk = 0; chunk < 64; ++chunk) {
      const ssize_t got = ::pread(fd, buf, sizeof buf, static_cast<off_t>(offset_));
      if (got <= 0) break;
      pending_.append(buf, static_cast<size_t>(got));
      offset_ += static_cast<uint64_t>(got);
    }
    ::close(fd);
    size_t consumed = 0;
    const auto records = splitKmsgText(pending_, consumed);
    size_t used = 0;
    size_t n = 0;
    for (std::string_view text : records) {
      if (n++ >= max) break;
      used += text.size();
      auto record = parseKmsgRecord(text);
      if (!record) {
        ++out.malformed;
        continue;
      }
      if (haveSeq_ && record->sequence > nextSeq_) out.lost += record->sequence - nextSeq_;
      haveSeq_ = true;
      nextSeq_ = record->sequence + 1;
      out.records.push_back(std::move(*record));
    }
    pending_.erase(0, used);
    if (pending_.size() > (1u << 20)) pending_.clear();  // a line that never ends: not a record
    return {};
  }

  const std::string& origin() const override { return origin_; }

 private:
  std::string path_, origin_;
  ino_t inode_ = 0;
  uint64_t offset_ = 0;
  std::string pending_;
  bool haveSeq_ = false;
  uint64_t nextSeq_ = 0;
};

}  // namespace

std::unique_ptr<KernelLogSource> makeKmsgFileSource(std::string path) {
  return std::make_unique<KmsgFileSource>(std::move(path));
}

}  // namespace fabricmon
