#!/usr/bin/env bash
# status_page_browser_test.sh FABRICMON
#
# The status page at / in a real headless browser (Debian's chromium; see docs/contract.md, "/"):
#   pause-storm demo: the page loads with no console error, lists the pause_storm finding, names
#     pfc_pause as the verdict and draws a chart with data points for the stormed interface;
#   healthy demo: no finding, verdict "nothing wrong";
#   window.enabled: false: the page loads and says the window is off instead of a verdict and charts;
#   with basic auth on (web.config_file): / and its assets answer 401 without credentials.
# Exit 77 (skipped) when chromium, curl or htpasswd-style hashing (python3 crypt) is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

fabricmon=${1:?usage: status_page_browser_test.sh FABRICMON}
chromium=$(find_bin chromium chromium-browser) || skip "chromium not found (Debian: apt-get install chromium)"
find_bin curl >/dev/null || skip "curl not found"
[[ -x $fabricmon ]] || skip "fabricmon binary $fabricmon not built"
[[ -r /usr/share/javascript/dygraphs/dygraph.min.js ]] || skip "libjs-dygraphs not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fabricmon-page.XXXXXX")
cleanup() {
  stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
  echo "FAIL: $*"
  for f in "$tmp"/*.log "$tmp"/*.err; do
    [[ -f $f ]] || continue
    echo "----- last lines of $f"
    tail -n 20 "$f"
  done
  exit 1
}

# browse NAME URL: the DOM after the page's scripts ran, in $tmp/NAME.html; console lines in .err.
browse() {
  # A profile of its own: parallel tests must not share chromium's singleton lock.
  timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile-$1" \
    --virtual-time-budget=8000 --enable-logging=stderr --v=0 --dump-dom "$2" >"$tmp/$1.html" 2>"$tmp/$1.err" ||
    fail "chromium failed on $2"
  if grep -E ':INFO:CONSOLE:|Uncaught' "$tmp/$1.err"; then
    fail "$1: the page logged to the console"
  fi
}

start_demo() {  # start_demo SCENARIO [extra args]; sets URL
  local scenario=$1 port
  shift
  port=$(free_port)
  start_bg "$tmp/$scenario.log" "$fabricmon" demo --scenario "$scenario" --listen "127.0.0.1:$port" \
    --poll-interval 250ms "$@"
  URL="http://127.0.0.1:$port"
}

# ------------------------------------------------------------------ pause storm
start_demo pause-storm
wait_http "$URL/healthz" 30 || fail "pause-storm demo not serving"
deadline=$((SECONDS + 30))
until curl -fsS "$URL/api/v1/findings" | grep -q '"rule":"pause_storm"'; do
  ((SECONDS < deadline)) || fail "no pause_storm finding within 30 s"
  sleep 0.25
done
sleep 2  # a few more samples for the charts
browse storm "$URL/"
dom="$tmp/storm.html"
grep -q 'data-loaded="1"' "$dom" || fail "storm: the page never finished loading its data"
grep -Eq '<tr class="finding" data-rule="pause_storm">' "$dom" || fail "storm: no pause_storm row in the findings table"
grep -q 'id="verdict" data-cause="pfc_pause"' "$dom" || fail "storm: the verdict does not name pfc_pause"
points=$(grep -o '<div class="port" data-port="enp24s0np0">.*' "$dom" | grep -o 'data-points="[0-9]*"' | head -1 | tr -dc 0-9)
[[ -n $points ]] && ((points >= 8)) || fail "storm: no chart with data points for enp24s0np0 (got '${points}')"
grep -q '<canvas' "$dom" || fail "storm: dygraphs drew no canvas"
echo "pause-storm: finding listed, verdict pfc_pause, enp24s0np0 chart with $points points, no console errors"
stop_all

# ------------------------------------------------------------------ healthy
start_demo healthy
wait_http "$URL/healthz" 30 || fail "healthy demo not serving"
sleep 4
browse healthy "$URL/"
dom="$tmp/healthy.html"
grep -q 'data-loaded="1"' "$dom" || fail "healthy: the page never finished loading its data"
! grep -q 'class="finding"' "$dom" || fail "healthy: the page lists findings"
grep -q 'id="verdict" data-cause=""' "$dom" || fail "healthy: the verdict names a cause"
grep -q 'nothing wrong' "$dom" || fail "healthy: no 'nothing wrong' verdict"
echo "healthy: no finding, verdict nothing wrong, no console errors"
stop_all

# ------------------------------------------------------------------ window off
# window.enabled: false (docs/configuration.md, "window"): the page loads and says why it has no
# verdict and no charts.
printf 'window:\n  enabled: false\n' >"$tmp/nowindow.yaml"
start_demo healthy --config "$tmp/nowindow.yaml"
wait_http "$URL/healthz" 30 || fail "window-off demo not serving"
sleep 2
browse nowindow "$URL/"
dom="$tmp/nowindow.html"
grep -q 'data-loaded="1"' "$dom" || fail "window off: the page never finished loading its data"
grep -q 'No verdict: the recent-sample window is off' "$dom" || fail "window off: the verdict does not say the window is off"
grep -q 'No charts: the recent-sample window is off' "$dom" || fail "window off: the charts do not say the window is off"
echo "window off: the page says so in the verdict and the charts, no console errors"
stop_all

# ------------------------------------------------------------------ same auth as /metrics
if python3 -c 'import crypt' 2>/dev/null; then
  hash=$(python3 -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH)))' 2>/dev/null)
  printf 'basic_auth_users:\n  oncall: "%s"\n' "$hash" >"$tmp/web.yml"
  printf 'web:\n  config_file: %s\n' "$tmp/web.yml" >"$tmp/fabricmon.yaml"
  start_demo healthy --config "$tmp/fabricmon.yaml"
  deadline=$((SECONDS + 30))
  until [[ $(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz") == 401 ]]; do
    ((SECONDS < deadline)) || fail "auth demo not serving"
    sleep 0.2
  done
  for path in / /static/status.js /static/dygraph.min.js /api/v1/window /api/v1/status; do
    code=$(curl -s -o /dev/null -w '%{http_code}' "$URL$path")
    [[ $code == 401 ]] || fail "$path without credentials answered $code, want 401"
    code=$(curl -s -o /dev/null -w '%{http_code}' -u oncall:s3cret "$URL$path")
    [[ $code == 200 ]] || fail "$path with credentials answered $code, want 200"
  done
  echo "basic auth: the page, its assets and its data answer 401 without credentials, 200 with"
else
  echo "note: python3 crypt module missing; the auth part is skipped"
fi
echo "PASS"
