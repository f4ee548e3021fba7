#pragma once
// Writes the simulated tree. Counter files are rewritten in place, never replaced by rename: the
// daemon keeps them open and re-reads them with pread(fd, .., 0) (docs/architecture.md, "Files are
// read the cheap way"), so the inode must stay.

#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model/result.hpp"

namespace fabricmon::sim {

class FileWriter {
 public:
  /// Writes `text` to `path`, creating the file (0644) the first time. Unchanged text is not
  /// rewritten. The new text goes to offset 0 with pwrite and the file is then cut to length with
  /// ftruncate, so it is never transiently empty. When the text shrinks (a counter reset, "4:
  /// ACTIVE" -> "1: DOWN"), the pwrite pads the remainder with '\n' first: a reader that lands
  /// between the two calls sees the new value followed by blank lines, which every parser trims,
  /// instead of a torn "0\n3456".
  Status write(const std::filesystem::path& path, std::string_view text);

  /// Writes `text` to `path` by replacing it (a temporary file in the same directory, renamed over
  /// it): for a document a reader parses whole (the LLDP neighbours), where an in-place rewrite
  /// read mid-way would mix two versions. Unchanged text is not rewritten.
  Status replace(const std::filesystem::path& path, std::string_view text);

  /// Appends `text` to `path` in one write(2) (creating it, 0644): a log a reader follows as it
  /// grows (the kernel log file), where a record must never be seen half-written.
  Status append(const std::filesystem::path& path, std::string_view text);

  /// Creates `link` -> `target` (relative target, like sysfs) unless it already points there.
  static Status symlink(const std::filesystem::path& target, const std::filesystem::path& link);
  static Status makeDirs(const std::filesystem::path& dir);

  /// Forgets what was written below `dir` (it was removed): the next write there creates the file.
  void forget(const std::filesystem::path& dir);

  /// Number of write(2) calls made so far (how much a tick really rewrote).
  uint64_t writes() const { return writes_; }

 private:
  std::unordered_map<std::string, std::string> last_;
  uint64_t writes_ = 0;
};

}  // namespace fabricmon::sim
