#!/usr/bin/env python3
"""What one kept sysfs descriptor costs the kernel (docs/benchmarks.md, "Descriptor cap").

A sysfs attribute is a seq_file: its first read allocates a page-sized buffer (fs/seq_file.c,
seq_buf_alloc(): kvmalloc(..., GFP_KERNEL_ACCOUNT), so it is charged to the reader's memory cgroup)
that stays until the descriptor is closed. A counter file fabricmon keeps open between polls
(sources.max_open_files) therefore holds that buffer for as long as it is kept; one opened, read and
closed each poll holds nothing between polls. This opens N descriptors of one sysfs file, reads each
once, and prints the growth of the kernel's Slab (/proc/meminfo) per descriptor, after the open alone
and after the read. Slab is system-wide: run it on a quiet machine, and read the median of --runs.

    tests/bench/kept_file_kernel_memory.py [--files N] [--path /sys/class/net/lo/mtu] [--runs 3]
"""
import argparse
import os
import resource
import statistics


def slab_kib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Slab:"):
                return int(line.split()[1])
    raise SystemExit("no Slab in /proc/meminfo")


def one_run(path, n):
    before = slab_kib()
    fds = [os.open(path, os.O_RDONLY | os.O_CLOEXEC) for _ in range(n)]
    opened = slab_kib()
    for fd in fds:
        os.pread(fd, 64, 0)
    read = slab_kib()
    for fd in fds:
        os.close(fd)
    return (opened - before) / n, (read - opened) / n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=10000)
    p.add_argument("--path", default="/sys/class/net/lo/mtu")
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = a.files + 64
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    n = min(a.files, resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 64)
    results = [one_run(a.path, n) for _ in range(a.runs)]
    print(f"{a.path}: {n} descriptors, {a.runs} runs")
    print(f"  kernel Slab per descriptor, opened: {statistics.median(r[0] for r in results):.2f} KiB "
          f"(runs: {', '.join(f'{r[0]:.2f}' for r in results)})")
    print(f"  kernel Slab per descriptor, after its first read: +{statistics.median(r[1] for r in results):.2f} KiB "
          f"(runs: {', '.join(f'{r[1]:.2f}' for r in results)})")


if __name__ == "__main__":
    main()
