#!/usr/bin/env bash
# triage_prometheus_test.sh FABRICMON RULES
#
# `fabricmon triage --prometheus` against a real Prometheus (TLS and basic auth on, as
# web.config.file sets them) that scrapes nine `fabricmon demo` nodes, everything on 127.0.0.1.
# Pod su1 (LLDP neighbours su1-leaf<rail>, one switch per rail):
#   gpu01, gpu02: pause-storm (priority 3)   gpu03: cable-errors   gpu04-06: healthy
# each sick node on another NIC (--fault-port 0, 1, 2), so on another rail and switch: the scope
# comes from what they share (the pausing priority, their number).
# Pod su3: sw01, sw02 storm on NIC 3, both facing su3-leaf3. Pod su2: rl01 storms on NIC 3, rail 3
# like sw01 but behind su2-leaf3.
# Checks, each through a selector:
#   gpu01-06                 -> exit 1, the sick nodes ranked first (storms, then the cable), the
#                               healthy ones last, scope "one switch's worth of nodes";
#   sw01, sw02               -> scope "one switch" naming su3-leaf3;
#   sw01, rl01               -> scope "one rail" (rail 3, behind 2 different switches);
#   the recording rules      -> 2 pausing nodes behind su3-leaf3, 3 on rail 3; FabricmonSwitchPause
#                               pending for su3-leaf3 only;
#   gpu01 and the healthy    -> scope "one node", gpu01 first with cause pfc_pause;
#   gpu01-03                 -> scope "fabric-wide";
#   the healthy three        -> exit 0, scope "none";
#   no credentials, wrong CA, a selector without braces, a port nobody listens on -> exit 2.
# Exit 77 (skipped) when prometheus, openssl, curl, jq or python3's bcrypt support is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

fabricmon=${1:?usage: triage_prometheus_test.sh FABRICMON RULES}
rules=$(realpath "${2:?rules file}")
prom_bin=$(find_bin prometheus) || skip "prometheus not found (Debian: apt-get install prometheus)"
find_bin openssl >/dev/null || skip "openssl not found"
find_bin curl >/dev/null || skip "curl not found"
find_bin jq >/dev/null || skip "jq not found"
python3 -c 'import crypt' 2>/dev/null || skip "python3 crypt module missing (bcrypt hash for basic auth)"
[[ -x $fabricmon ]] || skip "fabricmon binary $fabricmon not built"

# name:scenario:fault port:pod:node index
readonly NODES=(gpu01:pause-storm:0:su1:1 gpu02:pause-storm:1:su1:2 gpu03:cable-errors:2:su1:3 gpu04:healthy:0:su1:4
  gpu05:healthy:0:su1:5 gpu06:healthy:0:su1:6 sw01:pause-storm:3:su3:1 sw02:pause-storm:3:su3:2
  rl01:pause-storm:3:su2:1)
