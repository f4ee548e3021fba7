#!/usr/bin/env bash
# lldp_netns_test.sh FABRICMON
#
# The lldp_neighbors collector against a real LLDP neighbour: Debian's lldpd as the "switch" in
# one network namespace, a veth pair to a "host" namespace where a receive-only lldpd (-r) listens
# and the real daemon runs with the interface in netdev.include. Checks over HTTP inside the host
# namespace:
#   - the neighbour's system name, port ID and port description appear as
#     fabricmon_port_neighbor_info{source="lldp"};
#   - the switch renamed (configure system hostname) -> the new series, and the old one leaves;
#   - the switch's lldpd stopped (it sends a shutdown LLDPDU) -> the series leaves;
#   - the daemon as an unprivileged user with no new privileges and the groups of the unit
#     drop-in in docs/deployment.md (adm, _lldpd) sees the neighbour; without them it counts errors;
#   - the host's lldpd stopped (its socket gone) -> no data, the collector stays up.
# Exit 77 (skipped) without root, ip netns, lldpd or curl.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

fabricmon=${1:?usage: lldp_netns_test.sh FABRICMON}
[[ $(id -u) == 0 ]] || skip "needs root (network namespaces)"
find_bin ip >/dev/null || skip "iproute2 not found"
lldpd_bin=$(PATH=$PATH:/usr/sbin find_bin lldpd) || skip "lldpd not found (Debian: apt-get install lldpd)"
lldpcli_bin=$(PATH=$PATH:/usr/sbin find_bin lldpcli) || skip "lldpcli not found"
find_bin curl >/dev/null || skip "curl not found"

