#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target into tests/fuzz/seeds/<target>/ from the fixtures
(tests/fixtures), the default config and hand-written samples of each format. The checked-in
corpora (tests/fuzz/corpus/) started from these and were minimised after the long runs; this script
only says where they came from. Usage: tests/fuzz/make_seeds.py [out dir]."""
import glob
import hashlib
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "fuzz", "seeds")


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def files(pattern):
    return sorted(p for p in glob.glob(os.path.join(ROOT, pattern)) if os.path.isfile(p))


def ttar_files(path):
    """The (name, content) pairs of a ttar fixture (prometheus/procfs's text archive)."""
    name, lines, out = None, None, []
    for line in read(path).decode(errors="replace").split("\n"):
        if line.startswith("Path: "):
            name, lines = line[6:], None
        elif line.startswith("Lines: "):
            lines = []
        elif line.startswith("Mode: ") and name is not None and lines is not None:
            out.append((name, "\n".join(lines).replace("NULLBYTE", "\0") + "\n"))
            name, lines = None, None
        elif line.strip() == "EOF" and lines is not None:
            pass
        elif lines is not None and not line.startswith("----"):
            lines.append(line)
    return out


# sysfs values: selector byte (see sysfs_values_fuzz.cpp), then the file's text.
sysfs = {
    0: [" 12 \n"], 1: ["12345\n", "18446744073709551615\n", "N/A (no PMA)\n"],
    2: ["4: ACTIVE\n"], 3: ["400 Gb/sec (4X NDR)\n", "2.5 Gb/sec (1X SDR)\n", "10 Gb/sec (4X)\n"],
    4: ["4: ACTIVE\n", "1: DOWN\n"], 5: ["5: LinkUp\n", "3: Disabled\n"], 6: ["up\n", "lowerlayerdown\n"],
    7: ["1\n", "0\n"], 8: ["32.0 GT/s PCIe\n", "2.5 GT/s\n", "Unknown\n"], 9: ["0000:3b:00.0", "0000:3B:00.0"], 10: ["16\n", "0\n", "32"],
}
for ttar in files("tests/fixtures/realdata/*.ttar") + files("tests/fixtures/handmade/*.ttar"):
    for name, text in ttar_files(os.path.relpath(ttar, ROOT)):
        base = name.rsplit("/", 1)[-1]
        sel = {"state": 4, "phys_state": 5, "rate": 3, "operstate": 6, "enable": 7,
               "current_link_speed": 8, "max_link_speed": 8,
               "current_link_width": 10, "max_link_width": 10}.get(base, 1 if re.fullmatch(r"\s*\d+\s*", text) else None)
        if sel is not None and len(text) < 200:
            sysfs.setdefault(sel, []).append(text)
for sel, texts in sysfs.items():
    for t in sorted(set(texts)):
        put("sysfs_values", bytes([sel]) + t.encode())

for p in files("tests/fixtures/ethtool/captures/*") + files("tests/fixtures/ethtool/stats/*/*") + \
        files("tests/fixtures/ethtool/stats/*") + files("tests/fixtures/ethtool/dialects/*/*"):
    put("ethtool_text", read(os.path.relpath(p, ROOT)))
put("ethtool_text", "NIC statistics:\n     rx_packets: 1\n     tx pause: 2\n")

# ethtool_ioctl: the fake kernel's answers come from the bytes; a few lengths to start from.
for n in (0, 8, 64, 512):
    put("ethtool_ioctl", bytes((i * 37 + n) & 0xFF for i in range(n)))

for p in files("tests/fixtures/qos/dcb/*"):
    put("dcb_netlink", b"\x80" + read(os.path.relpath(p, ROOT)))


def nlmsg(mtype, payload, seq=1, flags=0):
    return struct.pack("=IHHII", 16 + len(payload), mtype, flags, seq, 0) + payload


def attr(atype, payload):
    raw = struct.pack("=HH", 4 + len(payload), atype) + payload
    return raw + b"\0" * ((4 - len(raw) % 4) % 4)


# RTM_GETDCB (78) replies (linux/dcbnl.h): struct dcbmsg {family, cmd, pad}; DCB_CMD_IEEE_GET 21
# with DCB_ATTR_IEEE (13) nesting DCB_ATTR_IEEE_PFC (2: struct ieee_pfc, pfc_cap, pfc_en, mbc, delay,
# u64 requests[8], indications[8]) and DCB_ATTR_IEEE_APP_TABLE (3) of DCB_ATTR_IEEE_APP (1: struct
# dcb_app {u8 selector, u8 priority, u16 protocol}); DCB_CMD_GDCBX 22 with DCB_ATTR_DCBX (14).
pfc = struct.pack("=BBBB", 8, 0x08, 0, 0) + struct.pack("=8Q", *range(8)) + struct.pack("=8Q", *range(8, 16))
apps = b"".join(attr(1, struct.pack("=BBH", 5, p, d)) for d, p in ((26, 3), (46, 5), (48, 6)))
ieee = attr(13, attr(2, pfc) + attr(3, apps))
put("dcb_netlink", b"\x00" + nlmsg(78, struct.pack("=BBH", 0, 21, 0) + ieee))
put("dcb_netlink", b"\x01" + nlmsg(78, struct.pack("=BBH", 0, 22, 0) + attr(14, b"\x0c")))
put("dcb_netlink", b"\x00" + nlmsg(2, struct.pack("=i", -95) + nlmsg(78, b"")[:16]))  # NLMSG_ERROR EOPNOTSUPP
put("dcb_netlink", b"\x00" + nlmsg(3, struct.pack("=i", 0)))  # NLMSG_DONE

# ethtool genetlink (linux/ethtool_netlink.h, linux/genetlink.h): genlmsghdr {cmd, version,
# reserved}. The controller's CTRL_CMD_NEWFAMILY (1) with CTRL_ATTR_FAMILY_ID (1) and _NAME (2);
# FEC_GET_REPLY (30): header nest (1) with DEV_NAME (2), ACTIVE (4), STATS nest (5: CORRECTED 2,
# UNCORR 3, CORR_BITS 4 as u64 arrays); LINKMODES_GET_REPLY (4): SPEED (5), LANES (9). Family 20.
put("fec_netlink", b"\x00" + nlmsg(0x10, struct.pack("=BBH", 1, 2, 0) + attr(1, struct.pack("=H", 20)) +
                                  attr(2, b"ethtool\0")))
hdr = attr(0x8001, attr(2, b"eth0\0"))
stats = attr(0x8005, attr(2, struct.pack("=3Q", 5, 2, 3)) + attr(3, struct.pack("=3Q", 1, 1, 0)) +
             attr(4, struct.pack("=Q", 99)))
put("fec_netlink", b"\x01" + nlmsg(20, struct.pack("=BBH", 30, 1, 0) + hdr + attr(4, struct.pack("=I", 50)) + stats))
put("fec_netlink", b"\x02" + nlmsg(20, struct.pack("=BBH", 4, 1, 0) + hdr + attr(5, struct.pack("=I", 400000)) +
                                  attr(9, struct.pack("=I", 4))))
put("fec_netlink", b"\x03mode: rs\nspeed_mbps: 400000\nlanes: 4\ncorrected_blocks: [10, 4, 3, 2, 1]\n"
                   b"uncorrectable_blocks: 0\ncorrected_bits: 99\n")
put("fec_netlink", b"\x03mode: none\n")

# devlink genetlink (linux/devlink.h): DEVLINK_CMD_HEALTH_REPORTER_GET (52) messages as
# devlink_nl_health_reporter_fill() writes them: BUS_NAME (1), DEV_NAME (2), PORT_INDEX (3, u32),
# HEALTH_REPORTER (114) nesting NAME (115), STATE (116, u8), ERR_COUNT (117), RECOVER_COUNT (118),
# GRACEFUL_PERIOD (120, u64 each, after a DEVLINK_ATTR_PAD), AUTO_RECOVER (121, u8). Family 21.
def reporter(name, state, err, rec, port=None):
    nest = (attr(115, name + b"\0") + attr(116, bytes([state])) + attr(117, struct.pack("=Q", err)) +
            attr(118, struct.pack("=Q", rec)) + attr(120, struct.pack("=Q", 500)) + attr(121, b"\x01"))
    head = attr(1, b"pci\0") + attr(2, b"0000:17:00.0\0") + (attr(3, struct.pack("=I", port)) if port else b"")
    return nlmsg(21, struct.pack("=BBH", 52, 1, 0) + head + attr(114, nest), flags=2)


put("devlink_health", b"\x00" + reporter(b"fw_fatal", 0, 0, 0) + reporter(b"tx", 1, 7, 5, 65535) +
    nlmsg(3, struct.pack("=i", 0), flags=2))
put("devlink_health", b"\x00" + nlmsg(2, struct.pack("=i", -95) + nlmsg(21, b"")[:16]))  # EOPNOTSUPP
put("devlink_health", b"\x01" + read("tests/fixtures/handmade/roce_mlx5.devlink_health.json"))
put("devlink_health", b'\x01{"health":{"pci/0000:3b:00.0":[{"reporter":"fw","state":"error","error":2,'
                      b'"recover":1,"auto_recover":false}],"pci/0000:3b:00.0/1":[{"reporter":"tx"}]}}')

for i, p in enumerate(files("tests/fixtures/mad/*.hex")):
    hexs = read(os.path.relpath(p, ROOT)).decode()
    raw = bytes.fromhex("".join(l.split("#")[0] for l in hexs.splitlines()).replace(" ", ""))
    sel = {"nodeinfo": 0, "nodedesc": 1}.get(os.path.basename(p).split(".")[0], 2)
    put("mad_fields", bytes([sel]) + raw)
    put("mad_fields", bytes([8]) + hexs.encode())
for sel in (3, 4, 5, 6, 7, 0x84):
    put("mad_fields", bytes([sel]) + bytes(range(1, 65)))

put("lldp_json", read("tests/fixtures/lldp/lldpcli-json0-details.json"))
put("lldp_json", '{"lldp":[{"interface":[{"name":"eth0","chassis":[{"name":[{"value":"leaf-07"}]}],"port":[{"id":[{"type":"ifname","value":"swp3"}]}]}]}]}')

kmsg = [
    "3,1042,5123456789,-;mlx5_core 0000:3b:00.0: poll_health:811:(pid 0): Fatal error 1 detected\n"
    " SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n",
    "4,1043,5123456790,-;mlx5_core 0000:3b:00.0 ens1f0np0: TX timeout on queue: 3, SQ: 0x1c4\n"
    " SUBSYSTEM=net\n DEVICE=n3\n",
    "3,1044,5123456791,c;INFO: task kworker/3:1:123 blocked for more than 120 seconds.\n",
    "4,1045,5123456792,+;  mlx5_cmd_exec+0x2f/0x50 [mlx5_core]\n",
    "6,1046,5123456793,-;bnxt_en 0000:17:00.0 eth1: NIC Link is Down\n SUBSYSTEM=pci\n DEVICE=+pci:0000:17:00.0\n",
    "12,1,0,-;user space message\\x0a\n",
]
put("kmsg_record", "\0".join(kmsg))
for k in kmsg:
    put("kmsg_record", k)

for p in files("tests/fixtures/pcie_aer/aer_dev_*"):
    sev = {"correctable": 0, "nonfatal": 1, "fatal": 2}.get(os.path.basename(p).split("_")[-1].split(".")[0], 0)
    put("pcie_aer", bytes([sev]) + read(os.path.relpath(p, ROOT)))

# `scontrol -o show node` of Slurm 22.05 (Debian 12): drained by fabricmon, idle, down and drained
# by an admin, and the null reason.
for line in (
        "NodeName=vm Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=1.25 "
        "State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=main  "
        "CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 "
        "Reason=fabricmon: port_down mlx5_0/1 rail 0 [root@2026-11-25T23:39:54]\n",
        "NodeName=gpu017 Arch=x86_64 State=MIXED ThreadsPerCore=1 Partitions=main\n",
        "NodeName=n1 State=DOWN+DRAIN+NOT_RESPONDING Reason=Not responding [slurm@2026-11-25T01:02:03]\n",
        "NodeName=n2 State=ALLOCATED+DRAIN Reason=bad dimm, ticket 4711 [admin@2026-11-25T01:02:03]\n",
        "NodeName=n3 State=IDLE Reason=(null)\n"):
    put("scontrol_node", line)

for p in files("tests/fixtures/transceivers/*.bin"):
    put("module_eeprom", read(os.path.relpath(p, ROOT)))

put("config_yaml", b"\x00" + read("config/fabricmon.yaml"))
put("config_yaml", "\x00poll:\n  interval: 1s\n  slow_interval: 30s\nlisten: 127.0.0.1:19110\n"
                   "rules:\n  pause_storm:\n    for_samples: 2\n  link_flap:\n    enabled: false\n"
                   "collectors:\n  fec:\n    enabled: true\n")
put("config_yaml", "\x01tls_server_config:\n  cert_file: server.crt\n  key_file: ./server.key\n"
                   "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.pem\n"
                   "basic_auth_users:\n  alice: $2b$04$MyJGHGS/0bsJo.vwGKW58uMTb2Z8mwCRBJ9O1bcBOBdHdID/5FF6S\n")
for s in ("30s", "1m30s", "250ms", "0.0.0.0:19110", "[::1]:19110", ":19110", "localhost:80"):
    put("config_yaml", "\x02" + s)

for req in (
        "GET /metrics HTTP/1.1\r\nHost: node:19110\r\nAccept-Encoding: gzip, deflate;q=0.5\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0, identity\r\n"
        "Authorization: Basic YWxpY2U6c2VjcmV0\r\n\r\n",
        "HEAD /healthz HTTP/1.0\r\n\r\n",
        "GET /api/v1/window?seconds=60&family=fabricmon_pfc_pause_seconds_total&points=1 HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /api/v1/window?seconds=300&device=mlx5_3&port=1 HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /api/v1/findings HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd",
        "GET /static/status.js HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"):
    put("http_request", req)

window = ('{"seconds":60,"covered_seconds":42,"series":[{"name":"fabricmon_pfc_pause_seconds_total",'
          '"labels":{"interface":"eth0","priority":"3"},"type":"counter","increase":4,"rate":0.1,"peak_rate":1},'
          '{"name":"fabricmon_port_state","labels":{"device":"mlx5_0","port":"1"},"type":"gauge","last":4}]}')
findings = ('{"findings":[{"rule":"pause_storm","severity":"critical","labels":{"interface":"eth0",'
            '"reason":"storm"},"summary":"x","evidence":{"rx_pause_fraction":1,"bad":null}}]}')
put("triage_json", "\x00" + window + "\0" + findings)
up = '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"instance":"gpu01:19110"},"value":[1700000000,"1"]}]}}'
active = ('{"status":"success","data":{"resultType":"vector","result":[{"metric":{"instance":"gpu01:19110",'
          '"rule":"pause_storm","severity":"critical","interface":"eth0"},"value":[1700000000,"1"]}]}}')
series = ('{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"x","instance":"gpu01:19110",'
          '"device":"mlx5_0","port":"1"},"value":[1700000000,"12.5"]}]}}')
put("triage_json", "\x01" + "\0".join([up, active, series]))
put("triage_json", "\x01" + up)
