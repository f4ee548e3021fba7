#!/usr/bin/env bash
# scrape_bench: /metrics latency, memory and series count of the real fabricmon binary over the
# simulated GPU node, side by side with Debian's prometheus-node-exporter over the same sysfs tree.
#
#   tests/bench/scrape_bench.sh BUILD_DIR [--smoke]
#
# BUILD_DIR holds daemon/fabricmon and sim/fabricsim (an optimised build: RelWithDebInfo or Release).
# Environment: SCRAPE_BENCH_DURATION (wrk run length, default 10s), SCRAPE_BENCH_SETTLE (seconds to
# let counters move before measuring, default 4). --smoke: 1 s runs, for ctest; exits 77 (skipped)
# when wrk is not installed. Everything listens on 127.0.0.1; every process started here is killed
# on exit. docs/benchmarks.md says what the numbers mean.
set -euo pipefail

usage() { echo "usage: $0 BUILD_DIR [--smoke]" >&2; exit 2; }
[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd) || usage
SMOKE=0
[ "${2:-}" = "--smoke" ] && SMOKE=1

DURATION=${SCRAPE_BENCH_DURATION:-10s}
SETTLE=${SCRAPE_BENCH_SETTLE:-4}
IDLE=${SCRAPE_BENCH_IDLE:-10}  # seconds without scrapes over which the daemon's own CPU use is measured
if [ "$SMOKE" = 1 ]; then DURATION=1s; SETTLE=2; IDLE=1; fi

FABRICMON=$BUILD/daemon/fabricmon
FABRICSIM=$BUILD/sim/fabricsim
SCRAPE_CLIENT=$BUILD/tests/bench/scrape_client
PACE_RATE=${SCRAPE_BENCH_RATE:-10}  # scrapes per second per paced scraper
NODE_EXPORTER=$(command -v prometheus-node-exporter || true)
for bin in "$FABRICMON" "$FABRICSIM" "$SCRAPE_CLIENT"; do
  [ -x "$bin" ] || { echo "scrape_bench: $bin not built" >&2; exit 1; }
done
if ! command -v wrk >/dev/null; then
  echo "scrape_bench: wrk is not installed (apt-get install -y wrk)" >&2
  [ "$SMOKE" = 1 ] && exit 77
  exit 1
fi

BASE=/tmp
[ -d /dev/shm ] && BASE=/dev/shm
WORK=$(mktemp -d "$BASE/fabricmon-scrape-bench.XXXXXX")
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    # Bounded wait, then KILL: nothing started here outlives the script.
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits up to $2 seconds for the command $1 (a string) to succeed.
wait_for() {
  local deadline=$((SECONDS + $2))
  until eval "$1"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}

# A loopback port nothing listens on (node_exporter cannot pick one itself).
free_port() {
  if command -v python3 >/dev/null &&
     python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null; then
    return
  fi
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
  done
  return 1
}

# Series = non-comment, non-empty lines of the exposition.
count_series() { curl -sf --max-time 5 "$1" | grep -cv '^#\|^$' || true; }
count_series_matching() { curl -sf --max-time 5 "$1" | grep -v '^#' | grep -c "$2" || true; }

# Converts a wrk latency ("812.00us", "1.23ms", "2.01s") to milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    n = v + 0
    if (v ~ /us$/) n = n / 1000; else if (v ~ /ms$/) n = n; else if (v ~ /m$/) n = n * 60000; else if (v ~ /s$/) n = n * 1000
    printf "%.3f", n }'
}

