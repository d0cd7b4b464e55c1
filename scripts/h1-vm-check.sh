#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The real driver on the emulated H1, in the debug kernel of scripts/h1-vm.sh
# (part of the test command):
#   1. v4l2-compliance, without and with streaming, on the encoder node: no
#      failure but the named v4l-utils 1.22 skew and the one check that
#      predates stateless encoders (scripts/compliance-skew.sh);
#   1b. h264enc check-device on the encoder node: every rule of the uAPI it
#      tries holds (incomplete requests refused with ENOENT at queue time,
#      sequence controls EBUSY while streaming, bit rate and key frame acting
#      on the next frame, per-request parameters, feedback, failed frames);
#   2. h264enc encode --device over a matrix of options and sizes (QCIF to
#      1920x1080, which the driver codes as 1088 lines and crops), with 2
#      media requests queued on the driver at once (1 and 4 in two cases,
#      1 with client-driven rate control): every
#      stream byte-identical to what the virtual device makes from the same
#      input and options, and decoded by ffmpeg to the reconstruction;
#   3. faults of the emulated hardware (a hang the watchdog catches, a stream
#      buffer too small, a slice header and feedback registers that disagree
#      with the plan): each failed frame comes back in the ERROR state with
#      the reason in its feedback, h264enc queues it again, and the stream is
#      the virtual device's fault-free one, byte for byte;
#   4. load: two processes encoding at once, open/close loops, an encoder
#      killed with SIGKILL in mid-stream, a 1000-frame run: every stream
#      byte-identical to the virtual device's;
#   5. gst-launch-1.0 with the element on the encoder node: the same stream
#      as the element on the virtual device, every frame decoded; and the
#      element's appsrc tests of events and changes (force-key-unit events,
#      a bit rate change while playing, new caps, frames in flight) with the
#      node as their device;
#   6. no WARNING, BUG, lockdep, KASAN or kmemleak report (two scans after
#      everything, the files closed) and no sleeping in atomic context in the
#      guest's kernel log (h1-vm.sh exits 3).
# The KUnit suites of the core, the control validation and the backend run
# again in that kernel as it boots and loads hantro; every case must pass.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/compliance-skew.sh
. "$here/scripts/compliance-skew.sh"
out=$(mktemp -d)
ok=0
# On failure the run's files stay for a look.
trap '[ "$ok" = 1 ] && rm -rf "$out" || echo "h1-vm-check: the run'"'"'s files are in $out" >&2' EXIT
fail() {
	echo "h1-vm-check: $*" >&2
	exit 1
}

