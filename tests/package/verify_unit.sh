#!/usr/bin/env bash
# Checks deploy/systemd/fabricmon.service offline: `systemd-analyze verify` must print nothing about
# the unit, the directives the daemon relies on must be there, and the offline security review must
# stay at or below an exposure of 2.0 (systemd-analyze security, scale 0-10).
# Usage: verify_unit.sh UNIT_FILE FABRICMON_BINARY. Exit 77 = skipped (no systemd-analyze).
set -uo pipefail

unit=${1:?unit file}
binary=${2:?fabricmon binary}

if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "SKIP: systemd-analyze not installed"
  exit 77
fi
if [ ! -x "$binary" ]; then
  echo "FAIL: $binary is not built"
  exit 1
fi
binary=$(realpath "$binary")  # Exec lines must be absolute

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# verify checks that every Exec*= command exists: point them at the built binary instead of
# /usr/bin/fabricmon, which a build machine does not have. Nothing else changes.
sed "s#/usr/bin/fabricmon#${binary}#g" "$unit" >"$tmp/fabricmon.service"
grep -q "^ExecStart=${binary} run " "$tmp/fabricmon.service" || fail "ExecStart was not rewritten"

# Unknown keys, bad values and missing executables are warnings with exit status 0: judge the output.
out=$(systemd-analyze verify --man=no "$tmp/fabricmon.service" 2>&1)
rc=$?
[ -n "$out" ] && echo "$out"
[ "$rc" -eq 0 ] || fail "systemd-analyze verify exited $rc"
if grep -q "fabricmon.service" <<<"$out"; then fail "systemd-analyze verify warned about the unit"; fi

# Directives the daemon and docs/deployment.md depend on (issue #5).
required=(
  "Type=notify"
  "WatchdogSec=30s"
  "Restart=on-failure"
  "RestartPreventExitStatus=2"
  "ExecStart=/usr/bin/fabricmon run --config /etc/fabricmon/fabricmon.yaml"
  "ExecReload=/bin/kill -HUP \$MAINPID"
  "ProtectSystem=strict"
  "ProtectHome=yes"
  "PrivateTmp=yes"
  "NoNewPrivileges=yes"
  "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK"
  "ProtectKernelTunables=yes"
  "CapabilityBoundingSet=CAP_DAC_READ_SEARCH CAP_SYSLOG"
  "AmbientCapabilities=CAP_DAC_READ_SEARCH CAP_SYSLOG"
  "DeviceAllow=/dev/kmsg r"
  "SystemCallFilter=@system-service"
  "SystemCallArchitectures=native"
  "WantedBy=multi-user.target"
)
for line in "${required[@]}"; do
  grep -qxF -- "$line" "$unit" || fail "missing line: $line"
done
# RestartPreventExitStatus= covers the main process only (systemd.service(5)): an ExecStartPre that
# exits 2 on a bad config is restarted by Restart=on-failure forever (issue 16).
if grep -q '^ExecStartPre=' "$unit"; then fail "ExecStartPre= would turn an invalid config into a restart loop"; fi
# Settings that would hide the host's NICs or make the capability useless.
# ProtectKernelLogs=yes hides /dev/kmsg and drops CAP_SYSLOG: no NIC driver records (issue 23).
for forbidden in "PrivateNetwork=yes" "PrivateUsers=yes" "ProtectKernelTunables=no" "ProtectKernelLogs=yes"; do
  if grep -qxF -- "$forbidden" "$unit"; then fail "must not set $forbidden"; fi
done

if systemd-analyze security --help 2>&1 | grep -q -- "--offline"; then
  sec=$(systemd-analyze security --offline=true --threshold=20 "$tmp/fabricmon.service" 2>&1)
  rc=$?
  tail -n 1 <<<"$sec"
  [ "$rc" -eq 0 ] || fail "security exposure above 2.0 (systemd-analyze security exited $rc)"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
