#!/usr/bin/env bash
# scale_bench: what fabricmon costs as a node grows, beside Debian's node_exporter on the same tree
# (docs/benchmarks.md, "scale_bench").
#
#   tests/bench/scale_bench.sh BUILD_DIR [--smoke]
#   tests/bench/scale_bench.sh BUILD_DIR --memory [--smoke]
#
# --memory (docs/benchmarks.md, "scale_bench --memory"): every node at once -- the default simulated
# node (counters moving) and the N-device nodes -- each with fabricmon at 1 s polling and
# node_exporter on the same tree, both scraped with gzip every 15 s, for SCALE_BENCH_FILL seconds
# (default 660: the default 10 min window full, plus one chunk). Then it prints per node: VmRSS of
# both (median / largest of readings every 2 s) and CPU of both over the last SCALE_BENCH_WINDOW
# seconds (default 60), the window's bytes, samples
# and bytes per sample (fabricmon_window_bytes / fabricmon_window_samples), and /api/v1/window latency
# (seconds=300) for one port and for the whole node. SCALE_BENCH_CONFIG: a fabricmon config file for
# every daemon (e.g. one with window.enabled: false, for the memory the window costs).
#
# For each node -- the simulator's default node (8 RoCE + 1 InfiniBand port, counters moving) and
# N single-port mlx5 RoCE devices for N in SCALE_BENCH_SIZES (default "8 32 128", written by
# tests/bench/make_node.py) -- it prints:
#   - fabricmon CPU per second of polling at 1 s and at 250 ms, with a scraper every 15 s (as
#     Prometheus), over SCALE_BENCH_WINDOW seconds (default 30), and the pread floor of the same tree
#     per second at the same intervals (poll_bench with FABRICMON_BENCH_TREE);
#   - scrape p50/p99 in ms, 1 and 8 concurrent scrapers (scrape_client, paced: all at the same
#     instants, SCALE_BENCH_RATE scrapes/s each for SCALE_BENCH_SCRAPE seconds), with and without gzip;
#   - VmRSS / VmHWM, open descriptors and series, for fabricmon (at 1 s polling) and node_exporter
#     (--path.sysfs on the same tree, collectors infiniband and netclass only).
# Everything listens on 127.0.0.1; every process started here is stopped by PID on exit.
# --smoke: the default node only, short windows; checks that it runs, never how fast.
set -euo pipefail

usage() { echo "usage: $0 BUILD_DIR [--smoke]" >&2; exit 2; }
[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd) || usage
HERE=$(cd "$(dirname "$0")" && pwd)
SMOKE=0
MEMORY=0
for arg in "${@:2}"; do
  case $arg in
    --smoke) SMOKE=1 ;;
    --memory) MEMORY=1 ;;
    *) usage ;;
  esac
done

SIZES=${SCALE_BENCH_SIZES:-8 32 128}
WINDOW=${SCALE_BENCH_WINDOW:-30}
SCRAPE_SECS=${SCALE_BENCH_SCRAPE:-8}
RATE=${SCALE_BENCH_RATE:-10}
SCRAPE_EVERY=15
SETTLE=${SCALE_BENCH_SETTLE:-5}
FILL=${SCALE_BENCH_FILL:-660}
if [ "$MEMORY" = 1 ]; then WINDOW=${SCALE_BENCH_WINDOW:-60}; fi
if [ "$SMOKE" = 1 ]; then
  SIZES=""; WINDOW=2; SCRAPE_SECS=1; SETTLE=2
  if [ "$MEMORY" = 1 ]; then SIZES=8; FILL=6; fi
fi
CONFIG_ARGS=()
[ -n "${SCALE_BENCH_CONFIG:-}" ] && CONFIG_ARGS=(--config "$SCALE_BENCH_CONFIG")