# The matrix: name, input, options (the same for the device and the virtual
# device). Frames are few: the software H1 runs inside the guest under TCG.
# hd-crop keeps one frame in flight: under TCG the emulated H1 codes a
# 1080p frame in a good part of hantro's 2 s watchdog, and a client reading
# the next 1080p frame alongside (over 9p) pushed it over.
cat >"$out/cases" <<'CASES'
qcif qcif.y4m
qcif-25fps qcif25.y4m --qp 30
nv12-crop c200.nv12 --size 200x120 --pix-fmt nv12
yuyv-crop c200.yuyv --size 200x120 --pix-fmt yuyv
uyvy qcif.uyvy --size 176x144 --pix-fmt uyvy --qp 28
rgb565-crop c202.rgb565 --size 202x120 --pix-fmt rgb565
bgrx qcif.bgrx --size 176x144 --pix-fmt bgrx --qp 26
xbgr qcif.xbgr --size 176x144 --pix-fmt xbgr --bitrate 300k
even-630 c630.y4m --qp 30
cbr cif.y4m --bitrate 300k --gop 5
one-in-flight cif.y4m --bitrate 300k --gop 5 --in-flight 1
four-in-flight cif.y4m --bitrate 300k --gop 5 --in-flight 4
vbr cif.y4m --rc vbr --bitrate 300k
cq cif.y4m --rc cq --quality 60
cq-peak cif.y4m --rc cq --quality 90 --max-bitrate 250k
main cif.y4m --profile main --qp 30
high cif.y4m --profile high --bitrate 400k --cabac-init-idc 1
slices cif.y4m --slices 3 --qp 28
ltr-layers cif.y4m --ltr-period 4 --temporal-layers 2 --qp 30
client-ltr cif.y4m --qp 30 --mark-long-term 3,7
layer-split cif.y4m --bitrate 300k --temporal-layers 3 --layer-split 50,25,25
client-rc cif.y4m --client-rc --bitrate 300k
filler cif.y4m --bitrate 200k --filler
hd-crop hd.y4m --profile high --qp 32 --in-flight 1
forced-idr cif.y4m --qp 30 --force-idr 4,9
bitrate-change cif.y4m --bitrate 300k --bitrate-at 6:120k
vbr-bitrate-change cif.y4m --rc vbr --bitrate 300k --bitrate-at 4:500k
low-delay cut.y4m --bitrate 300k --cpb-size 100 --filler
skip cut.y4m --bitrate 150k --cpb-size 100 --filler
CASES
lavfi() { ffmpeg -loglevel error -y -f lavfi -i "$1" "${@:2}"; }
lavfi testsrc=size=176x144:rate=30 -frames:v 10 -pix_fmt yuv420p "$out/qcif.y4m"
lavfi testsrc2=size=176x144:rate=25 -frames:v 8 -pix_fmt yuv420p "$out/qcif25.y4m"
lavfi testsrc2=size=200x120:rate=30 -frames:v 8 -pix_fmt nv12 -f rawvideo "$out/c200.nv12"
lavfi testsrc2=size=200x120:rate=30 -frames:v 8 -pix_fmt yuyv422 -f rawvideo "$out/c200.yuyv"
lavfi testsrc2=size=176x144:rate=30 -frames:v 4 -pix_fmt uyvy422 -f rawvideo "$out/qcif.uyvy"
lavfi testsrc2=size=202x120:rate=30 -frames:v 4 -pix_fmt rgb565le -f rawvideo "$out/c202.rgb565"
lavfi testsrc2=size=176x144:rate=30 -frames:v 4 -pix_fmt bgr0 -f rawvideo "$out/qcif.bgrx"
lavfi testsrc2=size=176x144:rate=30 -frames:v 4 -pix_fmt 0bgr -f rawvideo "$out/qcif.xbgr"
lavfi testsrc2=size=630x270:rate=30 -frames:v 3 -pix_fmt yuv420p "$out/c630.y4m"
lavfi testsrc2=size=352x288:rate=30 -frames:v 12 -pix_fmt yuv420p "$out/cif.y4m"
lavfi testsrc2=size=1920x1080:rate=30 -frames:v 2 -pix_fmt yuv420p "$out/hd.y4m"
# A scene cut at frame 6: with a 100 ms CPB its P picture becomes an IDR
# picture, coded again until it fits (the driver restarts the hardware); at
# 150 kb/s none fits, and the core writes the picture as skipped.
lavfi "testsrc2=size=352x288:rate=30,trim=end_frame=6[a];mandelbrot=size=352x288:rate=30,trim=end_frame=6,setpts=PTS-STARTPTS[b];[a][b]concat" \
	-frames:v 12 -pix_fmt yuv420p "$out/cut.y4m"
lavfi testsrc2=size=96x48:rate=30 -frames:v 1000 -pix_fmt yuv420p "$out/long.y4m"
# Encodes every case on device $1 into NAME.$2.h264; $3: more options.
cat >"$out/encode-all" <<'ENCODE'
while read -r name input opts; do
	h264enc encode -q "$input" $opts -o "$name.$2.h264" --stats "$name.$2.jsonl" --device "$1" $3 \
		>"$name.$2.log" 2>&1
	echo "$name $?" >>"status.$2"
done <cases
ENCODE

# The faults, by the emulator's frame count: this encode comes first in the
# guest, and each failed frame's second try is the emulator's next frame.
faults="--fault-at 1:timeout --fault-at 3:buffer-full --fault-at 5:bus-error"
faults="$faults --fault-at 7:corrupt-slice-header --fault-at 9:bad-qp-sum"
fault_case="cif.y4m --qp 30"
cat >"$out/faults" <<FAULTS
h264enc encode -q $fault_case --retries 1 -o faults.dev.h264 --device "\$1" >faults.log 2>&1
echo \$? >faults.status
FAULTS

