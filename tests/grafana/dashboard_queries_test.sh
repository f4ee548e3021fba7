#!/usr/bin/env bash
# dashboard_queries_test.sh FABRICMON RULES RUNBOOK DASHBOARD...
#
# 1. Static checks of every dashboard (dashboard_check.py validate): JSON, schema 39, DS_PROMETHEUS
#    input, unique panel ids, datasource and targets on every panel, variables defined, no hard-coded
#    instance, units, and the panel names docs/runbook.md refers to.
# 2. Every panel query against real data, everything on 127.0.0.1: one `fabricmon demo` per scenario
#    below (each its own port and `instance` label), scraped every second by ONE Prometheus that
#    loads RULES. After MIN_SCRAPES scrapes of every node, each target is run through
#    /api/v1/query with the template variables substituted; it must be accepted and return data
#    (empty results are retried until QUERY_TIMEOUT, for findings that need a few polls).
# Exit 77 (skipped) when prometheus or curl is missing or fabricmon is not built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../deploy/lib.sh"

fabricmon=${1:?usage: dashboard_queries_test.sh FABRICMON RULES RUNBOOK DASHBOARD...}
rules=$(realpath "${2:?rules file}")
runbook=$(realpath "${3:?runbook}")
shift 3
(($# > 0)) || { echo "no dashboards given"; exit 2; }
dashboards=("$@")
check=(python3 "$here/dashboard_check.py")

# Why each node runs: pause-storm makes pause, storm events, findings and most counters move;
# congested: ECN marks, CNPs sent and handled; the others make the counters that only a fault
# moves (NP disabled and its finding, link errors and BER, flaps, RoCE loss and lossless discards,
# an uncorrectable PCIe error).
readonly SCENARIOS=(pause-storm congested dcqcn-np-disabled cable-errors link-flap lossy unused-port pcie-aer)
readonly MIN_SCRAPES=20 QUERY_TIMEOUT=60

echo "== static checks"
"${check[@]}" validate "$runbook" "${dashboards[@]}"

prom_bin=$(find_bin prometheus) || skip "prometheus not found (Debian: apt-get install prometheus)"
find_bin curl >/dev/null || skip "curl not found"
[[ -x $fabricmon ]] || skip "fabricmon binary $fabricmon not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabricmon-grafana.XXXXXX")
cleanup() {
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*"
  local f
  for f in "$tmp"/*.log; do
    [[ -f $f ]] || continue
    echo "----- last lines of $f"
    tail -n 20 "$f"
  done
  exit 1
}

# No /etc/fabricmon/fabricmon.yaml of the machine may leak into the test.
cat >"$tmp/fabricmon.yaml" <<'YAML'
log:
  level: warn
YAML

prom_port=$(free_port)
PROM="http://127.0.0.1:$prom_port"
{
  cat <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $rules
scrape_configs:
  - job_name: fabricmon
    static_configs:
YAML
} >"$tmp/prometheus.yml"

instances=() ports=()
for scenario in "${SCENARIOS[@]}"; do
  port=$(free_port)
  ports+=("$port")
  instances+=("demo-$scenario")
  cat >>"$tmp/prometheus.yml" <<YAML
      - targets: ['127.0.0.1:$port']
        labels: {instance: 'demo-$scenario'}
YAML
done

# Prometheus first, so that it sees the counters that move early (the storm warning event at 5 s).
start_bg "$tmp/prometheus.log" "$prom_bin" --config.file="$tmp/prometheus.yml" \
  --storage.tsdb.path="$tmp/prom" --web.listen-address="127.0.0.1:$prom_port"
wait_http "$PROM/-/ready" 30 || fail "prometheus not ready within 30 s"
echo "prometheus on $PROM"

for i in "${!SCENARIOS[@]}"; do
  scenario=${SCENARIOS[$i]} port=${ports[$i]}
  start_bg "$tmp/fabricmon-$scenario.log" "$fabricmon" demo --scenario "$scenario" \
    --config "$tmp/fabricmon.yaml" --listen "127.0.0.1:$port"
  echo "fabricmon demo --scenario $scenario on 127.0.0.1:$port (instance=\"${instances[$i]}\")"
done
for i in "${!SCENARIOS[@]}"; do
  wait_http "http://127.0.0.1:${ports[$i]}/metrics" 30 || fail "fabricmon demo --scenario ${SCENARIOS[$i]} not serving"
done

# Every node scraped successfully MIN_SCRAPES times: enough samples for rate() over any range.
deadline=$((SECONDS + 90))
least=0
while ((SECONDS < deadline)); do
  least=$(curl -fsS "$PROM/api/v1/query" \
    --data-urlencode 'query=min(sum_over_time(up{job="fabricmon"}[5m])) and count(up{job="fabricmon"}) == '"${#SCENARIOS[@]}" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)')
  ((least >= MIN_SCRAPES)) && break
  sleep 1
done
((least >= MIN_SCRAPES)) || fail "every node scraped at least $MIN_SCRAPES times: only $least in 90 s"
echo "every node scraped $least times"

echo "== panel queries"
ids=$(IFS=,; echo "${instances[*]}")
# The demo nodes are RoCE: the InfiniBand rows (credit wait, the far end over MADs) are checked
# against a simulated InfiniBand fabric by tests/ibsim (case dashboards_and_alerts).
"${check[@]}" query --skip-rows InfiniBand "$PROM" "$ids" "$QUERY_TIMEOUT" "${dashboards[@]}" || fail "some panel queries failed"

# The dashboards lean on the recording rules: they must all evaluate.
bad=$(curl -fsS "$PROM/api/v1/rules" | python3 -c '
import json, sys
for g in json.load(sys.stdin)["data"]["groups"]:
    for r in g["rules"]:
        if r.get("health") not in ("ok", "unknown"):
            print(r["name"], r.get("lastError"))')
[[ -z $bad ]] || fail "rules with evaluation errors: $bad"
echo "PASS"
