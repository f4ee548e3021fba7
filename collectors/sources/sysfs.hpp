#pragma once
// Every sysfs read goes through a SysfsRoot, rooted at --sysfs-root (CONTRACT §2), so tests, the
// simulator and the demo drive the same code as a real node.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace fabricmon {

/// Reads below a root directory that stands in for /sys. Paths are relative ("class/net/eth0/mtu").
/// Files are opened O_NONBLOCK and must be regular files, so a FIFO planted in a fixture tree is a
/// per-file error rather than a reader that never returns.
class SysfsRoot {
 public:
  explicit SysfsRoot(std::filesystem::path root);

  const std::filesystem::path& root() const { return root_; }
  std::string path(std::string_view rel) const;

  /// The whole file, with trailing whitespace (newline) removed. Empty files are an error.
  Result<std::string> readText(std::string_view rel) const;
  /// Entry names of a directory, sorted; "." and ".." left out.
  Result<std::vector<std::string>> listDir(std::string_view rel) const;
  /// Last path component of a symlink's target ("device" -> "0000:17:00.0").
  Result<std::string> linkBasename(std::string_view rel) const;
  bool isDir(std::string_view rel) const;
  bool exists(std::string_view rel) const;

 private:
  std::filesystem::path root_;
};

/// A counter file kept open and re-read with pread(fd, buf, n, 0): about 8-10x cheaper than
/// open/read/close on sysfs (ARCHITECTURE.md). Reopens by itself after a failed read.
class CounterFile {
 public:
  explicit CounterFile(std::string absPath);
  ~CounterFile();
  CounterFile(const CounterFile&) = delete;
  CounterFile& operator=(const CounterFile&) = delete;
  CounterFile(CounterFile&& other) noexcept;
  CounterFile& operator=(CounterFile&& other) noexcept;

  /// Reads and parses the file as an unsigned decimal counter.
  Result<uint64_t> readU64();
  /// Reads the raw text (trailing whitespace removed) into an internal buffer.
  Result<std::string_view> readText();
  const std::string& path() const { return path_; }
  /// Closes the descriptor; the next read reopens (used when the device was re-created).
  void reset();

 private:
  Status ensureOpen();

  std::string path_;
  int fd_ = -1;
  char buf_[64];
};

/// Opens a file for reading the way every source does: O_RDONLY|O_NONBLOCK|O_CLOEXEC, regular files only.
Result<int> openForRead(const std::string& absPath);

}  // namespace fabricmon
