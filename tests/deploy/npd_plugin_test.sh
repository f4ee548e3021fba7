#!/usr/bin/env bash
# npd_plugin_test.sh FABRICMON PLUGIN_JSON
#
# deploy/node-problem-detector/fabricmon-plugin.json's rule run the way node-problem-detector's
# custom plugin monitor runs it (pkg/custompluginmonitor/plugin/plugin.go): the rule's path and
# args, killed at the rule's timeout, stdout trimmed and cut at pluginConfig.max_output_length,
# exit 0 OK / 1 NonOK / anything else Unknown. Against a demo daemon:
#   - healthy -> exit 0 with "OK";
#   - a port down -> exit 1 naming port_down, its port and rail, whole within max_output_length;
#   - no daemon -> exit 2 (Unknown) well within the timeout.
# The binary replaces the rule's path and `--config` is appended (a test config with its own port).
# Exit 77 (skipped) without jq or curl.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

fabricmon=${1:?usage: npd_plugin_test.sh FABRICMON PLUGIN_JSON}
plugin=${2:?usage: npd_plugin_test.sh FABRICMON PLUGIN_JSON}
find_bin jq >/dev/null || skip "jq not found"
find_bin curl >/dev/null || skip "curl not found"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabricmon-npd.XXXXXX")
cleanup() {
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
  echo "FAIL: $*"
  for f in "$tmp"/*.log; do
    [[ -f $f ]] && { echo "----- $f"; tail -n 20 "$f"; }
  done
  exit 1
}

[[ $(jq -r .plugin "$plugin") == custom ]] || fail "plugin is not \"custom\""
max_len=$(jq -r '.pluginConfig.max_output_length' "$plugin")
timeout=$(jq -r '.rules[0].timeout // .pluginConfig.timeout' "$plugin")
path=$(jq -r '.rules[0].path' "$plugin")
mapfile -t args < <(jq -r '.rules[0].args[]' "$plugin")
[[ $path == */fabricmon && ${args[0]} == health-check ]] || fail "the rule does not run fabricmon health-check"
[[ $(jq -r '.rules[0].type' "$plugin") == permanent ]] || fail "the rule is not a permanent condition"
cond=$(jq -r '.rules[0].condition' "$plugin")
[[ $(jq -r --arg c "$cond" '[.conditions[] | select(.type == $c)] | length' "$plugin") == 1 ]] ||
  fail "condition $cond has no default in conditions[]"

port=$(free_port)
cat >"$tmp/fabricmon.yaml" <<YAML
web:
  listen: 127.0.0.1:$port
watchdog:
  rules:
    port_down:
      hold: 2s
YAML

# run_plugin: sets status and message as the plugin monitor would.
run_plugin() {
  local out start=$SECONDS
  set +e
  out=$(timeout --signal=KILL "$timeout" "$fabricmon" "${args[@]}" --config "$tmp/fabricmon.yaml" 2>/dev/null)
  status=$?
  set -e
  elapsed=$((SECONDS - start))
  raw=$(printf '%s' "$out" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
  message=${raw:0:$max_len}
}

run_plugin
[[ $status == 2 ]] || fail "no daemon: exit $status, want 2 (Unknown)"
[[ $message == UNKNOWN:* ]] || fail "no daemon: message '$message'"
((elapsed < 5)) || fail "no daemon took $elapsed s"
echo "no daemon: exit 2 '$message'"

start_bg "$tmp/demo-healthy.log" "$fabricmon" demo --config "$tmp/fabricmon.yaml"
wait_http "http://127.0.0.1:$port/healthz" 20 || fail "demo did not answer"
run_plugin
[[ $status == 0 && $message == OK* ]] || fail "healthy: exit $status '$message'"
echo "healthy: exit 0 '$message'"
stop_all

start_bg "$tmp/demo-down.log" "$fabricmon" demo --config "$tmp/fabricmon.yaml" --scenario port-down --fault-port 5
wait_http "http://127.0.0.1:$port/healthz" 20 || fail "demo did not answer"
deadline=$((SECONDS + 20))
while ((SECONDS < deadline)); do
  run_plugin
  [[ $status == 1 ]] && break
  sleep 0.5
done
[[ $status == 1 ]] || fail "port down: exit $status '$message'"
[[ $message == "$raw" ]] || fail "port down: the message was cut at $max_len: '$raw'"
[[ $message == "port_down mlx5_5/1 "*" rail 5" ]] || fail "port down: '$message'"
echo "port down: exit 1 '$message' (${#raw} <= $max_len chars)"
echo PASS
