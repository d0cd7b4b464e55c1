#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Set-up shared by the README's two commands: installs what is missing on a
# Debian 12 machine (apt packages, as root) and builds the workspace.
#
# System packages and why:
#   ffmpeg          the independent decoder the streams are checked against, and
#                   the generator of the synthetic test clips (lavfi)
#   x264            the reference encoder benchmarks compare against
#   mate-backgrounds  real photographs; pans and zooms over them are the
#                   natural test content (made at test time, never committed)
#   rustc-web       Debian's rustc 1.96, the rustc Linux 6.12's CONFIG_RUST is
#                   built with here (6.12 needs >= 1.78; it replaces Debian's
#                   rustc 1.63 package, which conflicts with it): the kernel
#                   core must compile with it
#   rustfmt-web     its rustfmt: the core must be formatted as the kernel's
#                   make rustfmtcheck wants
#   (scripts/kernel-check.sh installs the kernel tree, LLVM, QEMU and the
#   rest of the kernel toolchain it needs)
#   gcc-multilib    -m32 builds that prove the uAPI structs have one layout
#   valgrind        counts the core's instructions per frame (callgrind)
#   python3-sphinx  builds the uAPI specification with warnings as errors
#   libclang-dev    bindgen: the Rust side of the virtual device takes the uAPI
#                   structs from the C headers, not from hand-written copies
#   libgstreamer1.0-dev, libgstreamer-plugins-base1.0-dev, pkg-config
#                   build the GStreamer element (gstreamer-rs links them)
#   gstreamer1.0-tools, -plugins-base, -plugins-good, -plugins-bad, -libav
#                   gst-launch-1.0 / gst-inspect-1.0, videotestsrc, h264parse,
#                   matroskamux and avdec_h264 for the element's pipelines
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

need_pkgs=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in ffmpeg x264 mate-backgrounds rustc-web rustfmt-web gcc-multilib libclang-dev python3-sphinx valgrind \
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev pkg-config gstreamer1.0-tools \
	gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav; do
	have "$p" || need_pkgs+=("$p")
done

if [ ${#need_pkgs[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages: ${need_pkgs[*]}; run as root or install them" >&2
		exit 1
	fi
	echo "setup: installing ${need_pkgs[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

for tool in ffmpeg ffprobe x264 cargo gst-launch-1.0 gst-inspect-1.0; do
	command -v "$tool" >/dev/null || { echo "setup: $tool not found after install" >&2; exit 1; }
done

# The workspace: fetch crates and build the release binaries once.
cd "$here"
cargo build --release --workspace --quiet
