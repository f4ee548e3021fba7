#!/usr/bin/env bash
# The .deb under a real systemd (PID 1 of a Debian 12 container, systemd-nspawn -b): notify
# readiness, /metrics, a warning found by `journalctl -p warning`, an invalid reload that keeps
# serving, an invalid config at start that ends in `failed` without a restart loop, the watchdog
# restarting a hung (SIGSTOPped) daemon, stop, remove and purge leaving nothing running.
# Usage: systemd_nspawn_test.sh BUILD_DIR SOURCE_DIR. Exit 77 = skipped (containers cannot run here).
#
# The root file system is built once with debootstrap and cached in $FABRICMON_CI_CACHE
# (default /var/cache/fabricmon-ci), outside the clone, so later runs only boot it (~1 s) from a
# copy. Recipe and pitfalls: a container shares the host's network namespace, so the daemon's
# port must be free on the host; never nsenter before nspawn's child is systemd in a new PID
# namespace.
set -euo pipefail

build=${1:?build dir}
src=${2:?source dir}
cache=${FABRICMON_CI_CACHE:-/var/cache/fabricmon-ci}
base=$cache/bookworm-root
port=19110

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root for systemd-nspawn"
for tool in systemd-nspawn debootstrap nsenter cpack dpkg-shlibdeps; do
  command -v "$tool" >/dev/null 2>&1 || { echo "FAIL: $tool not installed (scripts/install-deps installs it)"; exit 1; }
done
[ -d /sys/fs/cgroup ] || skip "no cgroup file system: containers cannot run here"
if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then skip "port $port is taken on this host (the container shares its network)"; fi

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
t_start=$(date +%s)

