#pragma once
// Opening a file below a kept directory handle. open("/sys/class/infiniband/mlx5_3/ports/1/
// hw_counters/rnr_nak_retry_err") walks every component and follows the class symlink into
// devices/pci…, a dozen dentry lookups (fs/namei.c, link_path_walk) for each counter file that has
// no kept descriptor of its own; openat(handle of hw_counters, "rnr_nak_retry_err") looks up one.
// docs/architecture.md, "Files are read the cheap way".

#include <sys/stat.h>

#include <cstddef>
#include <memory>
#include <string>

namespace fabricmon {

/// An O_PATH descriptor of one directory, shared by the files below it that are kept
/// (CounterFile holds one); closed when the last holder lets go, so a vanished device's handles
/// go with its files.
class DirHandle;
using DirHold = std::shared_ptr<const DirHandle>;

/// open(absPath, flags), done as openat() relative to a handle of absPath's directory. Returns the
/// descriptor, or -1 with errno set, as open(2) does.
/// - `hold` non-null: the caller keeps the handle there (the directory's handle when it still names
///   the directory, or one opened now, while fewer than maxKeptDirs() are open); null: a plain
///   open() (a file read once walks its path once either way).
/// - A handle whose directory no longer answers (ENOENT from a directory that is gone, ENOTDIR) is
///   dropped and the full path is tried; every kDirCheckUses uses the directory's path is stat()ed
///   and a handle that no longer names it (renamed, replaced, a symlink retargeted) is dropped.
/// Thread-safe.
int openBelowKeptDir(const std::string& absPath, int flags, DirHold* hold = nullptr);

/// stat(absPath, &st) as fstatat() relative to a handle of absPath's directory, kept in `hold` as
/// openBelowKeptDir keeps it: a directory stat()ed at every poll (a device's, to see it re-created)
/// costs one lookup instead of a walk of its whole path. Returns 0, or -1 with errno set.
int statBelowKeptDir(const std::string& absPath, struct stat& st, DirHold* hold);

/// stat()s the held handle's directory path now and lets the handle go when the path names
/// another directory or none (CounterFile::checkIdentity: the owner saw its directory change).
void recheckKeptDir(DirHold& hold);

/// At most this many directory handles are open (0 = none). Set with the kept-file cap:
/// sources.max_open_files / 2.
void setMaxKeptDirs(size_t cap);
size_t maxKeptDirs();
/// Directory handles open right now.
size_t keptDirs();

/// Every this many opens below a handle, its directory's path is compared with the handle.
inline constexpr unsigned kDirCheckUses = 64;

}  // namespace fabricmon