# Load on the one H1: statuses in load.status, streams to compare.
cat >"$out/load" <<'LOAD'
dev=$1
h264enc encode -q cif.y4m --qp 30 -o two-a.dev.h264 --device "$dev" >two-a.log 2>&1 &
a=$!
h264enc encode -q qcif.y4m --bitrate 200k -o two-b.dev.h264 --device "$dev" >two-b.log 2>&1 &
b=$!
wait $a
echo "two-a $?" >>load.status
wait $b
echo "two-b $?" >>load.status
i=0
while [ $i -lt 100 ] && v4l2-ctl -d "$dev" --get-fmt-video-out >/dev/null 2>&1; do i=$((i + 1)); done
echo "open-close $i" >>load.status
i=0
while [ $i -lt 10 ] && h264enc encode -q qcif.y4m --frames 2 --qp 30 -o loop.dev.h264 \
	--device "$dev" >loop.log 2>&1; do i=$((i + 1)); done
echo "encode-loop $i" >>load.status
h264enc encode -q long.y4m --qp 30 -o killed.dev.h264 --device "$dev" >/dev/null 2>&1 &
k=$!
sleep 4
kill -9 $k
wait $k
echo "killed $?" >>load.status
h264enc encode -q cif.y4m --qp 30 -o after-kill.dev.h264 --device "$dev" >after-kill.log 2>&1
echo "after-kill $?" >>load.status
h264enc encode -q long.y4m --bitrate 100k -o long.dev.h264 --device "$dev" >long.log 2>&1
echo "long $?" >>load.status
LOAD

# The element, with only the plugins the pipeline needs (a registry of every
# plugin would take minutes to build under TCG), from YUY2 as the 2023 RFC's
# example pipeline feeds it.
gst_plugins=$(pkg-config --variable=pluginsdir gstreamer-1.0)
gst_pipeline="videotestsrc num-buffers=15 pattern=ball ! video/x-raw,format=YUY2,width=176,height=144,framerate=30/1
	! v4l2slh264enc rate-control=cbr bitrate=300000 DEVICE ! h264parse
	! video/x-h264,stream-format=byte-stream,alignment=au ! filesink location=OUT"
cat >"$out/gst" <<GST
mkdir -p /tmp/gst-plugins
for p in coreelements videotestsrc videoparsersbad; do ln -sf "$gst_plugins/libgst\$p.so" /tmp/gst-plugins/; done
GST_REGISTRY_1_0=/tmp/gst-registry.bin GST_PLUGIN_SYSTEM_PATH_1_0=/tmp/gst-plugins \\
	gst-launch-1.0 -q $(echo "$gst_pipeline" | sed 's/DEVICE/device=\$1/; s/OUT/gst.dev.h264/' | tr '\n\t' '  ') >gst.log 2>&1
echo \$? >gst.status
GST

# The element's events and changes on the real driver: its appsrc/appsink
# tests of force-key-unit events (down- and upstream), a bit rate change
# while playing, new caps and frames in flight, run in the guest with the
# encoder node as their device. Their clips are made here: the guest sees
# the clip cache read-only.
element_tests="forced_key_frames_and_a_bit_rate_change_while_playing
	an_upstream_key_unit_request_gives_an_idr_picture
	a_flush_drops_the_frames_in_flight_and_the_next_is_an_idr_picture
	new_caps_drain_and_restart_with_new_parameter_sets
	frames_in_flight_keep_the_stream_its_order_and_the_latency_they_add"
