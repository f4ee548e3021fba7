#include "sim/file_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace fabricmon::sim {

namespace fs = std::filesystem;

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status pwriteAll(int fd, std::string_view data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n =
        ::pwrite(fd, data.data() + done, data.size() - done, static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return sysError("pwrite " + path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

Status FileWriter::write(const fs::path& path, std::string_view text) {
  const std::string key = path.string();
  auto it = last_.find(key);
  if (it != last_.end() && it->second == text) return {};

  Fd fd(::open(key.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0) return sysError("open " + key, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return sysError("fstat " + key, errno);
  const auto oldSize = static_cast<size_t>(st.st_size);

  ++writes_;
  if (text.size() >= oldSize) {
    if (Status s = pwriteAll(fd.get(), text, key); !s) return s;
  } else {
    std::string padded(text);
    padded.resize(oldSize, '\n');
    if (Status s = pwriteAll(fd.get(), padded, key); !s) return s;
  }
  if (text.size() != oldSize && ::ftruncate(fd.get(), static_cast<off_t>(text.size())) != 0) {
    return sysError("ftruncate " + key, errno);
  }
  if (it != last_.end()) {
    it->second.assign(text);
  } else {
    last_.emplace(key, std::string(text));
  }
  return {};
}

Status FileWriter::replace(const fs::path& path, std::string_view text) {
  const std::string key = path.string();
  auto it = last_.find(key);
  if (it != last_.end() && it->second == text) return {};
  const std::string tmp = key + ".tmp";
  {
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0) return sysError("open " + tmp, errno);
    ++writes_;
    if (Status s = pwriteAll(fd.get(), text, tmp); !s) return s;
  }
  if (::rename(tmp.c_str(), key.c_str()) != 0) return sysError("rename " + tmp, errno);
  last_.insert_or_assign(key, std::string(text));
  return {};
}

Status FileWriter::append(const fs::path& path, std::string_view text) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (fd.get() < 0) return sysError("open " + path.string(), errno);
  ++writes_;
  const ssize_t n = ::write(fd.get(), text.data(), text.size());
  if (n < 0) return sysError("write " + path.string(), errno);
  if (static_cast<size_t>(n) != text.size()) return Error{"write " + path.string() + ": short write", EIO};
  return {};
}

Status FileWriter::symlink(const fs::path& target, const fs::path& link) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(link, ec))) {
    if (fs::read_symlink(link, ec) == target) return {};
    fs::remove(link, ec);
  }
  fs::create_symlink(target, link, ec);
  if (ec)
    return Error{"symlink " + link.string() + " -> " + target.string() + ": " + ec.message(),
                 ec.value()};
  return {};
}

Status FileWriter::makeDirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{"mkdir " + dir.string() + ": " + ec.message(), ec.value()};
  return {};
}

void FileWriter::forget(const std::filesystem::path& dir) {
  const std::string prefix = dir.string() + "/";
  std::erase_if(last_, [&](const auto& entry) { return entry.first.starts_with(prefix); });
}

}  // namespace fabricmon::sim
