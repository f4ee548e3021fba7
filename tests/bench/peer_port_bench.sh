#!/usr/bin/env bash
# peer_port_bench.sh BUILD_DIR [--smoke]: the peer_port collector's cost per poll against ibsim
# (docs/benchmarks.md). The fabric: the simulator's two-switch example; opensm assigns the LIDs;
# peer_port_bench runs in-process as Hca1 through libumad2sim. libumad2sim shows a client exactly one
# port (one simulated HCA port per process), so this measures one port; the collector polls its
# ports one after the other with nothing shared between them, so N ports cost N times as much.
# Prints numbers; exits 77 (skipped) when ibsim is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ibsim/lib.sh"
build=${1:?usage: peer_port_bench.sh BUILD_DIR [--smoke]}
bench="$build/tests/bench/peer_port_bench"
polls=200
[ "${2:-}" = --smoke ] && polls=3
require_ibsim
[ -x "$bench" ] || { echo "$bench not built"; exit 2; }

work=$(mktemp -d)
trap 'stop_sim; rm -rf "$work"' EXIT
sock="fmb$$$(date +%N | cut -c1-4)"
start_sim "$work" "$sock" || { echo "ibsim did not start"; exit 1; }
IBSIM_SOCKNAME=$sock LD_PRELOAD=$SIM_LIB SIM_HOST=Hca1 timeout 120 "$bench" "$polls"
