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
echo "PASS"
