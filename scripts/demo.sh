#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The README's main command: set up, make a short natural clip, encode it to
# H.264 through the default (virtual H1) device and verify the result with an
# independent decoder. Output lands in ./out/.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/setup.sh"
clip=$("$here/tools/testing/content/make-clip.sh" meadow 352x288 90 y4m)
mkdir -p "$here/out"
h264enc="$here/target/release/h264enc"
echo "demo: encoding $clip"
"$h264enc" encode "$clip" -o "$here/out/demo.h264" --recon "$here/out/demo-recon.yuv" --bitrate 500k
"$h264enc" verify "$here/out/demo.h264" --recon "$here/out/demo-recon.yuv" --hrd
