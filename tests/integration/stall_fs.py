#!/usr/bin/python3
"""A read-only mirror of one directory, mounted with FUSE, whose file reads hang while a flag file
exists: what a sysfs attribute of a NIC whose firmware stopped answering does (the driver's show()
waits for a firmware command that never completes). tests/integration/wedged_nic_test.cpp mounts it
over a simulated port's hw_counters directory and checks that fabricmon names the wedged port.

usage: stall_fs.py BACKING_DIR MOUNTPOINT FLAG_FILE

Every read goes to this process (direct_io: no page cache), as every pread of a sysfs attribute runs
its show(). Runs in the foreground until unmounted or killed; prints "ready" once mounted.
"""
import errno
import os
import sys
import threading
import time

from fusepy import FUSE, FuseOSError, Operations


class StallFs(Operations):
    def __init__(self, backing, flag):
        self.backing = backing
        self.flag = flag

    def _path(self, path):
        return os.path.join(self.backing, path.lstrip("/"))

    def getattr(self, path, fh=None):
        try:
            st = os.lstat(self._path(path))
        except OSError as e:
            raise FuseOSError(e.errno)
        return {key: getattr(st, key) for key in
                ("st_mode", "st_nlink", "st_size", "st_uid", "st_gid", "st_atime", "st_mtime", "st_ctime")}

    def readdir(self, path, fh):
        return [".", ".."] + sorted(os.listdir(self._path(path)))

    def open(self, path, flags):
        if flags & (os.O_WRONLY | os.O_RDWR):
            raise FuseOSError(errno.EROFS)
        return 0

    def read(self, path, size, offset, fh):
        while os.path.exists(self.flag):
            time.sleep(0.05)
        with open(self._path(path), "rb") as f:
            f.seek(offset)
            return f.read(size)


def main():
    backing, mountpoint, flag = sys.argv[1:4]

    def announce():
        # FUSE() blocks once mounted: report from a thread when the mount shows.
        parent = os.stat(os.path.dirname(os.path.abspath(mountpoint))).st_dev
        for _ in range(600):  # 30 s: a loaded machine mounts slowly
            if os.stat(mountpoint).st_dev != parent:
                print("ready", flush=True)
                return
            time.sleep(0.05)

    threading.Thread(target=announce, daemon=True).start()
    FUSE(StallFs(backing, flag), mountpoint, foreground=True, direct_io=True, ro=True)


if __name__ == "__main__":
    main()
