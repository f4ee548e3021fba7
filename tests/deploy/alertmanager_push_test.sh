#!/usr/bin/env bash
# alertmanager_push_test.sh FABRICMON ALERTMANAGER_CONFIG RULES
#
# The node's own push to a real Alertmanager (docs/deployment.md, "Direct push"), no Prometheus:
#   1. Alertmanager down when the pause storm starts; it comes up 30 s later: every finding the
#      node has must arrive, once each (one alert per label set), the failures counted on
#      /metrics and the outage logged once.
#   2. The rule switched off by SIGHUP (the findings end): the alerts leave Alertmanager's API
#      within 3 s of leaving the node's /api/v1/findings.
#   3. The rule switched on again (the findings start): the critical storm alert is in the API
#      within 3 s of the node showing it.
#   4. SIGHUP to an Alertmanager that accepts connections and never answers: /metrics and
#      /api/v1/findings keep answering at once, the node keeps judging, and SIGTERM stops the push
#      (its request in flight abandoned) within 0.5 s.
# Also checks that the pushed labels are those of the shipped Prometheus alert (alertname, rule,
# severity, instance, job) and that routing in ALERTMANAGER_CONFIG applies (receiver fabric-pager).
# Exit 77 (skipped) when alertmanager, curl or jq is missing or fabricmon is not built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

fabricmon=${1:?usage: alertmanager_push_test.sh FABRICMON ALERTMANAGER_CONFIG}
am_config=$(realpath "${2:?alertmanager config}")
readonly OUTAGE_SECONDS=30 MAX_LATENCY=3.0