# --- the cached root ------------------------------------------------------------------------------
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ ! -x "$base/usr/lib/systemd/systemd" ] || [ ! -f "$base/.complete" ]; then
  rm -rf "$base.tmp"
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
  mirror=${mirror:-http://deb.debian.org/debian}
  echo "building the container root (once) from $mirror"
  debootstrap --variant=minbase \
    --include=systemd,systemd-sysv,dbus,libnss-systemd,procps,curl,ca-certificates,iproute2 \
    bookworm "$base.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    { tail -20 "$cache/debootstrap.log"; echo "FAIL: debootstrap"; exit 1; }
  [ -f /etc/apt/sources.list.d/debian.sources ] && cp /etc/apt/sources.list.d/debian.sources "$base.tmp/etc/apt/sources.list.d/"
  # The daemon's runtime libraries, installed once so each run's `apt-get install ./fabricmon.deb`
  # needs no network.
  chroot "$base.tmp" apt-get update -qq >/dev/null 2>&1 || true
  chroot "$base.tmp" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    libspdlog1.10 libfmt9 libyaml-cpp0.7 libprometheus-cpp-core1.0 libibverbs1 libibumad3 libibmad5 libssl3 \
    zlib1g libcurl4 libcrypt1 >"$cache/libs.log" 2>&1 || true
  touch "$base.tmp/.complete"
  mv "$base.tmp" "$base"
fi
flock -u 9

# --- the package ------------------------------------------------------------------------------------
work=$(mktemp -d)
root=$work/root
nspawn_pid=""
cleanup() {
  if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
    kill -TERM "$nspawn_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$nspawn_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

cmake --build "$build" --target fabricmon -j2 >/dev/null
(cd "$build" && cpack -G DEB -B "$work/deb" --config "$build/CPackConfig.cmake") >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; echo "FAIL: cpack"; exit 1; }
deb=$(find "$work/deb" -maxdepth 1 -name 'fabricmon_*.deb' | head -1)
[ -n "$deb" ] || { echo "FAIL: no .deb"; exit 1; }

cp -a "$base" "$root"
cp "$deb" "$root/root/fabricmon.deb"

# --- boot ------------------------------------------------------------------------------------------
systemd-nspawn -b -D "$root" -M fmtest$$ --register=no --keep-unit </dev/null >"$work/nspawn.log" 2>&1 &
nspawn_pid=$!
leader=""
for _ in $(seq 100); do
  for c in $(pgrep -P "$nspawn_pid" 2>/dev/null); do
    if [ "$(cat /proc/$c/comm 2>/dev/null)" = systemd ] &&
       [ "$(readlink /proc/$c/ns/pid)" != "$(readlink /proc/self/ns/pid)" ]; then leader=$c; fi
  done
  [ -n "$leader" ] && break
  sleep 0.1
done
[ -n "$leader" ] || { cat "$work/nspawn.log"; skip "systemd-nspawn could not boot a container here"; }
inside() { nsenter -t "$leader" -a "$@"; }
timeout 60 nsenter -t "$leader" -a systemctl is-system-running --wait >/dev/null 2>&1 || true
ok "booted systemd in a container ($(($(date +%s) - t_start)) s so far)"

# --- install and start -----------------------------------------------------------------------------
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /root/fabricmon.deb \
  >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install the .deb"; }
inside systemctl daemon-reload
inside systemctl restart fabricmon || fail "systemctl start fabricmon"
state=$(inside systemctl show -p ActiveState --value fabricmon)
[ "$state" = active ] && ok "Type=notify: active once start returns" || fail "state after start: $state"
body=$(inside curl -sf "http://127.0.0.1:$port/metrics" || true)
grep -q '^fabricmon_build_info' <<<"$body" && ok "/metrics answers at once" || fail "/metrics after start"

# The container has no RDMA device: the daemon says so as a warning, which journald must file at
# priority 4 (the <N> prefix), not 6.
sleep 1
inside journalctl -u fabricmon -p warning --no-pager -o cat | grep -q "no RDMA devices" &&
  ok "journalctl -p warning finds the warning" || fail "no warning inside journalctl -p warning"

# The kernel log under the unit's sandbox (issue 23): CAP_SYSLOG, ProtectKernelLogs=no and
# DeviceAllow=/dev/kmsg r. Inside nspawn /dev/kmsg is a FIFO of the container's own writes, not the
# kernel's record device: nic_driver_log must say so once and stay up, never count a refusal.
body=$(inside curl -sf "http://127.0.0.1:$port/metrics" || true)
if grep -q '^fabricmon_collector_up{collector="nic_driver_log"} 1' <<<"$body" &&
  grep -q '^fabricmon_kernel_log_access_failures_total 0' <<<"$body"; then
  ok "nic_driver_log up under the unit, no access refused"
else
  fail "kernel log under the unit: $(grep -E 'nic_driver_log|kernel_log_access' <<<"$body")"
fi

# --- invalid reload keeps serving ------------------------------------------------------------------
cp "$root/etc/fabricmon/fabricmon.yaml" "$work/good.yaml"
printf 'poll:\n  interval: banana\n' >"$root/etc/fabricmon/fabricmon.yaml"
inside systemctl reload fabricmon || fail "systemctl reload"
sleep 1
[ "$(inside systemctl show -p ActiveState --value fabricmon)" = active ] || fail "not active after a bad reload"
body=$(inside curl -sf "http://127.0.0.1:$port/metrics" || true)
grep -q '^fabricmon_config_last_reload_successful 0' <<<"$body" && ok "invalid reload rejected, still serving" ||
  fail "after an invalid reload: $(grep reload_successful <<<"$body")"
inside journalctl -u fabricmon -p err --no-pager -o cat | grep -q "reload rejected" || fail "reload rejection not at priority err"

# --- the watchdog restarts a hung daemon -------------------------------------------------------------
cp "$work/good.yaml" "$root/etc/fabricmon/fabricmon.yaml"
mkdir -p "$root/etc/systemd/system/fabricmon.service.d"
printf '[Service]\nWatchdogSec=3s\nRestartSec=1s\n' >"$root/etc/systemd/system/fabricmon.service.d/test.conf"
inside systemctl daemon-reload
inside systemctl restart fabricmon
pid1=$(inside systemctl show -p MainPID --value fabricmon)
inside kill -STOP "$pid1"
restarted=""
for _ in $(seq 40); do
  sleep 0.5
  pid2=$(inside systemctl show -p MainPID --value fabricmon)
  if [ "$pid2" != "$pid1" ] && [ "$pid2" != 0 ] && [ "$(inside systemctl show -p ActiveState --value fabricmon)" = active ]; then
    restarted=1; break
  fi
done
[ -n "$restarted" ] && ok "watchdog killed the stopped daemon and systemd restarted it" || fail "no watchdog restart"

# --- invalid config at start: failed, no restart loop -----------------------------------------------
printf 'poll:\n  interval: banana\n' >"$root/etc/fabricmon/fabricmon.yaml"
inside systemctl restart fabricmon 2>/dev/null && fail "start with an invalid config succeeded"
sleep 4  # more than RestartSec (1 s in the drop-in): a loop would have restarted it by now
state=$(inside systemctl show -p ActiveState --value fabricmon)
restarts=$(inside systemctl show -p NRestarts --value fabricmon)
[ "$state" = failed ] && ok "invalid config at start: failed" || fail "invalid config at start: $state"
[ "$restarts" = 0 ] && ok "no restart loop (NRestarts=0)" || fail "restarted $restarts times"
cp "$work/good.yaml" "$root/etc/fabricmon/fabricmon.yaml"
rm -rf "$root/etc/systemd/system/fabricmon.service.d"
inside systemctl daemon-reload
inside systemctl reset-failed fabricmon || true

# --- stop, remove, purge -------------------------------------------------------------------------------
inside systemctl start fabricmon || fail "start again"
t0=$(date +%s%N)
inside systemctl stop fabricmon
ok "stop took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
inside env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq fabricmon >/dev/null 2>&1 || fail "apt-get remove"
inside pgrep -x fabricmon >/dev/null && fail "fabricmon still running after remove"
inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq fabricmon >/dev/null 2>&1 || fail "apt-get purge"
[ -e "$root/etc/fabricmon" ] && fail "/etc/fabricmon left after purge"
[ -e "$root/usr/bin/fabricmon" ] && fail "/usr/bin/fabricmon left after purge"
inside pgrep -x fabricmon >/dev/null && fail "fabricmon running after purge"
[ "$failures" -eq 0 ] && ok "remove and purge leave nothing"

echo "systemd test took $(($(date +%s) - t_start)) s"
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; tail -30 "$work/nspawn.log"; exit 1; }
echo PASS