sw=fmlldp-sw-$$ host=fmlldp-host-$$
ip netns add "$sw" 2>/dev/null || skip "cannot create network namespaces here"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabricmon-lldp.XXXXXX")
# lldpcli is setuid _lldpd: it must be able to reach the sockets below this directory.
chmod 755 "$tmp"
cleanup() {
  stop_all
  ip netns del "$sw" 2>/dev/null || true
  ip netns del "$host" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ip netns add "$host"

fail() {
  echo "FAIL: $*"
  for f in "$tmp"/*.log; do
    echo "----- last lines of $f"
    tail -n 30 "$f"
  done
  exit 1
}

ip link add swp12 type veth peer name fab0
ip link set swp12 netns "$sw"
ip link set fab0 netns "$host"
ip -n "$sw" link set swp12 up
ip -n "$host" link set fab0 up
ip -n "$host" link set lo up

start_bg "$tmp/lldpd-switch.log" ip netns exec "$sw" "$lldpd_bin" -d -u "$tmp/switch.sock" -I swp12
switch_pid=$LAST_PID
start_bg "$tmp/lldpd-host.log" ip netns exec "$host" "$lldpd_bin" -d -r -u "$tmp/host.sock" -I fab0
host_pid=$LAST_PID
sw_cli() { ip netns exec "$sw" "$lldpcli_bin" -u "$tmp/switch.sock" "$@" >/dev/null; }
for _ in $(seq 1 50); do
  [[ -S $tmp/switch.sock && -S $tmp/host.sock ]] && break
  sleep 0.1
done
# A private socket makes lldpd start paused, waiting for a configuration: resume both.
ip netns exec "$host" "$lldpcli_bin" -u "$tmp/host.sock" resume >/dev/null
sw_cli configure system hostname leaf-07
sw_cli configure lldp tx-interval 1
sw_cli resume
sw_cli update

cat >"$tmp/fabricmon.yaml" <<YAML
sources:
  lldpcli: $lldpcli_bin
  lldp_socket: $tmp/host.sock
  lldp_timeout: 2s
poll:
  slow_interval: 1s
YAML
port=19110
start_bg "$tmp/fabricmon.log" ip netns exec "$host" "$fabricmon" run --config "$tmp/fabricmon.yaml" \
  --netdev-include '^fab0$' --listen "127.0.0.1:$port"
metrics() { ip netns exec "$host" curl -fsS --max-time 2 "http://127.0.0.1:$port/metrics" 2>/dev/null || true; }

# wait_for REGEX SECONDS [absent]: until /metrics matches (or, with "absent", no longer matches).
wait_for() {
  local regex=$1 deadline=$((SECONDS + $2)) want=${3:-present}
  while ((SECONDS < deadline)); do
    if metrics | grep -Eq "$regex"; then
      [[ $want == present ]] && return 0
    else
      [[ $want == absent ]] && return 0
    fi
    sleep 0.3
  done
  return 1
}

neighbour='fabricmon_port_neighbor_info\{device="",port="",interface="fab0",chassis_name="%s",chassis_id="[0-9a-f:]{17}",port_id="[0-9a-f:]{17}",port_description="swp12",source="lldp"\} 1'
# shellcheck disable=SC2059
leaf07=$(printf "$neighbour" leaf-07)
# shellcheck disable=SC2059
leaf08=$(printf "$neighbour" leaf-08)

start=$SECONDS
wait_for "$leaf07" 20 || fail "no leaf-07 neighbour on fab0 within 20 s: $(metrics | grep -E 'neighbor|lldp')"
echo "leaf-07 seen on fab0 after $((SECONDS - start)) s"

# What the unit drop-in of docs/deployment.md gives the daemon: an unprivileged user, no new
# privileges (lldpcli's setuid bit ignored), supplementary groups adm and _lldpd. With them the
# neighbour is seen; with adm alone (lldpcli runs), lldpd's socket refuses it and the collector
# counts errors.
if command -v setpriv >/dev/null && getent group _lldpd >/dev/null && getent group adm >/dev/null; then
  unprivileged() {  # unprivileged PORT GROUPS
    start_bg "$tmp/fabricmon-unprivileged-$1.log" ip netns exec "$host" setpriv --reuid=65534 --regid=65534 \
      "$2" --no-new-privs --inh-caps=-all "$fabricmon" run --config "$tmp/fabricmon.yaml" \
      --netdev-include '^fab0$' --listen "127.0.0.1:$1"
  }
  at() { ip netns exec "$host" curl -fsS --max-time 2 "http://127.0.0.1:$1/metrics" 2>/dev/null || true; }
  unprivileged 19111 --groups=adm,_lldpd
  with_groups=$LAST_PID
  unprivileged 19112 --groups=adm
  without=$LAST_PID
  deadline=$((SECONDS + 20))
  until at 19111 | grep -Eq "$leaf07" && at 19112 | grep -Eq 'fabricmon_collector_errors_total\{collector="lldp_neighbors"\} [1-9]'; do
    ((SECONDS < deadline)) || fail "unprivileged daemons: with adm,_lldpd: $(at 19111 | grep -c neighbor_info) neighbours; without: $(at 19112 | grep lldp_neighbors)"
    sleep 0.5
  done
  at 19112 | grep -q 'fabricmon_port_neighbor_info{' && fail "the daemon without _lldpd exported a neighbour"
  grep -q "unable to connect to socket" "$tmp/fabricmon-unprivileged-19112.log" ||
    fail "the daemon without _lldpd did not log lldpd's refusal"
  stop_pid "$with_groups"
  stop_pid "$without"
  echo "unprivileged, no new privileges: with adm,_lldpd the neighbour is seen; with adm alone, lldpd refuses (counted, logged)"
else
  echo "setpriv or the adm/_lldpd groups missing: the unprivileged check is skipped"
fi

sw_cli configure system hostname leaf-08
sw_cli update
start=$SECONDS
wait_for "$leaf08" 15 || fail "the renamed switch (leaf-08) not seen within 15 s"
metrics | grep -Eq "$leaf07" && fail "the old neighbour leaf-07 is still exported beside leaf-08"
echo "renamed to leaf-08 after $((SECONDS - start)) s; leaf-07 gone"

stop_pid "$switch_pid"
start=$SECONDS
wait_for 'fabricmon_port_neighbor_info\{' 15 absent || fail "the neighbour is still exported after the switch's lldpd stopped"
echo "switch's lldpd stopped: neighbour gone after $((SECONDS - start)) s"

stop_pid "$host_pid"
sleep 3
m=$(metrics)
grep -q 'fabricmon_collector_up{collector="lldp_neighbors"} 1' <<<"$m" ||
  fail "lldp_neighbors not up once the host's lldpd is gone: $(grep lldp_neighbors <<<"$m")"
echo "host's lldpd stopped: lldp_neighbors up, no data"