element_bin=$(cd "$here" && cargo test --release -q -p gst-v4l2slh264enc --test element --no-run \
	--message-format=json | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "element":
        print(m["executable"])')
[ -x "$element_bin" ] || fail "no test binary of the element"
for c in 320x240:90 176x144:20 176x144:5 320x240:5 176x144:12 176x144:9; do
	"$here/tools/testing/content/make-clip.sh" meadow "${c%:*}" "${c#*:}" yuv >/dev/null
done
cat >"$out/gst-events" <<EVENTS
ln -sf "$gst_plugins/libgstapp.so" /tmp/gst-plugins/
GST_PLUGIN_PATH= V4L2SLH264ENC_TEST_DEVICE=\$1 H264ENC_CONTENT_DIR=${H264ENC_CONTENT_DIR:-$HOME/.cache/h264enc-content} \\
	GST_REGISTRY_1_0=/tmp/gst-registry-events.bin GST_PLUGIN_SYSTEM_PATH_1_0=/tmp/gst-plugins \\
	$element_bin --exact --test-threads 1 $(echo $element_tests) >gst-events.log 2>&1
echo \$? >gst-events.status
EVENTS

t0=$(date +%s)
rc=0
H1_VM_DMESG=$out/dmesg H1_VM_KMEMLEAK=$out/kmemleak H1_VM_QUIET=1 H1_VM_EMU_ARGS="$faults" \
	"$here/scripts/h1-vm.sh" --share "$out" -- sh -c '
	cd "$1"
	sh faults "$H1_DEVICE"
	v4l2-compliance -d "$H1_DEVICE" >compliance.txt 2>&1
	v4l2-compliance -d "$H1_DEVICE" -s 10 >compliance-streaming.txt 2>&1
	h264enc check-device "$H1_DEVICE" >check-device.txt 2>&1
	echo $? >check-device.status
	sh encode-all "$H1_DEVICE" dev
	sh load "$H1_DEVICE" 2>load.err
	sh gst "$H1_DEVICE"
	sh gst-events "$H1_DEVICE"
' h1-vm-check "$out" || rc=$?
[ "$rc" -ne 3 ] || fail "the guest's kernel log holds a report (above)"
[ "$rc" -eq 0 ] || fail "the VM run failed (exit $rc)"
echo "h1-vm-check: VM run in $(($(date +%s) - t0)) s"

grep -E "^ *not ok " "$out/dmesg" >&2 && fail "a KUnit case failed in the debug kernel"
for suite in h264enc-core v4l2-h264-enc-ctrls hantro-h1-h264-enc; do
	grep -qE "^ *ok [0-9]+ $suite\$" "$out/dmesg" || fail "KUnit suite $suite did not pass in the debug kernel"
done
echo "h1-vm-check: KUnit h264enc-core, v4l2-h264-enc-ctrls, hantro-h1-h264-enc pass in the debug kernel"

# The uAPI's rules through real ioctls: requests refused at queue time,
# controls busy while streaming, changes that act on the next frame,
# per-request parameters, feedback, failed frames.
[ "$(cat "$out/check-device.status" 2>/dev/null)" = 0 ] ||
	{ cat "$out/check-device.txt" >&2; fail "h264enc check-device on the device failed"; }
echo "h1-vm-check: h264enc check-device on the encoder node: $(tail -1 "$out/check-device.txt" | sed 's/^check-device: //')"

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
		--recon "$name.virt.yuv" --stats "$name.virt.jsonl" >"$name.virt.log" 2>&1) ||
		{ cat "$out/$name.virt.log" >&2; fail "$name: the virtual device failed"; }
done <"$out/cases"
n=0
while read -r name _; do
	dev=$(awk -v n="$name" '$1 == n { print $2 }' "$out/status.dev")
	[ "$dev" = 0 ] || { cat "$out/$name.dev.log" >&2; fail "$name: h264enc on the device exited ${dev:-?}"; }
	cmp -s "$out/$name.dev.h264" "$out/$name.virt.h264" ||
		fail "$name: the stream of the real driver differs from the virtual device's"
	# The feedback read through real ioctls (frame size, type, frame_num,
	# POC, long-term marking, the DPB by timestamp, the HRD verdict) is the
	# virtual device's; only the virtual device has a reconstruction (PSNR).
	for side in dev virt; do
		sed 's/,"psnr_y":[^}]*//' "$out/$name.$side.jsonl" >"$out/$name.$side.feedback"
	done
	cmp -s "$out/$name.dev.feedback" "$out/$name.virt.feedback" ||
		{ diff "$out/$name.dev.feedback" "$out/$name.virt.feedback" | head >&2
		  fail "$name: the real driver's feedback differs from the virtual device's"; }
	"$here/target/release/h264enc" verify "$out/$name.dev.h264" --recon "$out/$name.virt.yuv" \
		>"$out/$name.verify.log" 2>&1 ||
		{ cat "$out/$name.verify.log" >&2; fail "$name: ffmpeg's decode is not the reconstruction"; }
	n=$((n + 1))
