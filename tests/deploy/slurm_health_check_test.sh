#!/usr/bin/env bash
# slurm_health_check_test.sh FABRICMON
#
# `fabricmon health-check --slurm` as a real Slurm's HealthCheckProgram (Debian 12's slurmctld,
# slurmd, scontrol and munge): a one-node cluster configured here, in a temporary directory, with its
# own ports, its own munged (own key and socket) and every state/spool/log/pid path under the
# directory. slurmd runs a wrapper (SLURM_CONF exported, as a site's wrapper does for a non-default
# slurm.conf) every HealthCheckInterval=5 s against a demo daemon. Checks:
#   - healthy demo + an admin's drain with another reason -> still drained with the admin's reason;
#   - port-down demo -> DRAIN with fabricmon's reason within one health-check interval plus one poll
#     (plus slack for slurmd's scheduling) of the finding appearing;
#   - daemon stopped -> the health check exits 2 and the node stays as it was (drained);
#   - healthy demo again -> the node is resumed (IDLE);
#   - a `srun sleep` job shows up in fabricmon_node_job_info (the slurm_jobs collector reading
#     slurmd's spool directory), on the port of its GPU with a GPU job map, is named by a port_down
#     finding during it (/api/v1/findings, health-check --json, triage), and leaves when it ends.
# Everything started here (munged, slurmctld, slurmd, demo daemons) is stopped by PID. Exit 77
# (skipped) without root or the Slurm/munge packages.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

fabricmon=${1:?usage: slurm_health_check_test.sh FABRICMON}
[[ $(id -u) == 0 ]] || skip "needs root (slurmd runs HealthCheckProgram as root; munged runs as munge)"
export PATH=$PATH:/usr/sbin:/sbin
for tool in slurmctld slurmd scontrol sinfo srun scancel munged setpriv curl jq; do
  find_bin "$tool" >/dev/null || skip "$tool not found (Debian: apt-get install slurmctld slurmd slurm-client munge)"