FABRICMON=$BUILD/daemon/fabricmon
FABRICSIM=$BUILD/sim/fabricsim
SCRAPE_CLIENT=$BUILD/tests/bench/scrape_client
POLL_BENCH=$BUILD/tests/bench/poll_bench
NODE_EXPORTER=$(command -v prometheus-node-exporter || true)
NEEDED=("$FABRICMON" "$FABRICSIM")
[ "$MEMORY" = 1 ] || NEEDED+=("$SCRAPE_CLIENT" "$POLL_BENCH")
for bin in "${NEEDED[@]}"; do
  [ -x "$bin" ] || { echo "scale_bench: $bin not built" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "scale_bench: needs python3 (make_node.py)" >&2; exit 1; }

BASE=/tmp
[ -d /dev/shm ] && BASE=/dev/shm
WORK=$(mktemp -d "$BASE/fabricmon-scale-bench.XXXXXX")
PIDS=()
stop_pid() {
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() {
  local deadline=$((SECONDS + $2))
  until eval "$1"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss_mib() { awk -v k="$2:" '$1 == k {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }
count_series() { curl -sf --max-time 10 "$1" | grep -cv '^#\|^$' || true; }

# cpu_percent PID URL-or-empty: % of one core over WINDOW s, scraping URL (gzip) every 15 s.
cpu_percent() {
  local pid=$1 url=$2 hz t0 t1 scraper=""
  hz=$(getconf CLK_TCK)
  if [ -n "$url" ]; then
    ( while :; do curl -sf --max-time 10 -H 'Accept-Encoding: gzip' -o /dev/null "$url" || true; sleep "$SCRAPE_EVERY"; done ) &
    scraper=$!
  fi
  t0=$(cpu_ticks "$pid")
  sleep "$WINDOW"
  t1=$(cpu_ticks "$pid")
  if [ -n "$scraper" ]; then kill "$scraper" 2>/dev/null || true; wait "$scraper" 2>/dev/null || true; fi
  awk -v a="$t0" -v b="$t1" -v hz="$hz" -v w="$WINDOW" 'BEGIN {printf "%.2f", (b - a) / hz / w * 100}'
}

# latency URL N [--gzip] -> "p50/p99" in ms
latency() {
  local url=$1 n=$2 out
  shift 2
  out=$("$SCRAPE_CLIENT" --url "$url" --scrapers "$n" --rate "$RATE" --duration "$SCRAPE_SECS" "$@" 2>&1) ||
    { echo "scale_bench: scrape_client failed: $out" >&2; echo "n/a"; return; }
  local p50 p99 errs
  p50=$(sed -n 's/.*p50_ms=\([0-9.]*\).*/\1/p' <<<"$out")
  p99=$(sed -n 's/.*p99_ms=\([0-9.]*\).*/\1/p' <<<"$out")
  errs=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$out")
  [ "${errs:-1}" = 0 ] || echo "scale_bench: $errs errors scraping $url" >&2
  printf '%.2f / %.2f' "$p50" "$p99"
}

start_fabricmon() {  # ROOT INTERVAL -> FM_PID FM_URL
  local root=$1 interval=$2 log="$WORK/fabricmon-$RANDOM.log"
  "$FABRICMON" run ${CONFIG_ARGS[@]+"${CONFIG_ARGS[@]}"} --sysfs-root "$root/sys" --ethtool-dir "$root/ethtool" --dcb-dir "$root/dcb" \
    --listen 127.0.0.1:0 --poll-interval "$interval" --log-level warn >"$log" 2>&1 &
  FM_PID=$!
  PIDS+=("$FM_PID")
  # The listen line is logged at info; ask the kernel for the port instead.
  wait_for "ss -Htlnp 2>/dev/null | grep -q 'pid=$FM_PID,'" 30 ||
    { echo "scale_bench: fabricmon did not start" >&2; cat "$log" >&2; exit 1; }
  local port
  port=$(ss -Htlnp | grep "pid=$FM_PID," | awk '{print $4}' | sed 's/.*://' | head -1)
  FM_URL=http://127.0.0.1:$port/metrics
  wait_for "curl -sf --max-time 2 -o /dev/null '$FM_URL'" 30 || { echo "scale_bench: no /metrics" >&2; exit 1; }
}

SUMMARY=()
measure_node() {  # LABEL ROOT
  local label=$1 root=$2
  echo "== $label ==" >&2
  local floor1="n/a" floor250="n/a" ports
  ports=$(ls "$root/sys/class/infiniband" | wc -l)
  local pb
  pb=$(FABRICMON_BENCH_TREE=$root "$POLL_BENCH" --benchmark_filter='BM_Floor/(all|fast)$' \
         --benchmark_min_time="$([ "$SMOKE" = 1 ] && echo 0.01 || echo 0.5)" 2>/dev/null) ||
    echo "scale_bench: poll_bench failed on $root" >&2
  floor1=$(sed -n 's/.*at 1000 ms polling: floor_us_per_s=\([0-9.]*\).*/\1/p' <<<"$pb")
  floor250=$(sed -n 's/.*at 250 ms polling: floor_us_per_s=\([0-9.]*\).*/\1/p' <<<"$pb")

  # fabricmon at 250 ms: CPU only.
  start_fabricmon "$root" 250ms
  sleep "$SETTLE"
  local cpu250
  cpu250=$(cpu_percent "$FM_PID" "$FM_URL")
  stop_pid "$FM_PID"

  # fabricmon at 1 s: CPU, then latency, memory, descriptors, series.
  start_fabricmon "$root" 1s
  sleep "$SETTLE"
  local cpu1 fm_series fm_l1 fm_l8 fm_g1 fm_g8 fm_rss fm_hwm fm_fds
  cpu1=$(cpu_percent "$FM_PID" "$FM_URL")
  fm_series=$(count_series "$FM_URL")
  fm_l1=$(latency "$FM_URL" 1)
  fm_l8=$(latency "$FM_URL" 8)
  fm_g1=$(latency "$FM_URL" 1 --gzip)
  fm_g8=$(latency "$FM_URL" 8 --gzip)
  # The daemon's own view of the same scrapes (fabricmon_http_request_duration_seconds): the share
  # answered within 1, 2.5 and 5 ms, server time only (no client, no network).
  local fm_server
  fm_server=$(curl -sf --max-time 10 "$FM_URL" | awk '
    /^fabricmon_http_request_duration_seconds_bucket\{handler="\/metrics",le="(0\.001|0\.0025|0\.005|\+Inf)"\}/ {
      match($0, /le="[^"]*"/); le = substr($0, RSTART + 4, RLENGTH - 5); n[le] = $2 }
    END { if (n["+Inf"] > 0) printf "%.1f / %.1f / %.1f %%", 100 * n["0.001"] / n["+Inf"], 100 * n["0.0025"] / n["+Inf"], 100 * n["0.005"] / n["+Inf"]; else print "n/a" }')
  fm_rss=$(rss_mib "$FM_PID" VmRSS)
  fm_hwm=$(rss_mib "$FM_PID" VmHWM)
  fm_fds=$(fds "$FM_PID")
  stop_pid "$FM_PID"

  local ne_cpu="n/a" ne_series="n/a" ne_l1="n/a" ne_l8="n/a" ne_g1="n/a" ne_g8="n/a" ne_rss="n/a" ne_hwm="n/a" ne_fds="n/a"
  if [ -n "$NODE_EXPORTER" ]; then
    local port
    port=$(free_port)
    "$NODE_EXPORTER" --path.sysfs="$root/sys" --collector.disable-defaults --collector.infiniband \
      --collector.netclass --web.listen-address=127.0.0.1:"$port" >"$WORK/ne-$ports.log" 2>&1 &
    local ne_pid=$!
    PIDS+=("$ne_pid")
    local ne_url=http://127.0.0.1:$port/metrics
    if wait_for "curl -sf --max-time 2 -o /dev/null '$ne_url'" 30; then
      ne_cpu=$(cpu_percent "$ne_pid" "$ne_url")
      ne_series=$(count_series "$ne_url")
      ne_l1=$(latency "$ne_url" 1)
      ne_l8=$(latency "$ne_url" 8)
      ne_g1=$(latency "$ne_url" 1 --gzip)
      ne_g8=$(latency "$ne_url" 8 --gzip)
      ne_rss=$(rss_mib "$ne_pid" VmRSS)
      ne_hwm=$(rss_mib "$ne_pid" VmHWM)
      ne_fds=$(fds "$ne_pid")
    else
      echo "scale_bench: node_exporter did not answer" >&2
    fi
    stop_pid "$ne_pid"
  fi

  ratio() { awk -v c="$1" -v f="$2" 'BEGIN { if (f == "" || f == "n/a" || f + 0 == 0) print "n/a"; else printf "%.2f", c * 1e4 / f }'; }
  local fl1 fl250
  fl1=$(awk -v f="$floor1" 'BEGIN { if (f == "") print "n/a"; else printf "%.3f", f / 1e4 }')
  fl250=$(awk -v f="$floor250" 'BEGIN { if (f == "") print "n/a"; else printf "%.3f", f / 1e4 }')
  echo
  echo "### $label ($ports RDMA devices), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '| %-58s | %16s | %16s |\n' "" fabricmon node_exporter
  printf '|%s|%s|%s|\n' "------------------------------------------------------------" "------------------" "------------------"
  printf '| %-58s | %16s | %16s |\n' "CPU, % of a core, 1 s polling, a scrape every 15 s" "$cpu1" "$ne_cpu"
  printf '| %-58s | %16s | %16s |\n' "pread floor of the tree at 1 s, % of a core (ratio)" "$fl1 ($(ratio "$cpu1" "$floor1")x)" ""
  printf '| %-58s | %16s | %16s |\n' "CPU, % of a core, 250 ms polling, a scrape every 15 s" "$cpu250" ""
  printf '| %-58s | %16s | %16s |\n' "pread floor at 250 ms, % of a core (ratio)" "$fl250 ($(ratio "$cpu250" "$floor250")x)" ""
  printf '| %-58s | %16s | %16s |\n' "scrape p50 / p99 ms, 1 scraper" "$fm_l1" "$ne_l1"
  printf '| %-58s | %16s | %16s |\n' "scrape p50 / p99 ms, 8 concurrent scrapers" "$fm_l8" "$ne_l8"
  printf '| %-58s | %16s | %16s |\n' "scrape p50 / p99 ms, 1 scraper, gzip" "$fm_g1" "$ne_g1"
  printf '| %-58s | %16s | %16s |\n' "scrape p50 / p99 ms, 8 concurrent scrapers, gzip" "$fm_g8" "$ne_g8"
  printf '| %-58s | %16s | %16s |\n' "server-side: /metrics answered within 1 / 2.5 / 5 ms" "$fm_server" ""
  printf '| %-58s | %16s | %16s |\n' "VmRSS / VmHWM, MiB" "$fm_rss / $fm_hwm" "$ne_rss / $ne_hwm"
  printf '| %-58s | %16s | %16s |\n' "open descriptors" "$fm_fds" "$ne_fds"
  printf '| %-58s | %16s | %16s |\n' "series" "$fm_series" "$ne_series"
  SUMMARY+=("| $label | $cpu1 | $fl1 | $(ratio "$cpu1" "$floor1") | $cpu250 | $(ratio "$cpu250" "$floor250") | ${fm_l8#* / } | ${fm_g8#* / } | $fm_rss | $ne_rss | $fm_fds | $fm_series | ${ne_l1#* / } |")
}


# --memory: every node at once, fabricmon beside node_exporter, until the window is full.
metric() { curl -sf --max-time 10 "$1" | awk -v m="$2" '$1 == m {print $2}'; }
# window_latency URL N -> "p50 / max" ms of N sequential GETs
window_latency() {
  local url=$1 n=$2 i t
  for i in $(seq "$n"); do curl -sf --max-time 10 -o /dev/null -w '%{time_total}\n' "$url" || echo 10; done |
    sort -n | awk '{t[NR] = $1 * 1000} END {printf "%.2f / %.2f", t[int((NR + 1) / 2)], t[NR]}'
}
memory_run() {
  local labels=() roots=() fm_pids=() fm_urls=() ne_pids=() ne_urls=() scrapers=()
  "$FABRICSIM" --root "$WORK/default" --lldp-pod su1 --interval 1s >"$WORK/fabricsim.log" 2>&1 &
  PIDS+=($!)
  wait_for "[ -d '$WORK/default/sys/class/infiniband/mlx5_0' ] && [ -d '$WORK/default/dcb' ]" 30 ||
    { echo "scale_bench: fabricsim did not write the tree" >&2; exit 1; }
  labels+=("default simulated node"); roots+=("$WORK/default")
  for n in $SIZES; do
    "$HERE/make_node.py" "$FABRICSIM" "$WORK/n$n" "$n"
    labels+=("$n devices"); roots+=("$WORK/n$n")
  done
  local i port
  for i in "${!roots[@]}"; do
    start_fabricmon "${roots[$i]}" 1s
    fm_pids+=("$FM_PID"); fm_urls+=("$FM_URL")
    if [ -n "$NODE_EXPORTER" ]; then
      port=$(free_port)
      "$NODE_EXPORTER" --path.sysfs="${roots[$i]}/sys" --collector.disable-defaults --collector.infiniband \
        --collector.netclass --web.listen-address=127.0.0.1:"$port" >"$WORK/ne-$i.log" 2>&1 &
      PIDS+=($!); ne_pids+=($!); ne_urls+=("http://127.0.0.1:$port/metrics")
    else
      ne_pids+=(""); ne_urls+=("")
    fi
  done
  # One scraper per daemon, as Prometheus: gzip, every 15 s.
  for url in "${fm_urls[@]}" "${ne_urls[@]}"; do
    [ -n "$url" ] || continue
    ( while :; do curl -sf --max-time 10 -H 'Accept-Encoding: gzip' -o /dev/null "$url" || true; sleep "$SCRAPE_EVERY"; done ) &
    PIDS+=($!); scrapers+=($!)
  done
  local hold=$((FILL - WINDOW))
  [ "$hold" -gt 0 ] || hold=0
  echo "scale_bench --memory: ${#roots[@]} nodes at once; filling the window for $FILL s (CPU over the last $WINDOW s)" >&2
  sleep "$hold"
  local hz t0=() t1=() pid
  hz=$(getconf CLK_TCK)
  for pid in "${fm_pids[@]}" "${ne_pids[@]}"; do if [ -n "$pid" ]; then t0+=("$(cpu_ticks "$pid")"); else t0+=(0); fi; done
  # VmRSS every 2 s through the CPU window, one file per process: one reading can catch a rendered
  # exposition that lives for one poll after a gzip scrape (2.7 MB at 128 devices), so the table
  # gives the median and the largest.
  local j rss all_pids=("${fm_pids[@]}" "${ne_pids[@]}") start_ns end_ns
  start_ns=$(date +%s%N)
  end_ns=$((start_ns + WINDOW * 1000000000))
  while :; do
    for j in "${!all_pids[@]}"; do
      [ -n "${all_pids[$j]}" ] || continue
      # A process that has exited gives no reading, not a zero that would pull the median down.
      rss=$(rss_mib "${all_pids[$j]}" VmRSS 2>/dev/null || true)
      if [ -n "$rss" ]; then echo "$rss" >>"$WORK/rss-$j"; fi
    done
    local left_ns=$((end_ns - $(date +%s%N)))
    [ "$left_ns" -gt 0 ] || break
    if [ "$left_ns" -gt 2000000000 ]; then sleep 2; else sleep "$(awk -v n="$left_ns" 'BEGIN {printf "%.3f", n / 1e9}')"; fi
  done
  for pid in "${fm_pids[@]}" "${ne_pids[@]}"; do if [ -n "$pid" ]; then t1+=("$(cpu_ticks "$pid")"); else t1+=(0); fi; done
  local n=${#roots[@]}
  cpu_of() { awk -v a="${t0[$1]}" -v b="${t1[$1]}" -v hz="$hz" -v w="$WINDOW" 'BEGIN {printf "%.2f", (b - a) / hz / w * 100}'; }
  # rss_of INDEX: "median / max" MiB of the VmRSS readings taken through the CPU window.
  rss_of() { sort -n "$WORK/rss-$1" | awk '{v[NR] = $1} END {if (NR == 0) print "n/a"; else printf "%.1f / %.1f", v[int((NR + 1) / 2)], v[NR]}'; }
  echo
  echo "### scale_bench --memory: fabricmon beside node_exporter, 1 s polling, gzip scrape every 15 s, after $FILL s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo "| node | fabricmon RSS MiB median / max | node_exporter RSS MiB median / max | fabricmon CPU % | node_exporter CPU % | series | window MiB | window samples | bytes / sample | covered s | /api/v1/window one port p50 / max ms | whole node p50 / max ms |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  local reps
  reps=$([ "$SMOKE" = 1 ] && echo 3 || echo 20)
  for i in "${!roots[@]}"; do
    local fm=${fm_pids[$i]} ne=${ne_pids[$i]} url=${fm_urls[$i]} base bytes samples bps dev covered one all
    base=${url%/metrics}
    bytes=$(metric "$url" fabricmon_window_bytes)
    samples=$(metric "$url" fabricmon_window_samples)
    bps=$(awk -v b="${bytes:-0}" -v s="${samples:-0}" 'BEGIN { if (s > 0) printf "%.2f", b / s; else print "n/a" }')
    dev=$(ls "${roots[$i]}/sys/class/infiniband" | sort -V | tail -1)
    covered=$(curl -sf --max-time 10 "$base/api/v1/window?seconds=300&device=$dev" |
      sed -n 's/.*"covered_seconds":\([0-9.]*\).*/\1/p')
    one=$(window_latency "$base/api/v1/window?seconds=300&device=$dev" "$reps")
    all=$(window_latency "$base/api/v1/window?seconds=300" 3)
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "${labels[$i]}" \
      "$(rss_of "$i")" "$([ -n "$ne" ] && rss_of $((n + i)) || echo n/a)" \
      "$(cpu_of "$i")" "$([ -n "$ne" ] && cpu_of $((n + i)) || echo n/a)" "$(count_series "$url")" \
      "$(awk -v b="${bytes:-0}" 'BEGIN {printf "%.2f", b / 1048576}')" "${samples:-n/a}" "$bps" "${covered:-n/a}" "$one" "$all"
  done
  for pid in "${scrapers[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
}
if [ "$MEMORY" = 1 ]; then
  echo "scale_bench --memory: $(date -u +%FT%TZ), load average at the start: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
  memory_run
  exit 0
fi

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
echo "scale_bench: $(date -u +%FT%TZ), load average at the start: $LOAD_START, $(nproc) cores"

# The default simulated node, counters moving every second.
"$FABRICSIM" --root "$WORK/default" --lldp-pod su1 --interval 1s >"$WORK/fabricsim.log" 2>&1 &
SIM_PID=$!
PIDS+=("$SIM_PID")
wait_for "[ -d '$WORK/default/sys/class/infiniband/mlx5_0' ] && [ -d '$WORK/default/dcb' ]" 30 ||
  { echo "scale_bench: fabricsim did not write the tree" >&2; exit 1; }
measure_node "default simulated node" "$WORK/default"
stop_pid "$SIM_PID"

for n in $SIZES; do
  "$HERE/make_node.py" "$FABRICSIM" "$WORK/n$n" "$n"
  measure_node "$n single-port RoCE devices" "$WORK/n$n"
  rm -rf "$WORK/n$n"
done

echo
echo "### summary (load average at the start $LOAD_START, at the end $(cut -d' ' -f1-3 /proc/loadavg))"
echo "| node | CPU % 1 s | floor % 1 s | ratio | CPU % 250 ms | ratio | p99 ms 8 scrapers | p99 ms 8 gzip | RSS MiB | node_exporter RSS MiB | open fds | series | node_exporter p99 ms 1 scraper |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${SUMMARY[@]}"