done <"$out/cases"
echo "h1-vm-check: $n streams of the real driver byte-identical to the virtual device's, with the same feedback, and decoded to its reconstruction"
# What the feedback says of long-term references: the IDR picture is marked,
# and the DPB of every later frame holds it (by its timestamp, 0).
grep -q '"index":0,"type":"I".*"long_term":true,"dpb":\[0\]' "$out/ltr-layers.dev.jsonl" ||
	fail "ltr-layers: the feedback of the IDR picture does not mark it long-term"
if grep '"index":[1-9]' "$out/ltr-layers.dev.jsonl" | grep -vq '"dpb":\[0[],]'; then
	fail "ltr-layers: a frame's feedback DPB lacks the long-term IDR picture"
fi
echo "h1-vm-check: feedback: the IDR picture marked long-term and held in every later frame's DPB (ltr-layers)"
# The cut coded again by the real driver: an IDR picture in place of the P
# picture, after three hardware runs, and a P picture coded twice.
grep -q '"index":6,"type":"I".*"passes":3' "$out/low-delay.dev.jsonl" ||
	fail "low-delay: the cut was not coded again as an IDR picture"
grep -q '"passes":2' "$out/low-delay.dev.jsonl" ||
	fail "low-delay: no P picture was coded again at a coarser QP"
"$here/target/release/h264enc" verify "$out/low-delay.dev.h264" --hrd >"$out/low-delay.hrd.log" 2>&1 ||
	{ cat "$out/low-delay.hrd.log" >&2; fail "low-delay: the stream breaks its HRD"; }
echo "h1-vm-check: low delay: the real driver coded the cut again as an IDR picture (3 runs) and a P picture at a coarser QP (2 runs); HRD kept"
# Where no coding fits, the picture the core writes as skipped, its
# reconstruction copied by the driver (the pictures after it predict from it).
grep -q '"index":6,"type":"P".*"skipped":true' "$out/skip.dev.jsonl" ||
	fail "skip: the cut that no coding fits was not skipped"
"$here/target/release/h264enc" verify "$out/skip.dev.h264" --hrd >"$out/skip.hrd.log" 2>&1 ||
	{ cat "$out/skip.hrd.log" >&2; fail "skip: the stream breaks its HRD"; }
echo "h1-vm-check: skip: the real driver sent the cut that no coding fits as a skipped picture; HRD kept"

# The faults: each reason in the feedback, each frame queued again, and the
# stream is the fault-free one.
[ "$(cat "$out/faults.status")" = 0 ] || { cat "$out/faults.log" >&2; fail "the fault run failed"; }
for why in ETIMEDOUT ENOSPC EIO EPROTO; do
	grep -q "failed on the device: $why" "$out/faults.log" ||
		{ cat "$out/faults.log" >&2; fail "no frame failed with $why"; }
done
retried=$(grep -c "queued again" "$out/faults.log" || true)
[ "$retried" = 5 ] || { cat "$out/faults.log" >&2; fail "$retried frames queued again, not 5"; }
# shellcheck disable=SC2086 # the options are words
(cd "$out" && "$here/target/release/h264enc" encode -q $fault_case -o faults.virt.h264 \
	--recon faults.virt.yuv >faults.virt.log 2>&1) || fail "the virtual device failed the fault case"
cmp -s "$out/faults.dev.h264" "$out/faults.virt.h264" ||
	fail "the stream with faults and retries differs from the virtual device's"
"$here/target/release/h264enc" verify "$out/faults.dev.h264" --recon "$out/faults.virt.yuv" >/dev/null ||
	fail "the stream with faults does not decode to the reconstruction"
