#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Generates each kind of test clip twice in fresh directories and checks the
# bytes are identical: tests that compare against stored figures rely on it.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
a=$(mktemp -d) b=$(mktemp -d)
trap 'rm -rf "$a" "$b"' EXIT
for clip in flat noise testsrc2 meadow scenecut; do
	x=$(H264ENC_CONTENT_DIR=$a "$here/make-clip.sh" "$clip" 64x48 4)
	y=$(H264ENC_CONTENT_DIR=$b "$here/make-clip.sh" "$clip" 64x48 4)
	want=$((64 * 48 * 3 / 2 * 4))
	got=$(stat -c %s "$x")
	[ "$got" -eq "$want" ] || { echo "content: $clip is $got bytes, want $want" >&2; exit 1; }
	cmp -s "$x" "$y" || { echo "content: $clip differs between two runs" >&2; exit 1; }
	echo "content: $clip deterministic ($got bytes)"
done