# run_wrk NAME URL CONNECTIONS KEEPALIVE(1|0) [extra wrk args] -> sets P50 P99 RPS ERRS
run_wrk() {
  local name=$1 url=$2 conns=$3 keepalive=$4
  shift 4
  local threads=$((conns < 2 ? 1 : 2))  # 2 cores: more client threads only steal from the server
  local args=(-t"$threads" -c"$conns" -d"$DURATION" --timeout 5s --latency "$@")
  [ "$keepalive" = 1 ] || args+=(-H "Connection: close")
  local out="$WORK/wrk-$name.txt"
  wrk "${args[@]}" "$url" >"$out" 2>&1 || { echo "scrape_bench: wrk failed:" >&2; cat "$out" >&2; return 1; }
  P50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$out")")
  P99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$out")")
  RPS=$(awk '$1 == "Requests/sec:" {printf "%.0f", $2}' "$out")
  # Socket errors and non-2xx answers both count as errors.
  ERRS=$(awk '/Socket errors/ {gsub(",", ""); s += $4 + $6 + $8 + $10} /Non-2xx/ {s += $NF} END {print s + 0}' "$out")
}

cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.3f", ($14 + $15) / hz}' "/proc/$1/stat"; }

# run_paced NAME URL SCRAPERS [--close] [--gzip] -> sets P50 P99 RPS ERRS (RPS = scrapes done per second)
run_paced() {
  local name=$1 url=$2 n=$3
  shift 3
  local secs=${DURATION%s}
  local out="$WORK/paced-$name.txt"
  "$SCRAPE_CLIENT" --url "$url" --scrapers "$n" --rate "$PACE_RATE" --duration "$secs" "$@" >"$out" 2>&1 ||
    { echo "scrape_bench: scrape_client failed:" >&2; cat "$out" >&2; return 1; }
  P50=$(sed -n 's/.*p50_ms=\([0-9.]*\).*/\1/p' "$out")
  P99=$(sed -n 's/.*p99_ms=\([0-9.]*\).*/\1/p' "$out")
  ERRS=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' "$out")
  RPS=$(sed -n 's/^scrapes=\([0-9]*\).*/\1/p' "$out" | awk -v s="$secs" '{printf "%.0f", $1 / s}')
}

rss_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the simulated node, with counters moving ----
"$FABRICSIM" --root "$WORK/node" --interval 1s >"$WORK/fabricsim.log" 2>&1 &
PIDS+=($!)
wait_for "[ -d '$WORK/node/sys/class/infiniband/mlx5_0' ] && [ -d '$WORK/node/dcb' ]" 30 ||
  { echo "scrape_bench: fabricsim did not write the tree" >&2; cat "$WORK/fabricsim.log" >&2; exit 1; }
sleep 1

# Measures one server: sets <PREFIX>_{p50,p99,rps,errs}_<case>, <PREFIX>_rss, _hwm.
# Cases: ka1, ka8 (keep-alive, 1 and 8 connections), close1, close8 (new connection per request),
# gz8 (keep-alive, 8 connections, Accept-Encoding: gzip as Prometheus sends it).
measure() {
  local prefix=$1 url=$2 pid=$3
  local c
  for c in pace1 pace8 pace8close pace8gz ka1 ka8 close1 close8 gz8; do
    if [ "$SMOKE" = 1 ]; then case $c in pace8|ka1|ka8|close8) ;; *) continue ;; esac; fi
    case $c in
      pace1) run_paced "$prefix-$c" "$url" 1 ;;
      pace8) run_paced "$prefix-$c" "$url" 8 ;;
      pace8close) run_paced "$prefix-$c" "$url" 8 --close ;;
      pace8gz) run_paced "$prefix-$c" "$url" 8 --gzip ;;
      ka1) run_wrk "$prefix-$c" "$url" 1 1 ;;
      ka8) run_wrk "$prefix-$c" "$url" 8 1 ;;
      close1) run_wrk "$prefix-$c" "$url" 1 0 ;;
      close8) run_wrk "$prefix-$c" "$url" 8 0 ;;
      gz8) run_wrk "$prefix-$c" "$url" 8 1 -H "Accept-Encoding: gzip" ;;
    esac
    printf -v "${prefix}_p50_$c" %s "$P50"
    printf -v "${prefix}_p99_$c" %s "$P99"
    printf -v "${prefix}_rps_$c" %s "$RPS"
    printf -v "${prefix}_errs_$c" %s "$ERRS"
    echo "  $prefix $c: p50 ${P50} ms, p99 ${P99} ms, ${RPS} req/s, ${ERRS} errors" >&2
  done
  printf -v "${prefix}_rss" %s "$(rss_kb "$pid" VmRSS)"
  printf -v "${prefix}_hwm" %s "$(rss_kb "$pid" VmHWM)"
}