timeouts=$(grep -c "frame processing timed out" "$out/dmesg" || true)
[ "$timeouts" = 1 ] || fail "the watchdog fired $timeouts times, not once"
echo "h1-vm-check: faults: 5 frames failed (a hang the watchdog caught, a full stream buffer, a bus error, a corrupt slice header, a wrong QP sum: ETIMEDOUT, ENOSPC, EIO, EPROTO x2 in their feedback), queued again, the stream byte-identical to the fault-free one"

# Load.
load_status() { awk -v n="$1" '$1 == n { print $2 }' "$out/load.status"; }
virt() { # NAME INPUT OPTIONS...: the virtual device's stream and reconstruction
	(cd "$out" && "$here/target/release/h264enc" encode -q "$2" "${@:3}" -o "$1.virt.h264" \
		--recon "$1.virt.yuv" >"$1.virt.log" 2>&1) || fail "$1: the virtual device failed"
}
same() { # NAME: the device's stream is the virtual device's, and decodes to its reconstruction
	cmp -s "$out/$1.dev.h264" "$out/$1.virt.h264" || fail "$1: the real driver's stream differs"
	"$here/target/release/h264enc" verify "$out/$1.dev.h264" --recon "$out/$1.virt.yuv" >/dev/null ||
		fail "$1: ffmpeg's decode is not the reconstruction"
}
for n in two-a two-b after-kill long; do
	[ "$(load_status $n)" = 0 ] || { cat "$out/$n.log" >&2; fail "load: $n exited $(load_status $n)"; }
done
[ "$(load_status killed)" = 137 ] || fail "load: the encoder to kill ended by itself ($(load_status killed))"
[ "$(load_status open-close)" = 100 ] || fail "load: only $(load_status open-close) of 100 opens"
[ "$(load_status encode-loop)" = 10 ] || fail "load: only $(load_status encode-loop) of 10 encodes"
virt two-a cif.y4m --qp 30
virt two-b qcif.y4m --bitrate 200k
virt after-kill cif.y4m --qp 30
virt long long.y4m --bitrate 100k
for n in two-a two-b after-kill long; do same $n; done
echo "h1-vm-check: load: two encoders at once, 100 opens, 10 short encodes, SIGKILL in mid-stream, 1000 frames: every stream byte-identical"

# The element.
[ "$(cat "$out/gst.status")" = 0 ] || { cat "$out/gst.log" >&2; fail "gst-launch-1.0 on the device failed"; }
# shellcheck disable=SC2046 # the pipeline is words
(cd "$out" && GST_PLUGIN_PATH=$here/target/release gst-launch-1.0 -q \
	$(echo "$gst_pipeline" | sed 's/DEVICE/device=virtual/; s/OUT/gst.virt.h264/' | tr '\n\t' '  ') \
	>gst.virt.log 2>&1) || { cat "$out/gst.virt.log" >&2; fail "gst-launch-1.0 on the virtual device failed"; }
cmp -s "$out/gst.dev.h264" "$out/gst.virt.h264" || fail "the element's stream on the device differs from the virtual device's"
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
	-of csv=p=0 "$out/gst.dev.h264")
[ "$frames" = 15 ] || fail "the element's stream decodes to ${frames:-no} frames, not 15"
echo "h1-vm-check: gst-launch-1.0 with v4l2slh264enc on the device, from YUY2: 15 frames decoded, the virtual device's stream"
[ "$(cat "$out/gst-events.status")" = 0 ] && grep -q "^test result: ok. 5 passed" "$out/gst-events.log" ||
	{ cat "$out/gst-events.log" >&2; fail "the element's event tests failed on the device"; }
echo "h1-vm-check: the element on the device: forced key units down- and upstream, a bit rate change while playing, a flush, new caps, 1, 2 and 4 frames in flight (5 appsrc tests pass)"

# h1-vm.sh exits 3 on any unreferenced object: this is the figure, and the
# proof that the scans ran.
[ -f "$out/kmemleak" ] || fail "the guest took no kmemleak scan"
leaks=$(grep -c "unreferenced object" "$out/kmemleak" || true)
echo "h1-vm-check: kmemleak: $leaks unreferenced objects after everything (two scans, all files closed)"
ok=1
