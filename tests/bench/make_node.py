#!/usr/bin/env python3
"""Writes a node of N single-port mlx5 RoCE devices for the scale benchmark (docs/benchmarks.md).

    tests/bench/make_node.py FABRICSIM ROOT N

The simulator (sim/) writes at most 16 RoCE ports, so this runs it once for one port
(`fabricsim --once --roce-ports 1 --no-infiniband`) and copies that device N times below ROOT, each
copy with its own device name (mlx5_<i>), PCI address and interface name, in the layout fabricsim
uses: ROOT/sys (devices/pci0000:00/<pci>/{infiniband,net}, class/ links, kernel/debug/mlx5/<pci>),
ROOT/ethtool/<if>, ROOT/dcb/<if>. This is the shape of an SR-IOV node with one RDMA device per VF.
The counters do not move (the CPU of reading a file does not depend on its value).
"""
import os
import shutil
import subprocess
import sys
import tempfile


def pci(i):
    # Domain 0, one bus per device from 0x10 on (256 buses: enough for 240 devices).
    return "0000:%02x:00.0" % (0x10 + i)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    fabricsim, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if not 1 <= n <= 240:
        sys.exit("make_node.py: N must be 1..240")
    tpl = tempfile.mkdtemp(prefix="fabricmon-node-tpl-", dir=os.path.dirname(os.path.abspath(root)))
    try:
        subprocess.run([fabricsim, "--root", tpl, "--once", "--roce-ports", "1", "--no-infiniband"],
                       check=True, stdout=subprocess.DEVNULL)
        devices = os.listdir(os.path.join(tpl, "sys/class/infiniband"))
        netdevs = [d for d in os.listdir(os.path.join(tpl, "sys/class/net")) if d != "lo"]
        if devices != ["mlx5_0"] or len(netdevs) != 1:
            sys.exit("make_node.py: unexpected template %s %s" % (devices, netdevs))
        dev_link = os.readlink(os.path.join(tpl, "sys/class/infiniband/mlx5_0"))
        tpl_pci = [p for p in dev_link.split("/") if p.count(":") == 2][0]
        tpl_if = netdevs[0]

        def rename(text, i):
            return (text.replace(tpl_pci, pci(i)).replace(tpl_if, "enp%ds0np0" % (0x10 + i))
                    .replace("mlx5_0", "mlx5_%d" % i))

        os.makedirs(root, exist_ok=True)
        for i in range(n):
            for dirpath, dirnames, filenames in os.walk(tpl):
                rel = os.path.relpath(dirpath, tpl)
                out_dir = os.path.join(root, rename(rel, i))
                os.makedirs(out_dir, exist_ok=True)
                for name in dirnames + filenames:
                    src = os.path.join(dirpath, name)
                    dst = os.path.join(out_dir, rename(name, i))
                    if os.path.islink(src):
                        if not os.path.lexists(dst):
                            os.symlink(rename(os.readlink(src), i), dst)
                    elif os.path.isfile(src):
                        with open(src, "rb") as f:
                            data = f.read()
                        # Only the names change; counter values stay those of the template.
                        if b"mlx5_0" in data or tpl_if.encode() in data or tpl_pci.encode() in data:
                            data = rename(data.decode(), i).encode()
                        with open(dst, "wb") as f:
                            f.write(data)
                        shutil.copymode(src, dst)
                # Links to directories are not descended into; real directories are.
                dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
    finally:
        shutil.rmtree(tpl, ignore_errors=True)


if __name__ == "__main__":
    main()
