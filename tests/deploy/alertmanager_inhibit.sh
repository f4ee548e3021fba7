#!/usr/bin/env bash
# alertmanager_inhibit.sh CONFIG: start a real Alertmanager on 127.0.0.1 with CONFIG (receivers
# rewritten to a port nobody listens on), post alerts to /api/v2/alerts and check which of them the
# inhibition rules suppress. Exit 77 (skipped) without alertmanager, curl or jq.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
config=${1:?usage: alertmanager_inhibit.sh ALERTMANAGER_CONFIG}
am_bin=$(find_alertmanager) || skip "alertmanager not found (Debian: apt-get install prometheus-alertmanager)"
find_bin curl >/dev/null || skip "curl not found"
find_bin jq >/dev/null || skip "jq not found"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabricmon-am-inhibit.XXXXXX")
cleanup() {
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

am_port=$(free_port)
dead_port=$(free_port)
sed "s#http://127.0.0.1:[0-9]*/#http://127.0.0.1:${dead_port}/#" "$config" >"$tmp/alertmanager.yml"
mkdir -p "$tmp/am"
start_bg "$tmp/am.log" "$am_bin" --config.file="$tmp/alertmanager.yml" --storage.path="$tmp/am" \
  --web.listen-address="127.0.0.1:$am_port" --cluster.listen-address=
am="http://127.0.0.1:$am_port"
if ! wait_http "$am/-/ready" 30; then
  cat "$tmp/am.log"
  echo "FAIL: alertmanager did not become ready"
  exit 1
fi

# Each alert carries a unique `case` label; the expectation is the state the API reports for it.
# case | expected state | labels (key=value, space separated)
cases=(
  'storm|active|alertname=FabricmonPauseStorm severity=critical instance=n1:19110 interface=eth2 priority=3 reason=storm rule=pause_storm'
  'drop-same-if|suppressed|alertname=FabricmonThroughputDrop severity=warning instance=n1:19110 interface=eth2 device=mlx5_0 port=1'
  'drop-other-if|active|alertname=FabricmonThroughputDrop severity=warning instance=n1:19110 interface=eth3 device=mlx5_1 port=1'
  'drop-other-node|active|alertname=FabricmonThroughputDrop severity=warning instance=n2:19110 interface=eth2 device=mlx5_0 port=1'
  'sustained-same-if|suppressed|alertname=FabricmonSustainedPause severity=warning instance=n1:19110 interface=eth2 priority=3'
  'ecn-same-if|suppressed|alertname=FabricmonHighEcnMarking severity=info instance=n1:19110 interface=eth2 device=mlx5_0 port=1'
  'ecn-no-if|suppressed|alertname=FabricmonHighEcnMarking severity=info instance=n1:19110 device=mlx5_9 port=1'
  'storm-warning|suppressed|alertname=FabricmonPauseStorm severity=warning instance=n1:19110 interface=eth2 priority=3 reason=sustained_pause rule=pause_storm'
  'flap|active|alertname=FabricmonLinkFlap severity=critical instance=n1:19110 interface=eth4 device=mlx5_2 port=1 rule=link_flap'
  'errors-same-port|suppressed|alertname=FabricmonLinkErrors severity=warning instance=n1:19110 interface=eth4 device=mlx5_2 port=1 reason=symbol_errors'
  'errors-same-if|suppressed|alertname=FabricmonLinkErrors severity=warning instance=n1:19110 interface=eth4 reason=symbol_errors'
  'degraded-other-port|active|alertname=FabricmonPortDegraded severity=critical instance=n1:19110 interface=eth5 device=mlx5_3 port=1 reason=not_active'
  'port-down|active|alertname=FabricmonPortDown severity=critical instance=n1:19110 interface=eth8 device=mlx5_6 port=1 rule=port_down'
  'degraded-down-port|suppressed|alertname=FabricmonPortDegraded severity=critical instance=n1:19110 interface=eth8 device=mlx5_6 port=1 reason=not_active'
  'loss-down-port|suppressed|alertname=FabricmonRocePacketLoss severity=warning instance=n1:19110 interface=eth8 device=mlx5_6 port=1 reason=retransmissions'
  'recurring-down-port|active|alertname=FabricmonFindingRecurring severity=warning instance=n1:19110 interface=eth8 device=mlx5_6 port=1 rule=port_down'
  'target-down|active|alertname=FabricmonTargetDown severity=warning instance=n3:19110 job=fabricmon'
  'collector-same-node|suppressed|alertname=FabricmonCollectorDown severity=warning instance=n3:19110 collector=ethtool_pfc'
  'collector-other-node|active|alertname=FabricmonCollectorErrors severity=warning instance=n4:19110 collector=ethtool_pfc'
  'fabric-pause|active|alertname=FabricmonFabricWidePause severity=critical job=fabricmon priority=3'
  'switch-same-prio|suppressed|alertname=FabricmonSwitchPause severity=critical job=fabricmon switch=leaf-1 priority=3'
  'switch-other-prio|active|alertname=FabricmonSwitchPause severity=critical job=fabricmon switch=leaf-2 priority=0'
)

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
ends=$(date -u -d '+15 minutes' +%Y-%m-%dT%H:%M:%SZ)
payload='[]'
for c in "${cases[@]}"; do
  IFS='|' read -r name _ labels <<<"$c"
  obj=$(jq -n --arg case "$name" --arg s "$now" --arg e "$ends" --arg l "$labels" '
    {labels: (($l | split(" ") | map(split("=") | {(.[0]): .[1]}) | add) + {case: $case}),
     annotations: {summary: "inhibition test"}, startsAt: $s, endsAt: $e}')
  payload=$(jq -c --argjson o "$obj" '. + [$o]' <<<"$payload")
done
curl -fsS -X POST -H 'Content-Type: application/json' --data "$payload" "$am/api/v2/alerts" >/dev/null

failed=0
deadline=$((SECONDS + 20))
while :; do
  alerts=$(curl -fsS "$am/api/v2/alerts")
  failed=0
  report=()
  for c in "${cases[@]}"; do
    IFS='|' read -r name want _ <<<"$c"
    got=$(jq -r --arg n "$name" '[.[] | select(.labels.case == $n) | .status.state] | first // "missing"' <<<"$alerts")
    if [[ $got == "$want" ]]; then
      report+=("ok   $name: $got")
    else
      report+=("FAIL $name: want $want, got $got")
      failed=1
    fi
  done
  # Alerts are 'unprocessed' until the dispatcher has seen them: retry briefly.
  if ((failed == 0)) || ((SECONDS >= deadline)); then
    break
  fi
  sleep 0.5
done
printf '%s\n' "${report[@]}"
exit "$failed"
