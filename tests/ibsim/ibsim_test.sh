#!/usr/bin/env bash
# fabricmon as one HCA of a simulated InfiniBand fabric (ibsim): every case starts its own simulator
# (own socket), opensm, and the real daemon preloaded with libumad2sim. Usage: ibsim_test.sh CASE
set -u
. "$(dirname "$0")/lib.sh"

# PMA counters of Switch1 port 1 (the port facing Hca1) as perfquery reads them: "Name value" lines.
switch_lid() { client "$SOCK" Hca1 smpquery -D portinfo 0,1 0 | awk -F. '/^Lid:/{print $NF}'; }
perf() { client "$SOCK" Hca1 perfquery "$@" "$LID" 1 | sed -n 's/^\([A-Za-z0-9]*\):\.*\([0-9]*\)$/\1 \2/p'; }
perf_value() { perf "${@:2}" | awk -v n="$1" '$1 == n {print $2}'; }

collector_runs() { metric_value 'fabricmon_collector_last_success_timestamp_seconds\{collector="peer_port"\}'; }
wait_next_poll() {
  local before
  before=$(collector_runs)
  wait_until 5 'test "$(collector_runs)" != "$before"'
}
active_finding() { findings | grep -q "\"rule\":\"$1\".*$2" ; }
finding_with() {  # rule side
  findings | python3 -c '
import json, sys
rule, side = sys.argv[1], sys.argv[2]
for f in json.load(sys.stdin).get("findings", []):
    labels = f.get("labels", {})
    if f.get("rule") == rule and labels.get("side") == side:
        sys.exit(0)
sys.exit(1)' "$1" "$2"
}

