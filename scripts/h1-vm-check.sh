#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The real driver on the emulated H1, in the debug kernel of scripts/h1-vm.sh
# (part of the test command):
#   1. v4l2-compliance, without and with streaming, on the encoder node: no
#      failure but the named v4l-utils 1.22 skew and the one check that
#      predates stateless encoders (scripts/compliance-skew.sh);
#   2. h264enc encode --device over a matrix of options and sizes (QCIF to
#      1920x1080, which the driver codes as 1088 lines and crops): every
#      stream byte-identical to what the virtual device makes from the same
#      input and options, and decoded by ffmpeg to the reconstruction;
#   3. no WARNING, BUG, lockdep, KASAN or kmemleak report and no sleeping in
#      atomic context in the guest's kernel log (h1-vm.sh exits 3).
# The KUnit suites of the core, the control validation and the backend run
# again in that kernel as it boots and loads hantro; every case must pass.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/compliance-skew.sh
. "$here/scripts/compliance-skew.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() {
	echo "h1-vm-check: $*" >&2
	exit 1
}

# The matrix: name, input, options (the same for the device and the virtual
# device). Frames are few: the software H1 runs inside the guest under TCG.
cat >"$out/cases" <<'CASES'
qcif qcif.y4m
qcif-25fps qcif25.y4m --qp 30
nv12-crop c200.nv12 --size 200x120 --pix-fmt nv12
cbr cif.y4m --bitrate 300k --gop 5
vbr cif.y4m --rc vbr --bitrate 300k
main cif.y4m --profile main --qp 30
high cif.y4m --profile high --bitrate 400k --cabac-init-idc 1
slices cif.y4m --slices 3 --qp 28
ltr-layers cif.y4m --ltr-period 4 --temporal-layers 2 --qp 30
client-rc cif.y4m --client-rc --bitrate 300k
filler cif.y4m --bitrate 200k --filler
hd-crop hd.y4m --profile high --qp 32
CASES
lavfi() { ffmpeg -loglevel error -y -f lavfi -i "$1" "${@:2}"; }
lavfi testsrc=size=176x144:rate=30 -frames:v 10 -pix_fmt yuv420p "$out/qcif.y4m"
lavfi testsrc2=size=176x144:rate=25 -frames:v 8 -pix_fmt yuv420p "$out/qcif25.y4m"
lavfi testsrc2=size=200x120:rate=30 -frames:v 8 -pix_fmt nv12 -f rawvideo "$out/c200.nv12"
lavfi testsrc2=size=352x288:rate=30 -frames:v 12 -pix_fmt yuv420p "$out/cif.y4m"
lavfi testsrc2=size=1920x1080:rate=30 -frames:v 2 -pix_fmt yuv420p "$out/hd.y4m"
# Encodes every case on device $1 into NAME.$2.h264; $3: more options.
cat >"$out/encode-all" <<'ENCODE'
while read -r name input opts; do
	h264enc encode -q "$input" $opts -o "$name.$2.h264" --device "$1" $3 >"$name.$2.log" 2>&1
	echo "$name $?" >>"status.$2"
done <cases
ENCODE

t0=$(date +%s)
rc=0
H1_VM_DMESG=$out/dmesg H1_VM_QUIET=1 "$here/scripts/h1-vm.sh" --share "$out" -- sh -c '
	cd "$1"
	v4l2-compliance -d "$H1_DEVICE" >compliance.txt 2>&1
	v4l2-compliance -d "$H1_DEVICE" -s 10 >compliance-streaming.txt 2>&1
	sh encode-all "$H1_DEVICE" dev
' h1-vm-check "$out" || rc=$?
[ "$rc" -ne 3 ] || fail "the guest's kernel log holds a report (above)"
[ "$rc" -eq 0 ] || fail "the VM run failed (exit $rc)"
echo "h1-vm-check: VM run in $(($(date +%s) - t0)) s"

grep -E "^ *not ok " "$out/dmesg" >&2 && fail "a KUnit case failed in the debug kernel"
for suite in h264enc-core v4l2-h264-enc-ctrls hantro-h1-h264-enc; do
	grep -qE "^ *ok [0-9]+ $suite\$" "$out/dmesg" || fail "KUnit suite $suite did not pass in the debug kernel"
done
echo "h1-vm-check: KUnit h264enc-core, v4l2-h264-enc-ctrls, hantro-h1-h264-enc pass in the debug kernel"

for run in compliance compliance-streaming; do
	[ -s "$out/$run.txt" ] || fail "$run printed nothing"
	total=$(grep -E "^Total for .*Failed: [0-9]+" "$out/$run.txt" | tail -1)
	[ -n "$total" ] || { cat "$out/$run.txt" >&2; fail "$run printed no result"; }
	other=$(compliance_unexpected --encoder <"$out/$run.txt")
	if [ -n "$other" ]; then
		cat "$out/$run.txt" >&2
		fail "v4l2-compliance on the encoder ($run): $other"
	fi
	echo "h1-vm-check: v4l2-compliance ($run): ${total#Total for }" \
		"($(grep -c "fail: " "$out/$run.txt" || true) known failures, scripts/compliance-skew.sh)"
done

# The same cases on the virtual device, with its reconstruction.
while read -r name input opts; do
	# shellcheck disable=SC2086 # the options are words
	(cd "$out" && "$here/target/release/h264enc" encode -q "$input" $opts -o "$name.virt.h264" \
		--recon "$name.virt.yuv" >"$name.virt.log" 2>&1) ||
		{ cat "$out/$name.virt.log" >&2; fail "$name: the virtual device failed"; }
done <"$out/cases"
n=0
while read -r name _; do
	dev=$(awk -v n="$name" '$1 == n { print $2 }' "$out/status.dev")
	[ "$dev" = 0 ] || { cat "$out/$name.dev.log" >&2; fail "$name: h264enc on the device exited ${dev:-?}"; }
	cmp -s "$out/$name.dev.h264" "$out/$name.virt.h264" ||
		fail "$name: the stream of the real driver differs from the virtual device's"
	"$here/target/release/h264enc" verify "$out/$name.dev.h264" --recon "$out/$name.virt.yuv" \
		>"$out/$name.verify.log" 2>&1 ||
		{ cat "$out/$name.verify.log" >&2; fail "$name: ffmpeg's decode is not the reconstruction"; }
	n=$((n + 1))
done <"$out/cases"
echo "h1-vm-check: $n streams of the real driver byte-identical to the virtual device's and decoded to its reconstruction"
