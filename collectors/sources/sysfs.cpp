#include "collectors/sources/sysfs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>

#include "collectors/sources/dir_handles.hpp"
#include "collectors/sources/parse.hpp"
#include "collectors/sources/read_watch.hpp"

namespace fabricmon {

namespace {

// Large enough for any sysfs attribute (the kernel caps them at one page).
constexpr size_t kMaxTextFile = 64 * 1024;

Result<std::string> readAll(int fd, const std::string& path) {
  const WatchedRead watched("read", path);
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

Result<int> openForRead(const std::string& absPath, DirHold* dir) {
  uint64_t dev = 0, ino = 0;
  return openForRead(absPath, dev, ino, dir);
}

Result<int> openForRead(const std::string& absPath, uint64_t& dev, uint64_t& ino, DirHold* dir) {
  const int fd = openBelowKeptDir(absPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC, dir);
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
  dev = static_cast<uint64_t>(st.st_dev);
  ino = static_cast<uint64_t>(st.st_ino);
  return fd;
}

SysfsRoot::SysfsRoot(std::filesystem::path root) : root_(std::move(root)), prefixLength_(path("").size()) {}

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

Result<std::string> SysfsRoot::resolve(std::string_view rel) const {
  std::error_code ec;
  const auto real = std::filesystem::canonical(path(rel), ec);
  if (ec) return Error{"resolve " + path(rel) + ": " + ec.message(), ec.value()};
  const auto base = std::filesystem::canonical(root_, ec);
  if (ec) return Error{"resolve " + root_.string() + ": " + ec.message(), ec.value()};
  const auto inside = real.lexically_relative(base);
  if (inside.empty() || *inside.begin() == "..") return Error{path(rel) + " resolves outside " + root_.string(), EXDEV};
  return inside.string();
}

bool SysfsRoot::isDir(std::string_view rel) const {
  struct stat st {};
  return ::stat(path(rel).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool SysfsRoot::exists(std::string_view rel) const {
  struct stat st {};
  return ::lstat(path(rel).c_str(), &st) == 0;
}

namespace {

std::atomic<size_t> gMaxKept{kDefaultMaxKeptFiles};
std::atomic<size_t> gKept{0};

// Takes one of the capped slots; false when all are in use.
bool takeKeptSlot() {
  size_t n = gKept.load(std::memory_order_relaxed);
  do {
    if (n >= gMaxKept.load(std::memory_order_relaxed)) return false;
  } while (!gKept.compare_exchange_weak(n, n + 1, std::memory_order_relaxed));
  return true;
}

uint32_t monotonicMs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);  // a few ms of resolution: intervals are seconds
  return static_cast<uint32_t>(ts.tv_sec * 1000 + ts.tv_nsec / 1'000'000);
}
std::atomic<uint32_t (*)()> gClock{&monotonicMs};

// The shortest read interval among the files refused a slot lately, and when the latest refusal
// was (ms). Heuristic and lock-free: a stale pair costs one needless reopen, never a wrong value.
std::atomic<uint32_t> gWantedIntervalMs{0};
std::atomic<uint32_t> gWantedAtMs{0};

void noteRefused(uint32_t now, uint32_t interval) {
  if (interval == 0) return;  // read once so far: how often is not known yet
  uint32_t want = gWantedIntervalMs.load(std::memory_order_relaxed);
  const uint32_t at = gWantedAtMs.load(std::memory_order_relaxed);
  if (want == 0 || interval < want || now - at > 2 * want) {
    want = interval;
    gWantedIntervalMs.store(want, std::memory_order_relaxed);
  }
  // Only a file as fast as the wanted interval keeps the want fresh: refusals of slower files
  // must not make the kept ones yield to a fast file that no longer asks.
  if (interval <= want) gWantedAtMs.store(now, std::memory_order_relaxed);
}

// True when a file read at least twice as often as this one (every `interval` ms) was refused a
// slot since this one's previous read.
bool yieldsSlot(uint32_t now, uint32_t interval) {
  if (interval == 0) return false;
  const uint32_t want = gWantedIntervalMs.load(std::memory_order_relaxed);
  return want != 0 && interval >= 2 * want && now - gWantedAtMs.load(std::memory_order_relaxed) <= interval;
}

Result<size_t> preadOnce(int fd, char* buf, size_t size, const std::string& path) {
  // A kernfs read runs the driver's show(), which may wait for the NIC's firmware (read_watch.hpp).
  const WatchedRead watched("read", path);
  ssize_t n;
  do {
    n = ::pread(fd, buf, size, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return sysError("read " + path, errno);
  return static_cast<size_t>(n);
}

}  // namespace

void CounterFile::setMaxKeptFiles(size_t cap) { gMaxKept.store(cap); }
size_t CounterFile::maxKeptFiles() { return gMaxKept.load(); }
size_t CounterFile::keptFiles() { return gKept.load(); }
void CounterFile::setClockForTests(uint32_t (*clock)()) { gClock.store(clock != nullptr ? clock : &monotonicMs); }

CounterFile::CounterFile(std::string absPath) : path_(std::move(absPath)) {}

CounterFile::~CounterFile() { close(); }

CounterFile::CounterFile(CounterFile&& other) noexcept
    : path_(std::move(other.path_)),
      dev_(other.dev_),
      ino_(other.ino_),
      dir_(std::move(other.dir_)),
      fd_(std::exchange(other.fd_, -1)),
      readsSinceCheck_(other.readsSinceCheck_),
      lastReadMs_(other.lastReadMs_),
      prevIntervalMs_(other.prevIntervalMs_) {}

CounterFile& CounterFile::operator=(CounterFile&& other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    dev_ = other.dev_;
    ino_ = other.ino_;
    readsSinceCheck_ = other.readsSinceCheck_;
    lastReadMs_ = other.lastReadMs_;
    prevIntervalMs_ = other.prevIntervalMs_;
    dir_ = std::move(other.dir_);
  }
  return *this;
}

void CounterFile::close() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  gKept.fetch_sub(1, std::memory_order_relaxed);
}

void CounterFile::reset() { close(); }

void CounterFile::checkIdentity() {
  readsSinceCheck_ = 0;
  if (fd_ < 0) {
    recheckKeptDir(dir_);  // the next read opens below the directory's handle
    return;
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_dev) != dev_ ||
      static_cast<uint64_t>(st.st_ino) != ino_) {
    close();  // the next read opens whatever the path names now, or fails with its error
    recheckKeptDir(dir_);
  }
}

Status CounterFile::ensureOpen() {
  if (fd_ >= 0) {
    if (++readsSinceCheck_ >= kIdentityCheckReads) checkIdentity();
    if (fd_ >= 0) return {};
  }
  if (!takeKeptSlot()) return Error{"", EMFILE};  // the caller reads without keeping
  // A file that gets a descriptor of its own needs no directory handle: it walks its path once.
  auto fd = openForRead(path_, dev_, ino_, dir_ != nullptr ? &dir_ : nullptr);
  if (!fd) {
    gKept.fetch_sub(1, std::memory_order_relaxed);
    return fd.error();
  }
  fd_ = *fd;
  readsSinceCheck_ = 0;
  return {};
}

Result<size_t> CounterFile::readInto(char* buf, size_t size) {
  const uint32_t now = gClock.load(std::memory_order_relaxed)();
  const uint32_t latest = lastReadMs_ == 0 ? 0 : now - lastReadMs_;
  // The longer of the last two intervals: one short one (a run that follows an overrun) does not
  // make a file look faster than its cadence.
  const uint32_t interval = latest == 0 ? 0 : std::max(latest, prevIntervalMs_);
  prevIntervalMs_ = latest;
  lastReadMs_ = now == 0 ? 1 : now;
  // A file that would give a slot up right after its read does not take a free one first.
  const bool yields = yieldsSlot(now, interval);
  Status st = fd_ < 0 && yields ? Status{Error{"", EMFILE}} : ensureOpen();
  if (!st) {
    if (st.error().errnum != EMFILE || !st.error().message.empty()) return st.error();
    if (!yields) noteRefused(now, interval);
    // Over the cap: open, read, close. Costs an open and a close per read (docs/benchmarks.md),
    // the open below the directory's handle. No fstat here (openForRead's regular-file check): a
    // descriptor kept for no longer than one pread of at most `size` bytes cannot hang or grow
    // on a FIFO (O_NONBLOCK; pread answers ESPIPE), a directory (EISDIR) or a device file.
    const int fd = openBelowKeptDir(path_, O_RDONLY | O_NONBLOCK | O_CLOEXEC, &dir_);
    if (fd < 0) return sysError("open " + path_, errno);
    auto n = preadOnce(fd, buf, size, path_);
    ::close(fd);
    return n;
  }
  auto n = preadOnce(fd_, buf, size, path_);
  if (!n) {
    close();  // a re-created device gives ENODEV on the old descriptor: reopen next time
  } else if (yields) {
    close();  // to a file read more often; this one reopens below its directory's handle
  }
  return n;
}

Result<std::string_view> CounterFile::readText() {
  // One buffer per thread rather than 64 bytes in each of a node's ~12,000 CounterFiles: every
  // caller parses the text before its thread reads another file (SlotGroupCache copies the few it
  // keeps for an InfoSlot).
  thread_local char buf[64];
  auto n = readInto(buf, sizeof(buf));
  if (!n) return n.error();
  if (*n == sizeof(buf)) {
    return Error{"read " + path_ + ": value too long for a counter", EOVERFLOW};
  }
  const std::string_view t = trim(std::string_view(buf, *n));
  if (t.empty()) return Error{"read " + path_ + ": empty file", ENODATA};
  return t;
}

Result<std::string_view> CounterFile::readRaw(std::span<char> buf) {
  auto n = readInto(buf.data(), buf.size());
  if (!n) return n.error();
  if (*n == buf.size()) return Error{"read " + path_ + ": longer than " + std::to_string(buf.size()) + " bytes", EOVERFLOW};
  if (*n == 0) return Error{"read " + path_ + ": empty file", ENODATA};
  return std::string_view(buf.data(), *n);
}

Result<uint64_t> CounterFile::readU64() {
  auto text = readText();
  if (!text) return text.error();
  auto value = parseCounter(*text);
  if (!value) return Error{"read " + path_ + ": " + value.error().message, value.error().errnum};
  return *value;
}

Result<std::optional<std::string>> readWholeFile(const std::string& absPath, size_t maxBytes) {
  auto fd = openForRead(absPath);
  if (!fd) {
    if (fd.error().errnum == ENOENT) return std::optional<std::string>{};
    return fd.error();
  }
  std::string text(maxBytes + 1, '\0');
  size_t got = 0;
  const WatchedRead watched("read", absPath);
  for (;;) {
    const ssize_t n = ::pread(*fd, text.data() + got, text.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(*fd);
      return sysError("read " + absPath, err);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
    if (got == text.size()) break;
  }
  ::close(*fd);
  if (got > maxBytes) return Error{"read " + absPath + ": file too large", EFBIG};
  text.resize(got);
  if (trim(text).empty()) return Error{"read " + absPath + ": empty file", ENODATA};
  return std::optional<std::string>(std::move(text));
}

Result<uint64_t> sysfsIdentity(const std::string& absPath) {
  struct stat st {};
  if (::stat(absPath.c_str(), &st) != 0) return sysError("stat " + absPath, errno);
  return static_cast<uint64_t>(st.st_ino);
}

Result<uint64_t> sysfsIdentity(const SysfsRoot& sysfs, std::string_view rel) {
  return sysfsIdentity(sysfs.path(rel));
}

}  // namespace fabricmon
