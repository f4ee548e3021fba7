#!/usr/bin/env bash
# ctest's bounded fuzz smoke: smoke.sh <fuzzer> <work dir> <corpus> <seconds> [-dict=...]
# Mutates from the checked-in corpus for a few seconds; new inputs and crash files go to the work
# dir (in the build tree), which starts empty each run.
set -euo pipefail
fuzzer=$1 work=$2 corpus=$3 seconds=$4
shift 4
rm -rf "$work" && mkdir -p "$work/new"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" "$@" "$work/new" "$corpus"
