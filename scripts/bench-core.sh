#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-frame cost of the Rust core: instructions (callgrind, repeatable on a
# busy machine) of plan_frame + complete_frame over 1000 CIF CBR L1T3 frames,
# with and without the header sizing plan_frame does (header_len).
# Fails above H264ENC_FRAME_COST_LIMIT instructions per frame (default 10000;
# the aim is 5000 without header writing).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
limit=${H264ENC_FRAME_COST_LIMIT:-10000}
frames=1000
cd "$here"
cargo build --quiet --release -p h264enc --example frame_cost
# Collect only inside the named functions (callees included): exact
# inclusive counts, whatever inlining did to the symbols around them.
collected() {
	local args=()
	for f in "$@"; do args+=(--toggle-collect="*$f*"); done
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "${args[@]}" \
		target/release/examples/frame_cost $frames 2>&1 >/dev/null |
		awk '/Collected :/ { print $NF }'
}
total=$(collected Encoder::plan_frame Encoder::complete_frame)
# plan_frame sizes the AUD and SEI it will write (header_len); 0 if inlined.
headers=$(collected Encoder::header_len)
headers=${headers:-0}
[ "${total:-0}" -gt 0 ] || { echo "bench-core: callgrind collected nothing" >&2; exit 1; }
per_frame=$((total / frames))
without=$(((total - headers) / frames))
echo "core: plan_frame + complete_frame = $per_frame instructions per frame; $without without header sizing (aim 5000)"
if [ "$without" -gt "$limit" ]; then
	echo "core: per-frame cost $without exceeds $limit instructions" >&2
	exit 1
fi