done
id munge >/dev/null 2>&1 || skip "no munge user (munge package not installed)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabricmon-slurm.XXXXXX")
chmod 755 "$tmp"
cleanup() {
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*"
  sinfo -R 2>&1 || true
  for f in "$tmp"/*.log "$tmp"/log/*.log; do
    [[ -f $f ]] || continue
    echo "----- last lines of $f"
    tail -n 20 "$f"
  done
  exit 1
}

t_start=$SECONDS
mkdir -p "$tmp"/{state,spool,log,run,munge}
# munged: its own key, socket, pid and seed files; it insists on a directory only munge writes.
dd if=/dev/urandom of="$tmp/munge/key" bs=1024 count=1 status=none
chown -R munge:munge "$tmp/munge"
chmod 755 "$tmp/munge"
chmod 400 "$tmp/munge/key"
start_bg "$tmp/munged.log" setpriv --reuid=munge --regid=munge --init-groups \
  "$(find_bin munged)" -F --key-file="$tmp/munge/key" --socket="$tmp/munge/sock" \
  --pid-file="$tmp/munge/pid" --seed-file="$tmp/munge/seed" --log-file="$tmp/munge/munged.log"
for _ in $(seq 1 50); do
  [[ -S $tmp/munge/sock ]] && break
  sleep 0.1
done
[[ -S $tmp/munge/sock ]] || fail "munged did not create its socket"

host=$(hostname -s)
ctld_port=$(free_port)
slurmd_port=$(free_port)
web_port=$(free_port)
cat >"$tmp/hc.sh" <<EOF
#!/bin/sh
# What a site's HealthCheckProgram wrapper does when its slurm.conf is not /etc/slurm/slurm.conf.
export SLURM_CONF=$tmp/slurm.conf
echo start >>$tmp/hc.log
$fabricmon health-check --slurm --config $tmp/fabricmon.yaml >>$tmp/hc.log 2>&1
echo "exit=\$?" >>$tmp/hc.log
EOF
chmod 755 "$tmp/hc.sh"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=fmtest
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthInfo=socket=$tmp/munge/sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
ReturnToService=2
HealthCheckProgram=$tmp/hc.sh
HealthCheckInterval=5
HealthCheckNodeState=ANY
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$tmp/fabricmon.yaml" <<EOF
web:
  listen: 127.0.0.1:$web_port
watchdog:
  rules:
    port_down:
      hold: 2s
collectors:
  slurm_jobs:
    interval: 1s
slurm_jobs:
  spool_dir: $tmp/spool
  gpu_job_map_dir: $tmp/gpumap
health_check:
  timeout: 5s   # CI machines are loaded; the verdict must not turn unknown for a slow answer
EOF
mkdir -p "$tmp/gpumap"
export SLURM_CONF=$tmp/slurm.conf

state() { sinfo -h -n "$host" -o '%T|%E' 2>/dev/null | head -n 1; }
hc_runs() { grep -c '^exit=' "$tmp/hc.log" 2>/dev/null || true; }
hc_starts() { grep -c '^start$' "$tmp/hc.log" 2>/dev/null || true; }
# wait_for SECONDS COMMAND...: until the command succeeds; 1 on timeout.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  while ((SECONDS < deadline)); do
    "$@" && return 0
    sleep 0.2
  done
  return 1
}
# A whole run started after a change: more runs finished than had started when it was made.
after_runs() { (($(hc_runs) >= $1)); }
state_is() { [[ $(state) == "$1" ]]; }
state_matches() { [[ $(state) =~ $1 ]]; }
start_demo() {
  start_bg "$tmp/demo-$1.log" "$fabricmon" demo --config "$tmp/fabricmon.yaml" --scenario "$1" --fault-port 2
  demo_pid=$LAST_PID
  wait_http "http://127.0.0.1:$web_port/healthz" 20 || fail "demo ($1) did not answer"
}

start_bg "$tmp/slurmctld.log" slurmctld -D -f "$tmp/slurm.conf"
start_bg "$tmp/slurmd.log" slurmd -D -f "$tmp/slurm.conf"
wait_for 30 state_matches '^idle' || fail "the one-node cluster did not come up idle: $(state)"
echo "cluster up after $((SECONDS - t_start)) s: $(state)"

# 1. Healthy daemon; an admin drains the node for their own reason: fabricmon leaves it alone.
start_demo healthy
scontrol update nodename="$host" state=drain reason="admin: memory test"
starts=$(hc_starts)
wait_for 10 after_runs $((starts + 1)) || fail "the health check did not run within 10 s"
grep -q '^OK' "$tmp/hc.log" || fail "the healthy demo did not give OK"
state_is "drained|admin: memory test" || fail "the admin's drain was changed: $(state)"
scontrol update nodename="$host" state=resume
wait_for 10 state_matches '^idle' || fail "admin resume failed: $(state)"
echo "admin drain kept while healthy: ok"

# 2. A port goes down: DRAIN with fabricmon's reason within one interval plus one poll.
stop_pid "$demo_pid"
start_demo port-down
wait_for 20 bash -c "curl -fsS http://127.0.0.1:$web_port/api/v1/findings | grep -q '\"rule\":\"port_down\"'" ||
  fail "the port-down demo raised no port_down finding"
t_finding=$SECONDS
wait_for 15 state_matches '^drain.*\|fabricmon: port_down mlx5_2/1' || fail "not drained by fabricmon: $(state)"
drain_latency=$((SECONDS - t_finding))
echo "drained $drain_latency s after the finding appeared: $(state)"
# HealthCheckInterval (5 s) + poll (1 s) + 2 s for slurmd's timer and a loaded machine.
((drain_latency <= 8)) || fail "drain took $drain_latency s (> 8 s)"

# 3. The daemon stops: exit 2 (unknown), node left as it was.
stop_pid "$demo_pid"
starts=$(hc_starts)
wait_for 10 after_runs $((starts + 1)) || fail "the health check did not run within 10 s"
tail -n 1 "$tmp/hc.log" | grep -q '^exit=2$' || fail "daemon down did not give exit 2: $(tail -n 3 "$tmp/hc.log")"
state_matches '^drain.*\|fabricmon: port_down' || fail "daemon down changed the node: $(state)"
echo "daemon stopped: exit 2, node unchanged: ok"

# 4. Healed: resumed.
start_demo healthy
wait_for 15 state_is "idle|none" || fail "not resumed after healing: $(state)"
echo "healed: $(state)"

# 5. A job on the node appears in fabricmon_node_job_info (slurmd's spool socket of its step); with
#    the GPU job map a prolog writes (GPU 2 -> the job), on the port of that GPU; a port going down
#    during the job names it in the finding, health-check --json and triage; it leaves when it ends.
srun -N1 -t 1 sleep 60 >"$tmp/srun.log" 2>&1 &
srun_pid=$!
STARTED_PIDS+=("$srun_pid")
# The whole body first: with pipefail, grep -q closing the pipe early would fail curl.
metrics() { curl -fsS "http://127.0.0.1:$web_port/metrics" 2>/dev/null || true; }
job_seen() { grep -q '^fabricmon_node_job_info{job_id="[0-9]*",user="root"} 1' <<<"$(metrics)"; }
wait_for 15 job_seen || fail "the srun job never showed up in fabricmon_node_job_info"
job=$(grep -o '^fabricmon_node_job_info{job_id="[0-9]*"' <<<"$(metrics)" | grep -o '[0-9]*' | head -n 1)
echo "job seen: $(grep '^fabricmon_node_job_info' <<<"$(metrics)")"
echo "$job" >"$tmp/gpumap/2" # what the site's prolog writes for dcgm-exporter (GPU index 2)
port_job() { grep -q "^fabricmon_port_job_info{device=\"mlx5_2\",port=\"1\",job_id=\"$job\"} 1" <<<"$(metrics)"; }
wait_for 10 port_job || fail "no fabricmon_port_job_info for job $job on mlx5_2 (the port of GPU 2)"
echo "port of the job's GPU: mlx5_2/1"
stop_pid "$demo_pid"
start_demo port-down
finding_jobs() {
  curl -fsS "http://127.0.0.1:$web_port/api/v1/findings" 2>/dev/null |
    jq -e --arg j "$job (root)" '.findings[] | select(.rule == "port_down") | .jobs | index($j)' >/dev/null
}
wait_for 20 finding_jobs || fail "the port_down finding does not name job $job"
"$fabricmon" health-check --json --config "$tmp/fabricmon.yaml" >"$tmp/hc.json" || true
jq -e --arg j "$job (root)" '.drain_worthy[0].jobs | index($j)' "$tmp/hc.json" >/dev/null ||
  fail "health-check --json does not name job $job: $(cat "$tmp/hc.json")"
"$fabricmon" triage --node "http://127.0.0.1:$web_port" >"$tmp/triage.out" 2>&1 || true
grep -q "jobs hit: $job (root)" "$tmp/triage.out" || fail "triage does not name job $job: $(cat "$tmp/triage.out")"
echo "finding, health-check and triage name job $job"
scancel "$job"
rm -f "$tmp/gpumap/2" # the epilog
wait "$srun_pid" 2>/dev/null || true
job_gone() { ! grep -q '^fabricmon_node_job_info{' <<<"$(metrics)"; }
wait_for 10 job_gone || fail "the job did not leave fabricmon_node_job_info"
echo "job left: ok"

echo "PASS in $((SECONDS - t_start)) s"
