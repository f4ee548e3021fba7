#pragma once
// Every sysfs read goes through a SysfsRoot, rooted at --sysfs-root (docs/contract.md §2), so
// tests, the simulator and the demo drive the same code as a real node.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/sources/dir_handles.hpp"
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
  /// The relative part of a path path() made: what the slots of a collector use as their error
  /// key, a view of the path their file keeps anyway.
  std::string_view relative(std::string_view absPath) const {
    return absPath.substr(std::min(prefixLength_, absPath.size()));
  }

  /// The whole file, with trailing whitespace (newline) removed. Empty files are an error.
  Result<std::string> readText(std::string_view rel) const;
  /// Entry names of a directory, sorted; "." and ".." left out.
  Result<std::vector<std::string>> listDir(std::string_view rel) const;
  /// Last path component of a symlink's target ("device" -> "0000:17:00.0").
  Result<std::string> linkBasename(std::string_view rel) const;
  /// Where a path really is, every symlink resolved, relative to the root
  /// ("class/infiniband/mlx5_0/device" -> "devices/pci0000:16/0000:16:01.0/0000:17:00.0"). An error
  /// when it does not exist or resolves outside the root.
  Result<std::string> resolve(std::string_view rel) const;
  bool isDir(std::string_view rel) const;
  bool exists(std::string_view rel) const;

 private:
  std::filesystem::path root_;
  size_t prefixLength_;  ///< of path(""): the root and one separator
};

/// A counter file kept open and re-read with pread(fd, buf, n, 0): about 8-10x cheaper than
/// open/read/close on sysfs (docs/architecture.md, "Files are read the cheap way"). Reopens by
/// itself after a failed read.
///
/// Descriptors are bounded process-wide (setMaxKeptFiles): beyond the cap a file is opened, read
/// and closed at every read instead, so a node with hundreds of VFs needs no ever-larger
/// RLIMIT_NOFILE (docs/configuration.md, sources.max_open_files). The slots go to the files read
/// most often: a kept file gives its descriptor up after a read when, since its previous read, a
/// file read at least twice as often was refused one (a PMA counter read every 10 s yields to an
/// hw_counter read every second).
///
/// A kept descriptor can outlive the file at its path (replaced by rename, or deleted). The path's
/// identity is compared with the descriptor's every kIdentityCheckReads reads, and whenever the
/// owner calls checkIdentity() (SlotGroupCache does when the directory changed), so a replaced
/// file is reopened and a deleted one fails with ENOENT.
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
  /// Reads the raw text (trailing whitespace removed) into the calling thread's buffer: the view
  /// is valid until the same thread's next readText(), so a caller keeping it copies it.
  Result<std::string_view> readText();
  /// Reads the raw text, as it is, into `buf` (files longer than a counter: a whole stats table
  /// such as aer_dev_correctable). A file that fills `buf` is an error (EOVERFLOW), an empty one too.
  Result<std::string_view> readRaw(std::span<char> buf);
  const std::string& path() const { return path_; }
  /// Closes the descriptor; the next read reopens (used when the device was re-created).
  void reset();
  /// stat()s the path; closes the kept descriptor when the path now names another file or none.
  void checkIdentity();
  /// True while a descriptor is kept between reads.
  bool kept() const { return fd_ >= 0; }

  /// Every this many reads of a kept descriptor the path is stat()ed (the slow cadence).
  static constexpr unsigned kIdentityCheckReads = 64;
  /// The process-wide cap on kept descriptors; 0 = keep none.
  static void setMaxKeptFiles(size_t cap);
  static size_t maxKeptFiles();
  /// Descriptors kept right now, over all CounterFiles.
  static size_t keptFiles();
  /// The monotonic milliseconds the read intervals are measured with (tests; never null).
  static void setClockForTests(uint32_t (*clock)());

 private:
  Status ensureOpen();
  void close();
  Result<size_t> readInto(char* buf, size_t size);

  // Ordered for size: a node keeps one per counter file (~12,000 at 128 devices).
  std::string path_;
  uint64_t dev_ = 0;
  uint64_t ino_ = 0;
  DirHold dir_;  ///< the directory's handle, for reopening without walking the whole path
  int fd_ = -1;
  unsigned readsSinceCheck_ = 0;
  uint32_t lastReadMs_ = 0;  ///< 0 = never read
  uint32_t prevIntervalMs_ = 0;
};

/// The cap CounterFile starts with (sources.max_open_files' default): docs/configuration.md.
inline constexpr size_t kDefaultMaxKeptFiles = 4096;

/// Opens a file for reading the way every source does: O_RDONLY|O_NONBLOCK|O_CLOEXEC, regular files
/// only, below a kept handle of its directory when there is one (collectors/sources/dir_handles.hpp).
/// `dir`: where a caller that reads the file again keeps that handle (CounterFile).
Result<int> openForRead(const std::string& absPath, DirHold* dir = nullptr);
/// Same, and gives the file's device and inode.
Result<int> openForRead(const std::string& absPath, uint64_t& dev, uint64_t& ino, DirHold* dir = nullptr);

/// A whole file of at most `maxBytes` (a capture a file-backed source reads at every poll), through
/// openForRead (regular files only: a FIFO at the path is an error, not a hang). nullopt when the
/// file does not exist; larger or empty (whitespace only) is an error.
Result<std::optional<std::string>> readWholeFile(const std::string& absPath, size_t maxBytes);

/// Identity of a sysfs directory: its inode. kernfs gives a re-created object a new inode number.
Result<uint64_t> sysfsIdentity(const SysfsRoot& sysfs, std::string_view rel);
Result<uint64_t> sysfsIdentity(const std::string& absPath);

}  // namespace fabricmon