am_bin=$(find_alertmanager) || skip "alertmanager not found (Debian: apt-get install prometheus-alertmanager)"
find_bin curl >/dev/null || skip "curl not found"
find_bin jq >/dev/null || skip "jq not found"
[[ -x $fabricmon ]] || skip "fabricmon binary $fabricmon not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabricmon-am-push.XXXXXX")
cleanup() {
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*"
  for f in "$tmp"/*.log; do
    [[ -f $f ]] || continue
    echo "----- last lines of $f"
    tail -n 30 "$f"
  done
  exit 1
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

fm_port=$(free_port)
am_port=$(free_port)
dead_port=$(free_port)
FM="http://127.0.0.1:$fm_port"
AM="http://127.0.0.1:$am_port"
mkdir -p "$tmp/am"
sed "s#http://127.0.0.1:[0-9]*/#http://127.0.0.1:${dead_port}/#" "$am_config" >"$tmp/alertmanager.yml"

write_config() {  # write_config true|false: pause_storm on or off
  cat >"$tmp/fabricmon.yaml" <<YAML
watchdog:
  min_samples: 2
  rules:
    pause_storm:
      enabled: $1
      pause_fraction: 0.99
      for_samples: 2
      restoration: 2s
alertmanager:
  urls: ["$AM"]
  timeout: 2s
  resend_interval: 1m
  instance: "node-under-test:$fm_port"
YAML
}

start_am() {
  start_bg "$tmp/alertmanager.log" "$am_bin" --config.file="$tmp/alertmanager.yml" --storage.path="$tmp/am" \
    --web.listen-address="127.0.0.1:$am_port" --cluster.listen-address=
  AM_PID=$LAST_PID
}

node_findings() {  # the node's findings as sorted "rule/reason@interface" lines
  curl -fsS --max-time 2 "$FM/api/v1/findings" |
    jq -r '.findings[] | "\(.rule)/\(.labels.reason // "")@\(.labels.interface // .labels.device // "")"' | sort
}
am_alerts() {  # the pushed alerts, same form; one line per alert Alertmanager holds
  curl -fsS --max-time 2 "$AM/api/v2/alerts" |
    jq -r '.[] | select(.labels.instance == "node-under-test:'"$fm_port"'") |
           "\(.labels.rule)/\(.labels.reason // "")@\(.labels.interface // .labels.device // "")"' | sort
}

# ------------------------------------------------------------ 1: outage at the start, then back
write_config true
start_bg "$tmp/fabricmon.log" "$fabricmon" demo --scenario pause-storm --config "$tmp/fabricmon.yaml" \
  --listen "127.0.0.1:$fm_port" --poll-interval 250ms
FM_PID=$LAST_PID
wait_http "$FM/healthz" 30 || fail "fabricmon not serving within 30 s"
t0=$(now)
deadline=$((SECONDS + 30))
until [[ -n $(node_findings) ]]; do
  ((SECONDS < deadline)) || fail "no finding on the node within 30 s"
  sleep 0.2
done
echo "1: node has findings after $(since "$t0") s with Alertmanager down: $(node_findings | tr '\n' ' ')"
sleep "$OUTAGE_SECONDS"
failed=$(curl -fsS "$FM/metrics" | awk '/^fabricmon_alertmanager_notifications_failed_total\{/ { print $2 }')
[[ -n $failed ]] && le 1 "$failed" || fail "no failed notification counted during the outage (got '$failed')"
start_am
t_up=$(now)
wait_http "$AM/-/ready" 30 || fail "alertmanager not ready within 30 s"
expected=$(node_findings)
deadline=$((SECONDS + 15))
while :; do
  got=$(am_alerts)
  [[ -n $got && $got == "$expected" ]] && break
  ((SECONDS < deadline)) || fail "after the outage Alertmanager has [$got], the node [$expected]"
  sleep 0.1
  expected=$(node_findings)
done
echo "1: all $(wc -l <<<"$got") alert(s) in Alertmanager $(since "$t_up") s after it came back (outage ${OUTAGE_SECONDS} s)"
dups=$(am_alerts | uniq -d)
[[ -z $dups ]] || fail "duplicated alerts: $dups"
outage_logs=$(grep -c "cannot deliver alerts to" "$tmp/fabricmon.log" || true)
[[ $outage_logs == 1 ]] || fail "the outage was logged $outage_logs times, want once"
grep -q "accepts alerts again" "$tmp/fabricmon.log" || fail "the recovery was not logged"

storm=$(curl -fsS "$AM/api/v2/alerts" | jq -c '[.[] | select(.labels.alertname == "FabricmonPauseStorm" and .labels.severity == "critical")][0]')
[[ $storm != null ]] || fail "no critical FabricmonPauseStorm alert"
jq -e --arg i "node-under-test:$fm_port" '.labels.rule == "pause_storm" and .labels.job == "fabricmon" and
      .labels.instance == $i and (.labels.interface // "") != "" and
      (.annotations.runbook_url | endswith("runbook.md#pause-storm")) and .receivers[0].name == "fabric-pager"' \
  <<<"$storm" >/dev/null || fail "storm alert lacks the shipped labels or routing: $storm"

# ------------------------------------------------------------ 2: findings end -> alerts resolved
write_config false
kill -HUP "$FM_PID"
deadline=$((SECONDS + 20))
until [[ -z $(node_findings) ]]; do
  ((SECONDS < deadline)) || fail "findings still on the node 20 s after switching the rule off"
  sleep 0.05
done
t_clear=$(now)
until [[ -z $(am_alerts) ]]; do
  le "$(since "$t_clear")" 10 || fail "alerts still active in Alertmanager 10 s after the node cleared them: $(am_alerts)"
  sleep 0.05
done
clear_latency=$(since "$t_clear")
echo "2: alerts resolved in Alertmanager ${clear_latency} s after the findings left the node"
le "$clear_latency" "$MAX_LATENCY" || fail "resolving took ${clear_latency} s, more than ${MAX_LATENCY} s"

# ------------------------------------------------------------ 3: findings start -> alert within 3 s
write_config true
kill -HUP "$FM_PID"
deadline=$((SECONDS + 30))
until node_findings | grep -q '^pause_storm/storm@'; do
  ((SECONDS < deadline)) || fail "no storm finding 30 s after switching the rule on"
  sleep 0.05
done
t_fire=$(now)
until am_alerts | grep -q '^pause_storm/storm@'; do
  le "$(since "$t_fire")" 10 || fail "storm alert not in Alertmanager 10 s after the node showed it"
  sleep 0.05
done
fire_latency=$(since "$t_fire")
echo "3: storm alert in Alertmanager ${fire_latency} s after it appeared on the node"
le "$fire_latency" "$MAX_LATENCY" || fail "the alert took ${fire_latency} s, more than ${MAX_LATENCY} s"
dups=$(am_alerts | uniq -d)
[[ -z $dups ]] || fail "duplicated alerts: $dups"
kill -0 "$FM_PID" 2>/dev/null || fail "fabricmon exited"

# ------------------------------------------------------------ 4: a hung Alertmanager
hung_port=$(free_port)
start_bg "$tmp/hung.log" python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
time.sleep(600)' "$hung_port"
deadline=$((SECONDS + 10))
until (exec 3<>"/dev/tcp/127.0.0.1/$hung_port") 2>/dev/null; do
  ((SECONDS < deadline)) || fail "the hung listener did not start"
  sleep 0.1
done
AM="http://127.0.0.1:$hung_port"
write_config true
sed -i 's/timeout: 2s/timeout: 30s/' "$tmp/fabricmon.yaml"
kill -HUP "$FM_PID"
sleep 3  # a push is now stuck in a request that will never be answered
worst=0
for _ in $(seq 1 10); do
  t=$(curl -fsS -o /dev/null --max-time 2 -w '%{time_total}' "http://127.0.0.1:$fm_port/metrics") || fail "/metrics failed while Alertmanager hangs"
  worst=$(awk -v a="$worst" -v b="$t" 'BEGIN { print (b > a ? b : a) }')
  sleep 0.1
done
le "$worst" 0.5 || fail "/metrics took ${worst} s while Alertmanager hangs"
node_findings | grep -q '^pause_storm/storm@' || fail "the storm finding is gone while Alertmanager hangs"
t_term=$(now)
kill -TERM "$FM_PID"
# An exited child stays a zombie until waited for, and kill -0 succeeds on a zombie: read its state.
running() { [[ -r /proc/$1/stat ]] && [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) != Z ]]; }
while running "$FM_PID" && le "$(since "$t_term")" 10; do sleep 0.05; done
running "$FM_PID" && fail "fabricmon still running 10 s after SIGTERM"
# What the push adds to the shutdown: from the signal to its thread's end (the demo's own clean-up
# of its simulated tree comes after and is not the push's).
log_seconds() { grep -m1 "$1" "$tmp/fabricmon.log" | cut -c12-23 | awk -F: '{ print $1 * 3600 + $2 * 60 + $3 }'; }
push_stop=$(awk -v a="$(log_seconds 'received signal 15')" -v b="$(log_seconds 'Alertmanager push stopped')" \
  'BEGIN { printf "%.3f", b - a }')
le "$push_stop" 0.5 || fail "stopping the push with a request in flight took ${push_stop} s"
stop_seconds=$push_stop
echo "4: hung Alertmanager: slowest of 10 scrapes ${worst} s, finding still judged, SIGTERM stopped the push in ${stop_seconds} s"
echo "PASS"
