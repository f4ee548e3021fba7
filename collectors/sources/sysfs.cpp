#include "collectors/sources/sysfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <memory>

#include "collectors/sources/parse.hpp"

namespace fabricmon {

namespace {

// Large enough for any sysfs attribute (the kernel caps them at one page).
constexpr size_t kMaxTextFile = 64 * 1024;

Result<std::string> readAll(int fd, const std::string& path) {
  std::string out;
  std::array<char, 4096> chunk;
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return sysError("read " + path, errno);
    }
    if (n == 0) break;
    out.append(chunk.data(), static_cast<size_t>(n));
    if (out.size() > kMaxTextFile) return Error{"read " + path + ": file too large", EFBIG};
  }
  return out;
}

}  // namespace

Result<int> openForRead(const std::string& absPath) {
  const int fd = ::open(absPath.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return sysError("open " + absPath, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return sysError("stat " + absPath, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    const int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    return sysError("open " + absPath + " (not a regular file)", err);
  }
  return fd;
}

SysfsRoot::SysfsRoot(std::filesystem::path root) : root_(std::move(root)) {}

std::string SysfsRoot::path(std::string_view rel) const {
  std::string p = root_.string();
  if (!p.empty() && p.back() != '/') p += '/';
  p += rel;
  return p;
}

Result<std::string> SysfsRoot::readText(std::string_view rel) const {
  const std::string p = path(rel);
  auto fd = openForRead(p);
  if (!fd) return fd.error();
  auto text = readAll(*fd, p);
  ::close(*fd);
  if (!text) return text.error();
  std::string_view t = trim(*text);
  if (t.empty()) return Error{"read " + p + ": empty file", ENODATA};
  return std::string(t);
}

Result<std::vector<std::string>> SysfsRoot::listDir(std::string_view rel) const {
  const std::string p = path(rel);
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(p.c_str()), &::closedir);
  if (!dir) return sysError("opendir " + p, errno);
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(dir.get())) {
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> SysfsRoot::linkBasename(std::string_view rel) const {
  const std::string p = path(rel);
  std::array<char, 4096> buf;
  const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
  if (n < 0) return sysError("readlink " + p, errno);
  std::string_view target(buf.data(), static_cast<size_t>(n));
  while (!target.empty() && target.back() == '/') target.remove_suffix(1);
  const auto slash = target.rfind('/');
  return std::string(slash == std::string_view::npos ? target : target.substr(slash + 1));
}

bool SysfsRoot::isDir(std::string_view rel) const {
  struct stat st {};
  return ::stat(path(rel).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool SysfsRoot::exists(std::string_view rel) const {
  struct stat st {};
  return ::lstat(path(rel).c_str(), &st) == 0;
}

CounterFile::CounterFile(std::string absPath) : path_(std::move(absPath)) {}

CounterFile::~CounterFile() { reset(); }

CounterFile::CounterFile(CounterFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

CounterFile& CounterFile::operator=(CounterFile&& other) noexcept {
  if (this != &other) {
    reset();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void CounterFile::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status CounterFile::ensureOpen() {
  if (fd_ >= 0) return {};
  auto fd = openForRead(path_);
  if (!fd) return fd.error();
  fd_ = *fd;
  return {};
}

Result<std::string_view> CounterFile::readText() {
  if (auto st = ensureOpen(); !st) return st.error();
  ssize_t n;
  do {
    n = ::pread(fd_, buf_, sizeof(buf_), 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    const int err = errno;
    reset();  // a re-created device gives ENODEV on the old descriptor: reopen next time
    return sysError("read " + path_, err);
  }
  if (static_cast<size_t>(n) == sizeof(buf_)) {
    return Error{"read " + path_ + ": value too long for a counter", EOVERFLOW};
  }
  const std::string_view t = trim(std::string_view(buf_, static_cast<size_t>(n)));
  if (t.empty()) return Error{"read " + path_ + ": empty file", ENODATA};
  return t;
}

Result<uint64_t> CounterFile::readU64() {
  auto text = readText();
  if (!text) return text.error();
  auto value = parseCounter(*text);
  if (!value) return Error{"read " + path_ + ": " + value.error().message, value.error().errnum};
  return *value;
}

}  // namespace fabricmon