# ---- fabricmon ----
"$FABRICMON" run --sysfs-root "$WORK/node/sys" --ethtool-dir "$WORK/node/ethtool" \
  --dcb-dir "$WORK/node/dcb" --listen 127.0.0.1:0 >"$WORK/fabricmon.log" 2>&1 &
FM_PID=$!
PIDS+=("$FM_PID")
wait_for "grep -q 'serving http://127.0.0.1:[0-9]*/metrics' '$WORK/fabricmon.log'" 30 ||
  { echo "scrape_bench: fabricmon did not start" >&2; cat "$WORK/fabricmon.log" >&2; exit 1; }
FM_PORT=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$WORK/fabricmon.log" | sed -n 1p)
FM_URL=http://127.0.0.1:$FM_PORT/metrics
sleep "$SETTLE"
cpu0=$(cpu_seconds "$FM_PID")
sleep "$IDLE"
cpu1=$(cpu_seconds "$FM_PID")
fm_idle_cpu=$(awk -v a="$cpu0" -v b="$cpu1" -v t="$IDLE" 'BEGIN {printf "%.2f", (b - a) / t * 100}')
fm_series=$(count_series "$FM_URL")
fm_fabric=$(count_series_matching "$FM_URL" '^fabricmon_\(port\|pma\|roce\|hw_stat\|device\|netdev\|pfc\|pause\|priority\|ethtool\|dcqcn\)')
fm_bytes=$(curl -sf --max-time 5 "$FM_URL" | wc -c)
[ "${fm_series:-0}" -gt 0 ] || { echo "scrape_bench: fabricmon served no series" >&2; cat "$WORK/fabricmon.log" >&2; exit 1; }
echo "fabricmon pid $FM_PID on $FM_URL: $fm_series series ($fm_bytes bytes)" >&2
measure fm "$FM_URL" "$FM_PID"

# ---- node_exporter over the same tree ----
ne_ok=0
if [ -n "$NODE_EXPORTER" ]; then
  NE_PORT=$(free_port) || { echo "scrape_bench: no free port" >&2; exit 1; }
  "$NODE_EXPORTER" --path.sysfs="$WORK/node/sys" --collector.disable-defaults --collector.infiniband \
    --collector.netclass --web.listen-address=127.0.0.1:"$NE_PORT" >"$WORK/node_exporter.log" 2>&1 &
  NE_PID=$!
  PIDS+=("$NE_PID")
  NE_URL=http://127.0.0.1:$NE_PORT/metrics
  if wait_for "curl -sf --max-time 2 -o /dev/null '$NE_URL'" 30; then
    ne_ok=1
    ne_series=$(count_series "$NE_URL")
    ne_fabric=$(count_series_matching "$NE_URL" '^node_\(infiniband\|network\)_')
    ne_bytes=$(curl -sf --max-time 5 "$NE_URL" | wc -c)
    echo "node_exporter pid $NE_PID on $NE_URL: $ne_series series ($ne_bytes bytes)" >&2
    measure ne "$NE_URL" "$NE_PID"
    # "broken pipe" / "connection reset" are wrk closing its connections at the end of a run.
    ne_errors=$(grep 'level=error' "$WORK/node_exporter.log" | grep -v 'broken pipe\|connection reset' || true)
    if [ -n "$ne_errors" ]; then
      echo "node_exporter logged errors (first 3):" >&2
      printf '%s\n' "$ne_errors" | sed -n 1,3p >&2
    fi
  else
    echo "scrape_bench: node_exporter did not answer; its column is left empty" >&2
    cat "$WORK/node_exporter.log" >&2
  fi
else
  echo "scrape_bench: prometheus-node-exporter not installed; its column is left empty" >&2
fi

