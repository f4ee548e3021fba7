#!/usr/bin/env bash
# amtool_routes_test.sh CONFIG: `amtool config routes test` over the routing table below; every
# label set must reach exactly the receiver named. Exit 77 (skipped) without amtool.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
config=${1:?usage: amtool_routes_test.sh ALERTMANAGER_CONFIG}
amtool=$(find_bin amtool) || skip "amtool not found on PATH (Debian: apt-get install prometheus-alertmanager)"

# expected receiver | labels of the alert
cases=(
  'fabric-pager|alertname=FabricmonPauseStorm severity=critical instance=node1:19110 interface=eth2 priority=3 reason=storm'
  'fabric-ticket|alertname=FabricmonPauseStorm severity=warning instance=node1:19110 interface=eth2 priority=3 reason=sustained_pause'
  'fabric-pager|alertname=FabricmonFabricWidePause severity=critical job=fabricmon priority=3'
  'fabric-ticket|alertname=FabricmonThroughputDrop severity=warning instance=node1:19110 interface=eth2 device=mlx5_0 port=1'
  'fabric-ticket|alertname=FabricmonTargetDown severity=warning instance=node1:19110 job=fabricmon'
  'null|alertname=FabricmonHighEcnMarking severity=info instance=node1:19110 interface=eth2'
  'fabric-ticket|alertname=SomethingWithoutSeverity instance=node1:19110'
)

failed=0
for c in "${cases[@]}"; do
  want=${c%%|*}
  read -r -a labels <<<"${c#*|}"
  if got=$("$amtool" config routes test --config.file="$config" --verify.receivers="$want" "${labels[@]}" 2>/dev/null); then
    echo "ok   $want <- ${labels[*]}"
  else
    echo "FAIL want $want, got '$got' <- ${labels[*]}"
    failed=1
  fi
done
exit "$failed"
