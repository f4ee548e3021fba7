#pragma once
// Whether a directory changed, the OS side: its stamp (stat) and inotify watches. Collectors keep
// counter files open between polls and must notice when the files at those paths were replaced,
// added or removed; these are the two cheap ways to ask.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fabricmon {

/// One state of a directory: its inode (a re-created kernfs or debugfs directory gets a new one),
/// its mtime (an entry added, removed or renamed in it) and its ctime.
struct DirStamp {
  uint64_t inode = 0;
  int64_t mtimeNs = 0;
  int64_t ctimeNs = 0;
  bool operator==(const DirStamp&) const = default;
};

class DirHandle;

/// The stamp of the directory at `absPath`; nullopt when it is absent or not a directory. With
/// `hold`, stat()ed below a kept handle of its parent directory (statBelowKeptDir in
/// collectors/sources/dir_handles.hpp): for a directory stamped at every poll.
std::optional<DirStamp> stampDir(const std::string& absPath,
                                 std::shared_ptr<const DirHandle>* hold = nullptr);
/// The stamp of whatever `absPath` names (one stat), and whether it is a directory; nullopt when absent.
struct PathStamp {
  DirStamp stamp;
  bool isDir = false;
};
std::optional<PathStamp> stampPath(const std::string& absPath,
                                   std::shared_ptr<const DirHandle>* hold = nullptr);

/// Entries added, removed or renamed in watched directories (a fixture file replaced by rename, as
/// `sed -i` does, leaves a kept descriptor on the old file). One inotify instance for all of them,
/// so a poll without changes costs one read() that returns EAGAIN instead of a stat per directory.
/// kernfs sends no such events for entries the kernel adds or removes; there a change means a
/// re-created tree, which the tree's DirStamp shows.
class DirWatcher {
 public:
  DirWatcher();
  ~DirWatcher();
  DirWatcher(const DirWatcher&) = delete;
  DirWatcher& operator=(const DirWatcher&) = delete;

  /// A watch descriptor, or -1 when changes below `absPath` cannot be watched.
  int add(const std::string& absPath);
  void remove(int wd);
  /// The watch descriptors with events since the last call (-1 when events were lost).
  void drain(std::vector<int>& changed);

 private:
  int fd_;
};

}  // namespace fabricmon