case_identity_and_counters() {
  LID=$(switch_lid)
  [ -n "$LID" ] || fail "no LID for Switch1"
  local info
  info=$(metrics | grep '^fabricmon_peer_port_info{')
  echo "$info"
  echo "$info" | grep -q 'device="ibsim0",port="1",peer_guid="0x0000000000200000",peer_port="1",peer_description="Switch1",peer_type="switch"' ||
    fail "neighbour identity wrong: $info"
  # Error counters set on the switch port: equal to what perfquery reads.
  sim_cmd "$WORK" 'PerformanceSet "Switch1"[1] PortCounters.SymbolErrorCounter=7'
  sim_cmd "$WORK" 'PerformanceSet "Switch1"[1] PortCounters.PortRcvErrors=3'
  sim_cmd "$WORK" 'PerformanceSet "Switch1"[1] PortCounters.LinkErrorRecoveryCounter=2'
  sim_cmd "$WORK" 'PerformanceSet "Switch1"[1] PortCounters.PortXmitDiscards=5'
  sim_cmd "$WORK" 'PerformanceSet "Switch1"[1] PortCounters.PortXmitWait=1234'
  wait_next_poll && wait_next_poll || fail "collector stopped running"
  local m
  m=$(metrics)
  for pair in SymbolErrorCounter:symbol_errors LinkErrorRecoveryCounter:link_error_recovery \
    LinkDownedCounter:link_downed PortRcvErrors:receive_errors PortXmitDiscards:transmit_discards \
    PortXmitWait:transmit_wait; do
    local pq=${pair%%:*} fam=${pair##*:} want got
    want=$(perf_value "$pq")
    got=$(echo "$m" | grep -E "^fabricmon_peer_port_${fam}_total\{device=\"ibsim0\",port=\"1\"\} " | awk '{print $NF}')
    echo "$pq perfquery=$want fabricmon=$got"
    [ -n "$want" ] && [ "$want" = "$got" ] || fail "$pq: perfquery $want, fabricmon $got"
  done
  [ "$(perf_value SymbolErrorCounter)" = 7 ] || fail "PerformanceSet did not take"
  # Data and packets move with every MAD (ours and perfquery's): fabricmon's value lies between two
  # perfquery readings taken around one collector run.
  local before after
  before=$(perf -x)
  wait_next_poll || fail "collector stopped running"
  m=$(metrics)
  after=$(perf -x)
  for pair in PortXmitData:transmit_bytes:4 PortRcvData:receive_bytes:4 PortXmitPkts:transmit_packets:1 \
    PortRcvPkts:receive_packets:1; do
    IFS=: read -r pq fam scale <<<"$pair"
    local lo hi got
    lo=$(echo "$before" | awk -v n="$pq" '$1 == n {print $2}')
    hi=$(echo "$after" | awk -v n="$pq" '$1 == n {print $2}')
    got=$(echo "$m" | grep -E "^fabricmon_peer_port_${fam}_total\{device=\"ibsim0\",port=\"1\"\} " | awk '{print $NF}')
    echo "$pq perfquery=[$lo,$hi] x$scale fabricmon=$got"
    python3 -c "import sys; lo,hi,g,s=map(float,sys.argv[1:]); sys.exit(0 if lo*s <= g <= hi*s and g > 0 else 1)" \
      "$lo" "$hi" "$got" "$scale" || fail "$pq: fabricmon $got outside perfquery [$lo,$hi] x $scale"
  done
  # The local port's width and speed, and the neighbour's, from PortInfo (ibsim: 4X SDR).
  [ "$(metric_value 'fabricmon_peer_port_link_width_active_lanes\{device="ibsim0",port="1"\}')" = 4 ] || fail "peer width"
  [ "$(metric_value 'fabricmon_port_lane_speed_active_bytes_per_second\{device="ibsim0",port="1"\}')" = 312500000 ] ||
    fail "local lane speed"
}

case_errors_and_congestion() {
  # A symbol-error burst on the switch port: link_errors on the peer side within two periods.
  wait_next_poll && wait_next_poll
  sim_cmd "$WORK" 'PerformanceSet "Switch1"[1] PortCounters.SymbolErrorCounter=500'
  wait_until 4 'finding_with link_errors peer' || fail "no link_errors side=peer within 2 periods"
  finding_with link_errors local && fail "link_errors judged on the local side too"
  metrics | grep -E '^fabricmon_watchdog_active\{rule="link_errors".*reason="symbol_errors",side="peer"\} 1' ||
    fail "no watchdog_active gauge with side=peer"
  # PortXmitWait on the switch port: we are the slow receiver (ib_congestion side=peer). 2e9 ticks
  # of 8 bytes at 4X SDR (1.25e9 bytes/s) is far more than 10 % of the time since start.
  sim_cmd "$WORK" 'PerformanceSet "Switch1"[1] PortCounters.PortXmitWait=2000000000'
  wait_until 4 'finding_with ib_congestion peer' || fail "no ib_congestion side=peer within 2 periods"
  findings | python3 -m json.tool | grep -A3 '"ib_congestion"' | head
}

case_flap() {
  wait_next_poll && wait_next_poll
  for _ in 1 2; do
    sim_cmd "$WORK" 'Unlink "Switch1"[1]'
    wait_next_poll && wait_next_poll || fail "collector stopped while the link was down"
    sim_cmd "$WORK" 'ReLink "Switch1"[1]'
    client "$SOCK" Switch1 opensm -o -f "$WORK/opensm2.log" >/dev/null 2>&1 || true
    wait_until 5 'test "$(metric_value "fabricmon_port_state\\{device=\"ibsim0\",port=\"1\"\\}")" = 4' || fail "port not back to ACTIVE"
    wait_next_poll
  done
  metrics | grep -E 'link_down_observed_total'
  wait_until 4 'finding_with link_flap local' || fail "no link_flap side=local"
  wait_until 4 'finding_with link_flap peer' || fail "no link_flap side=peer"
}

case_dead_simulator() {
  local errors_before t0 t1
  errors_before=$(metric_value 'fabricmon_collector_errors_total\{collector="peer_port"\}')
  stop_sim
  t0=$(date +%s%N)
  wait_until 3 'test "$(metric_value "fabricmon_collector_errors_total\\{collector=\"peer_port\"\\}")" != "$errors_before"' ||
    fail "no peer_port error within 3 s of the simulator's death"
  t1=$(date +%s%N)
  echo "first per-port MAD error $(((t1 - t0) / 1000000)) ms after the simulator died"
  has_peer && { sleep 1.2; has_peer; } && fail "the neighbour's series stayed after the simulator died"
  # /metrics, the other collectors and the watchdog go on.
  for _ in 1 2 3 4 5; do
    local s e
    s=$(date +%s%N)
    metrics | grep -q '^fabricmon_collector_up{collector="netdev_link"} 1' || fail "netdev_link collector not up"
    e=$(date +%s%N)
    [ $(((e - s) / 1000000)) -lt 500 ] || fail "/metrics took $(((e - s) / 1000000)) ms"
    sleep 0.3
  done
  grep -c "peer_port" "$WORK/fabricmon.log" | xargs echo "log lines mentioning peer_port:"
  # The simulator comes back: the collector reopens its umad port after repeated failures.
  start_sim "$WORK" "$SOCK" || fail "simulator restart"
  if wait_until 10 has_peer; then
    echo "recovered in-process"
  else
    echo "no in-process recovery: libumad2sim keeps its dead connection; recovery across a daemon restart"
    stop_daemon_now
    start_daemon "$WORK" "$SOCK" "$PORT" || fail "daemon restart"
    wait_until 10 has_peer || fail "no recovery after a daemon restart"
  fi
  # Shutdown within 2 s.
  local s e
  s=$(date +%s%N)
  kill -TERM "$DAEMON_PID"
  wait "$DAEMON_PID"
  local rc=$?
  e=$(date +%s%N)
  DAEMON_PID=
  echo "shutdown took $(((e - s) / 1000000)) ms, exit $rc"
  [ "$rc" = 0 ] || fail "exit code $rc"
  [ $(((e - s) / 1000000)) -lt 2000 ] || fail "shutdown took more than 2 s"
}

# The InfiniBand rows of the dashboards and the FabricmonIbCongestion alert, for real: a Prometheus on
# 127.0.0.1 scrapes this node and loads deploy/prometheus/fabricmon.rules.yml; both ends of the cable
# wait for credits (PortXmitWait grows on the switch port and on ours); every query of the rows titled
# "InfiniBand..." must return data and the alert must be pending with the right side.
case_dashboards_and_alerts() {
  local root prom_bin prom_port prom  # PUMP_PID is global: the EXIT trap stops it
  root=$(cd "$(dirname "$0")/../.." && pwd)
  prom_bin=$(find_bin prometheus) || skip "prometheus not installed"
  prom_port=$(free_port)
  prom="http://127.0.0.1:$prom_port"
  cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $root/deploy/prometheus/fabricmon.rules.yml
scrape_configs:
  - job_name: fabricmon
    static_configs:
      - targets: ['127.0.0.1:$PORT']
        labels: {instance: 'ibsim-hca1'}
YAML
  start_bg "$WORK/prometheus.log" "$prom_bin" --config.file="$WORK/prometheus.yml" \
    --storage.tsdb.path="$WORK/prom" --web.listen-address="127.0.0.1:$prom_port"
  trap 'kill "${PUMP_PID:-}" 2>/dev/null; stop_all; stop_daemon_now; stop_sim; rm -rf "$WORK"' EXIT
  wait_http "$prom/-/ready" 30 || fail "prometheus not ready"
  # 4X SDR = 1.25e9 bytes/s: 3.9e7 ticks of 8 bytes a second is 25 % of the time (the switch port
  # towards us); 1.875e7 is 12 % (our port). Raised every second, as a real counter would be, and
  # for at most 100 s (PortXmitWait is 32 bits wide).
  (
    for i in $(seq 1 100); do
      echo "PerformanceSet \"Switch1\"[1] PortCounters.PortXmitWait=$((i * 39000000))" >"$WORK/cmd"
      echo "PerformanceSet \"Hca1\"[1] PortCounters.PortXmitWait=$((i * 18750000))" >"$WORK/cmd"
      sleep 1
    done
  ) &
  PUMP_PID=$!
  wait_until 20 'finding_with ib_congestion peer' || fail "no ib_congestion side=peer"
  wait_until 20 'finding_with ib_congestion local' || fail "no ib_congestion side=local"
  python3 "$root/tests/grafana/dashboard_check.py" query --rows InfiniBand "$prom" ibsim-hca1 40 \
    "$root/deploy/grafana/fabricmon-node-detail.json" "$root/deploy/grafana/fabricmon-throughput-triage.json" ||
    fail "InfiniBand dashboard rows without data"
  # The recording rule's 1-minute share reaches the true share once a full minute is scraped.
  record() {
    curl -fsS "$prom/api/v1/query" --data-urlencode \
      "query=instance_device_port_side:fabricmon_ib_transmit_wait:ratio_rate1m{side=\"$1\"}" |
      python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)'
  }
  near() { python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) < 0.03 else 1)" "$@"; }
  wait_until 90 'near "$(record peer)" 0.25 && near "$(record local)" 0.12' ||
    fail "recording rule shares peer=$(record peer) local=$(record local), want 0.25 and 0.12"
  echo "credit-wait shares (recording rule): peer $(record peer), local $(record local)"
  local alerts
  alerts=$(curl -fsS "$prom/api/v1/query" --data-urlencode 'query=ALERTS{alertname="FabricmonIbCongestion"}')
  echo "$alerts"
  for side in peer local; do
    echo "$alerts" | grep -q "\"side\":\"$side\"" || fail "FabricmonIbCongestion not pending for side=$side"
  done
  echo "$alerts" | grep -q '"alertstate":"pending"' || fail "FabricmonIbCongestion not pending"
}

setup_case
"case_$1"
echo "PASS: $1"
