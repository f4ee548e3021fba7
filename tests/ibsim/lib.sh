# Shared helpers of the ibsim tests (sourced): one simulated InfiniBand fabric per test, with its own
# simulator socket, opensm to assign LIDs, and the real daemon preloaded with libumad2sim as Hca1.
# Pitfalls of the simulator this works around are listed in tests/ibsim/README.md.
. "$(dirname "${BASH_SOURCE[0]}")/../deploy/lib.sh"

SIM_LIB=${SIM_LIB:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
NET_EXAMPLE=${NET_EXAMPLE:-/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca}

require_ibsim() {
  for tool in ibsim opensm perfquery smpquery curl; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed (apt-get install ibsim-utils opensm infiniband-diags curl)"
  done
  [ -r "$SIM_LIB" ] || skip "libumad2sim not found at $SIM_LIB (package libumad2sim0)"
  [ -r "$NET_EXAMPLE" ] || skip "ibsim example fabric $NET_EXAMPLE missing"
}

# start_sim DIR SOCKNAME: the simulator with its console on a FIFO (its stdin must stay open: on end
# of input the console spins at full CPU).
start_sim() {
  local dir=$1 sock=$2
  cp "$NET_EXAMPLE" "$dir/net"
  [ -p "$dir/cmd" ] || mkfifo "$dir/cmd"
  IBSIM_SOCKNAME=$sock ibsim -s "$dir/net" 0<>"$dir/cmd" >>"$dir/ibsim.log" 2>&1 &
  SIM_PID=$!
  # A client started before the simulator's socket exists hangs forever in the preload's connect.
  for _ in $(seq 1 100); do
    grep -q "@$sock:ctl" /proc/net/unix && break
    sleep 0.05
  done
  grep -q "@$sock:ctl" /proc/net/unix || { echo "ibsim did not come up"; cat "$dir/ibsim.log"; return 1; }
  # One subnet-manager sweep assigns the LIDs, then opensm exits.
  IBSIM_SOCKNAME=$sock LD_PRELOAD=$SIM_LIB SIM_HOST=Switch1 timeout 20 opensm -o -f "$dir/opensm.log" >/dev/null 2>&1 || true
}

stop_sim() { [ -n "${SIM_PID:-}" ] && kill "$SIM_PID" 2>/dev/null; wait "$SIM_PID" 2>/dev/null; SIM_PID=; }

# sim_cmd DIR "PerformanceSet ..." — one console command.
sim_cmd() { echo "$2" >"$1/cmd"; sleep 0.2; }

# client SOCK HOST cmd...: a diagnostic tool as one node of the fabric, with a timeout.
client() {
  local sock=$1 host=$2
  shift 2
  IBSIM_SOCKNAME=$sock LD_PRELOAD=$SIM_LIB SIM_HOST=$host timeout 10 "$@"
}

# start_daemon DIR SOCK PORT: fabricmon as Hca1, no sysfs devices (libumad2sim fakes sysfs only for
# libibumad's own calls), every collector at 1 s.
start_daemon() {
  local dir=$1 sock=$2 port=$3
  mkdir -p "$dir/sys"
  cat >"$dir/fabricmon.yaml" <<YAML
poll:
  interval: 1s
  slow_interval: 1s
sources:
  sysfs_root: $dir/sys
  mad_timeout: 200ms
  mad_retries: 0
watchdog:
  rules:
    link_flap:
      down_events: 2
${EXTRA_WATCHDOG:-}
YAML
  IBSIM_SOCKNAME=$sock LD_PRELOAD=$SIM_LIB SIM_HOST=Hca1 "$FABRICMON" run --config "$dir/fabricmon.yaml" \
    --listen "127.0.0.1:$port" >>"$dir/fabricmon.log" 2>&1 &
  DAEMON_PID=$!
  wait_http "http://127.0.0.1:$port/metrics" 10 || { cat "$dir/fabricmon.log"; return 1; }
}

metrics() { curl -s -m 2 "http://127.0.0.1:$PORT/metrics"; }
# metric_value NAME_AND_LABELS_REGEX: the value of the first matching sample line.
metric_value() { metrics | grep -E "^$1 " | head -1 | awk '{print $NF}'; }
findings() { curl -s -m 2 "http://127.0.0.1:$PORT/api/v1/findings"; }

# wait_until SECONDS 'COMMAND': evaluates COMMAND every 0.2 s until it succeeds (evaluated anew
# each time, so "$(...)" inside it is read again).
wait_until() {
  local deadline=$(($(date +%s%N) + $1 * 1000000000))
  shift
  while [ "$(date +%s%N)" -lt "$deadline" ]; do
    eval "$1" && return 0
    sleep 0.2
  done
  return 1
}

fail() {
  echo "FAIL: $*"
  echo "--- fabricmon.log"; tail -20 "$WORK/fabricmon.log"
  exit 1
}

setup_case() {
  require_ibsim
  [ -x "${FABRICMON:-}" ] || { echo "FABRICMON not set"; exit 2; }
  WORK=$(mktemp -d)
  SOCK="fm$$$(date +%N | cut -c1-4)"
  PORT=$(free_port)
  trap 'stop_daemon_now; stop_sim; rm -rf "$WORK"' EXIT
  start_sim "$WORK" "$SOCK" || exit 1
  start_daemon "$WORK" "$SOCK" "$PORT" || exit 1
  wait_until 10 has_peer || fail "no fabricmon_peer_port_info within 10 s"
}

stop_daemon_now() { [ -n "${DAEMON_PID:-}" ] && kill "$DAEMON_PID" 2>/dev/null; wait "$DAEMON_PID" 2>/dev/null; DAEMON_PID=; }
has_peer() { metrics | grep -q '^fabricmon_peer_port_info{'; }
