# Shared helpers of the tests/deploy scripts (sourced, not run). Everything listens on 127.0.0.1.

# ctest's SKIP_RETURN_CODE for these tests.
readonly SKIP=77

skip() {
  echo "SKIP: $*"
  exit "$SKIP"
}

# The first of the given program names found on PATH, or nothing.
find_bin() {
  local name
  for name in "$@"; do
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
  done
  return 1
}

# A TCP port nobody listens on at 127.0.0.1 right now (the usual small race is acceptable here).
free_port() {
  local port
  for _ in $(seq 1 200); do
    # Below the kernel's ephemeral range (ip_local_port_range, 32768-60999 by default): a port
    # picked there can be taken by an outgoing connection, or by a test daemon on port 0, before the
    # server this is for binds it.
    port=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "no free port found" >&2
  return 1
}

# wait_http URL SECONDS: until URL answers 2xx; 1 on timeout.
wait_http() {
  local url=$1 deadline=$((SECONDS + $2))
  while ((SECONDS < deadline)); do
    if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}

# Processes started by a test: stopped (TERM, then KILL after 5 s) by stop_all, which the scripts
# call from their EXIT trap.
STARTED_PIDS=()

start_bg() {
  local log=$1
  shift
  "$@" >"$log" 2>&1 &
  STARTED_PIDS+=($!)
  LAST_PID=$!
}

stop_pid() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

stop_all() {
  local pid
  for pid in "${STARTED_PIDS[@]}"; do
    stop_pid "$pid"
  done
  STARTED_PIDS=()
}

# The Alertmanager binary: Debian names it prometheus-alertmanager.
find_alertmanager() {
  find_bin alertmanager prometheus-alertmanager
}
