#!/usr/bin/env bash
# run_tool.sh TOOL ARGS...: run a test-time tool (promtool, amtool), or exit 77 (ctest: skipped)
# with a message when it is not installed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tool=$1
shift
find_bin "$tool" >/dev/null || skip "$tool not found on PATH (Debian: apt-get install prometheus / prometheus-alertmanager)"
exec "$tool" "$@"