# ---- the table ----
v() { local n=$1; printf %s "${!n:-n/a}"; }
row() {  # label fabricmon-var node_exporter-var
  local ne='n/a'
  [ "$ne_ok" = 1 ] && ne=$(v "$3")
  printf '| %-52s | %14s | %14s |\n' "$1" "$(v "$2")" "$ne"
}
echo
echo "scrape_bench: $(date -u +%FT%TZ), $DURATION per row, load average at the start: $LOAD_START, at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| %-52s | %14s | %14s |\n' "" "fabricmon" "node_exporter"
printf '|%s|%s|%s|\n' "------------------------------------------------------" "----------------" "----------------"
for c in pace1 pace8 pace8close pace8gz ka1 ka8 close1 close8 gz8; do
  case $c in
    pace1) label="paced: 1 scraper" ;;
    pace8) label="paced: 8 scrapers at once, keep-alive" ;;
    pace8close) label="paced: 8 scrapers at once, new connection" ;;
    pace8gz) label="paced: 8 scrapers at once, keep-alive, gzip" ;;
    ka1) label="wrk: 1 scraper, keep-alive" ;;
    ka8) label="wrk: 8 scrapers, keep-alive" ;;
    close1) label="wrk: 1 scraper, new connection" ;;
    close8) label="wrk: 8 scrapers, new connection" ;;
    gz8) label="wrk: 8 scrapers, keep-alive, gzip" ;;
  esac
  [ -n "$(v fm_p50_$c | grep -v n/a)" ] || continue
  row "$label: p50 ms" "fm_p50_$c" "ne_p50_$c"
  row "$label: p99 ms" "fm_p99_$c" "ne_p99_$c"
  case $c in pace*) ;; *) row "$label: scrapes/s" "fm_rps_$c" "ne_rps_$c" ;; esac
  row "$label: errors" "fm_errs_$c" "ne_errs_$c"
done
fm_rss_mb=$(awk -v k="${fm_rss:-0}" 'BEGIN {printf "%.1f", k / 1024}')
fm_hwm_mb=$(awk -v k="${fm_hwm:-0}" 'BEGIN {printf "%.1f", k / 1024}')
ne_rss_mb=$(awk -v k="${ne_rss:-0}" 'BEGIN {printf "%.1f", k / 1024}')
ne_hwm_mb=$(awk -v k="${ne_hwm:-0}" 'BEGIN {printf "%.1f", k / 1024}')
row "VmRSS after the load, MiB" fm_rss_mb ne_rss_mb
row "VmHWM (peak RSS), MiB" fm_hwm_mb ne_hwm_mb
row "series in /metrics (all)" fm_series ne_series
row "series of the fabric (no self metrics)" fm_fabric ne_fabric
row "/metrics size, bytes (uncompressed)" fm_bytes ne_bytes

# Targets (docs/benchmarks.md). Printed, never enforced: speed is not a test.
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || a == "n/a") print "n/a"; else if (a + 0 < b + 0) print "met"; else print "MISSED" }'; }
echo
echo "target fabricmon p99 < 2 ms at 8 concurrent scrapers, paced (${PACE_RATE}/s each, all at once): $(verdict "$(v fm_p99_pace8)" 2) ($(v fm_p99_pace8) ms)"
echo "  same under wrk's closed loop (saturates the 2 cores, see docs/benchmarks.md): $(verdict "$(v fm_p99_ka8)" 2) ($(v fm_p99_ka8) ms)"
echo "target fabricmon VmRSS < 20 MB after the load: $(verdict "$fm_rss_mb" 20) ($fm_rss_mb MiB, peak $fm_hwm_mb MiB)"
echo "fabricmon CPU with no scrapes (sampling, watchdog, rendering), over ${IDLE} s: ${fm_idle_cpu} % of one core"

# A smoke run must have scraped without errors.
if [ "$SMOKE" = 1 ]; then
  [ "${fm_errs_ka8:-1}" = 0 ] && [ "${fm_errs_pace8:-1}" = 0 ] || { echo "scrape_bench: errors while scraping fabricmon" >&2; exit 1; }
fi