readonly POD1='{instance=~"gpu0[1-6]:19110"}'
readonly MIN_SCRAPES=15

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabricmon-triage-prom.XXXXXX")
cleanup() {
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*"
  for f in "$tmp"/*.log "$tmp"/out.*; do
    [[ -f $f ]] || continue
    echo "----- last lines of $f"
    tail -n 40 "$f"
  done
  exit 1
}

# TLS: a certificate for 127.0.0.1, and another CA that did not sign it.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other -keyout "$tmp/other.key" -out "$tmp/other.pem" 2>/dev/null
echo "triage-s3cret" >"$tmp/password"
hash=$(python3 -c 'import crypt; print(crypt.crypt("triage-s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH)))' 2>/dev/null)
cat >"$tmp/web.yml" <<YAML
tls_server_config:
  cert_file: $tmp/cert.pem
  key_file: $tmp/key.pem
basic_auth_users:
  oncall: "$hash"
YAML
printf 'log:\n  level: warn\n' >"$tmp/fabricmon.yaml"

prom_port=$(free_port)
PROM="https://127.0.0.1:$prom_port"
cat >"$tmp/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $rules
scrape_configs:
  - job_name: fabricmon
    static_configs:
YAML
for node in "${NODES[@]}"; do
  IFS=: read -r name scenario fault_port pod index <<<"$node"
  port=$(free_port)
  printf "      - targets: ['127.0.0.1:%s']\n        labels: {instance: '%s:19110'}\n" "$port" "$name" >>"$tmp/prometheus.yml"
  start_bg "$tmp/fabricmon-$name.log" "$fabricmon" demo --scenario "$scenario" --fault-port "$fault_port" --pod "$pod" \
    --node-index "$index" --config "$tmp/fabricmon.yaml" \
    --listen "127.0.0.1:$port"
done
start_bg "$tmp/prometheus.log" "$prom_bin" --config.file="$tmp/prometheus.yml" --web.config.file="$tmp/web.yml" \
  --storage.tsdb.path="$tmp/prom" --web.listen-address="127.0.0.1:$prom_port"
prom_curl() { curl -fsS --cacert "$tmp/cert.pem" -u oncall:triage-s3cret "$@"; }

deadline=$((SECONDS + 120))
least=0
while ((SECONDS < deadline)); do
  least=$(prom_curl "$PROM/api/v1/query" --data-urlencode \
    'query=min(sum_over_time(up{job="fabricmon"}[5m])) and count(up{job="fabricmon"} == 1) == '"${#NODES[@]}" 2>/dev/null |
    jq -r '.data.result[0].value[1] // "0"' 2>/dev/null || echo 0)
  ((${least%.*} >= MIN_SCRAPES)) && break
  sleep 1
done
((${least%.*} >= MIN_SCRAPES)) || fail "every node scraped $MIN_SCRAPES times: only $least in 120 s"
echo "prometheus on $PROM scraped every node $least times"

auth=(--ca-file "$tmp/cert.pem" --username oncall --password-file "$tmp/password")
# triage NAME SELECTOR: runs it with --json into out.NAME; sets CODE.
triage() {
  set +e
  "$fabricmon" triage --prometheus "$PROM" "${auth[@]}" --selector "$2" --since 2m --json >"$tmp/out.$1" 2>&1
  CODE=$?
  set -e
}
sources() { jq -r '[.nodes[].source] | join(" ")' "$tmp/out.$1"; }

# The storms raise their findings within seconds; the cable's link_errors finding needs its BER window.
deadline=$((SECONDS + 90))
while :; do
  triage all "$POD1"
  ranked=$(jq -r '[.nodes[] | select(.wrong) | .source] | join(" ")' "$tmp/out.all" 2>/dev/null || true)
  [[ $(wc -w <<<"$ranked") == 3 ]] && break
  ((SECONDS < deadline)) || fail "all: want 3 sick nodes within 90 s, got [$ranked]"
  sleep 3
done
[[ $CODE == 1 ]] || fail "all: exit $CODE, want 1"
order=$(sources all)
[[ $order =~ ^(gpu01:19110\ gpu02:19110|gpu02:19110\ gpu01:19110)\ gpu03:19110\ gpu0[456] ]] ||
  fail "all: want the storms, then the cable, then the healthy nodes; got [$order]"
jq -e '.scope == "one switch'"'"'s worth of nodes" and .nodes[0].cause == "pfc_pause" and .nodes[2].cause == "link"' \
  "$tmp/out.all" >/dev/null || fail "all: scope or causes wrong: $(jq -c '{scope, scope_reason}' "$tmp/out.all")"
echo "gpu01-06: $order; scope: $(jq -r '.scope + " (" + .scope_reason + ")"' "$tmp/out.all")"

triage one '{instance=~"gpu0[1456]:19110"}'
[[ $CODE == 1 ]] || fail "one: exit $CODE, want 1"
jq -e '.scope == "one node" and .nodes[0].source == "gpu01:19110" and .nodes[0].cause == "pfc_pause"
       and ([.nodes[] | select(.wrong)] | length) == 1' "$tmp/out.one" >/dev/null ||
  fail "one: $(jq -c '{scope, first: .nodes[0].source}' "$tmp/out.one")"
echo "gpu01 + healthy: scope one node, gpu01 first with pfc_pause"

triage fabric '{instance=~"gpu0[1-3]:19110"}'
[[ $CODE == 1 ]] || fail "fabric: exit $CODE, want 1"
jq -e '.scope == "fabric-wide"' "$tmp/out.fabric" >/dev/null || fail "fabric: $(jq -c '{scope}' "$tmp/out.fabric")"
echo "gpu01-03: scope fabric-wide"

triage healthy '{instance=~"gpu0[4-6]:19110"}'
[[ $CODE == 0 ]] || fail "healthy: exit $CODE, want 0"
jq -e '.scope == "none" and .node_count == 3' "$tmp/out.healthy" >/dev/null || fail "healthy: $(cat "$tmp/out.healthy")"
echo "healthy three: exit 0, scope none"

triage switch '{instance=~"sw0[12]:19110"}'
[[ $CODE == 1 ]] || fail "switch: exit $CODE, want 1"
jq -e '.scope == "one switch" and (.scope_reason | test("facing su3-leaf3 \\(2 nodes of 2 face it\\)"))' \
  "$tmp/out.switch" >/dev/null || fail "switch: $(jq -c '{scope, scope_reason}' "$tmp/out.switch")"
echo "sw01 + sw02: $(jq -r '.scope + " (" + .scope_reason + ")"' "$tmp/out.switch")"

triage rail '{instance=~"sw01:19110|rl01:19110"}'
[[ $CODE == 1 ]] || fail "rail: exit $CODE, want 1"
jq -e '.scope == "one rail" and (.scope_reason | test("rail 3, behind 2 different switches"))' \
  "$tmp/out.rail" >/dev/null || fail "rail: $(jq -c '{scope, scope_reason}' "$tmp/out.rail")"
echo "sw01 + rl01: $(jq -r '.scope + " (" + .scope_reason + ")"' "$tmp/out.rail")"

# The fleet recording rules and alert group the same nodes by switch and by rail.
query() {  # query PROMQL -> "labels=value" lines, sorted
  prom_curl "$PROM/api/v1/query" --data-urlencode "query=$1" |
    jq -r '.data.result[] | ((.metric | del(.__name__, .job) | to_entries | map(.key + "=" + .value) | join(",")) + " " + .value[1])' |
    sort
}
want_query() {  # want_query PROMQL EXPECTED: waits up to 60 s (rate windows fill up)
  local got deadline=$((SECONDS + 60))
  while :; do
    got=$(query "$1" 2>/dev/null || true)
    [[ $got == "$2" ]] && return 0
    ((SECONDS < deadline)) || fail "query $1: want [$2], got [$got]"
    sleep 2
  done
}
want_query 'switch_priority:fabricmon_pausing_nodes:count{switch=~"su3-.*"}' "priority=3,switch=su3-leaf3 2"
want_query 'rail_priority:fabricmon_pausing_nodes:count{rail="3"}' "priority=3,rail=3 3"
want_query 'count by (alertname, switch) (ALERTS{alertname="FabricmonSwitchPause"})' \
  "alertname=FabricmonSwitchPause,switch=su3-leaf3 1"
echo "recording rules: 2 pausing nodes behind su3-leaf3, 3 on rail 3; FabricmonSwitchPause for su3-leaf3 only"

# Human text: the scope and the first node's verdict.
"$fabricmon" triage --prometheus "$PROM" "${auth[@]}" --selector "$POD1" --since 2m >"$tmp/out.text" || true
grep -q "^SCOPE: one switch's worth of nodes" "$tmp/out.text" || fail "text: no SCOPE line"

# Sources that do not answer, or that we must not trust: exit 2 with a clear message.
expect2() {  # expect2 NAME NEEDLE ARGS...
  local name=$1 needle=$2
  shift 2
  set +e
  timeout 20 "$fabricmon" triage "$@" >"$tmp/out.$name" 2>&1
  local code=$?
  set -e
  [[ $code == 2 ]] || fail "$name: exit $code, want 2"
  grep -q "$needle" "$tmp/out.$name" || fail "$name: no '$needle' in: $(cat "$tmp/out.$name")"
}
expect2 noauth "HTTP 401" --prometheus "$PROM" --ca-file "$tmp/cert.pem"
expect2 wrongca "no answer from Prometheus" --prometheus "$PROM" --ca-file "$tmp/other.pem" --username oncall \
  --password-file "$tmp/password"
expect2 selector "selector" --prometheus "$PROM" --selector 'job="fabricmon"'
expect2 down "no answer from Prometheus" --prometheus "http://127.0.0.1:$(free_port)" --timeout 2s
echo "no credentials, wrong CA, bad selector, dead Prometheus: exit 2 with a message"
echo "PASS"
