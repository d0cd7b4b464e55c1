#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Speed and quality of the software H1 beside x264 and OpenH264, in one run.

Each encoder codes the same 720p clips at four constant QPs, single thread:
  h264enc        the whole stack (driver, core, software H1), as a user runs it,
                 with --threads 1; its time is that of the device's encode calls,
                 as OpenH264's is that of its encode calls (reading and writing
                 files excluded); and with one thread per CPU (--threads 0,
                 "h264enc threads"), whose stream must be the same bytes
  x264           Debian's build (with its assembly): --preset ultrafast and
                 veryfast, --ref 1 --bframes 0, deblocking on, --tune psnr,
                 --threads 1; veryfast both with its own profile (high: CABAC,
                 8x8 transform) and --profile baseline; and veryfast with its
                 default threads ("x264 veryfast threads")
  openh264       Debian's libopenh264 (2.3.1, with its assembly) as its users
                 get it, GStreamer's openh264enc: complexity=medium, one thread
                 (multi-thread=1), adaptive quantization and background
                 detection off (tuned for PSNR, as x264 is), rate-control=bitrate
                 at the rate h264enc took at that QP (in its rate-control=off
                 mode openh264enc codes QP 26 whatever qp-min and qp-max say),
                 which costs it some PSNR against a constant QP; its speed is the
                 pipeline's wall time less that of the same pipeline without
                 the encoder
  openh264 crate the `openh264` crate (OpenH264 2.7.0 built from source as
                 plain C, without nasm: 2 to 3 times slower than Debian's),
                 baseline, rate control off at the QP, one thread
PSNR-Y is measured the same way for all (ffmpeg psnr filter against the
source); speed is frames per second of the encoder alone where it reports it,
the best of --repeat encodes per point, the encoders taking turns (this
machine's noise only slows runs down, and then all encoders alike).
The summary gives, against each other encoder, the ratio of speeds and the
Bjontegaard deltas over the common range (piecewise-linear curves in
log-rate): BD-rate (negative = h264enc needs fewer bits for the same PSNR)
and BD-PSNR (positive = h264enc is better at the same rate).

usage: scripts/bench-h1.py [--frames N] [--clips garden,storm] [--qps 22,27,32,37]
       [--size 1280x720] [--profile baseline] [--encoders openh264,"x264 ultrafast"] [--repeat 3]
"""
import argparse, math, os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H264ENC = os.path.join(HERE, "target/release/h264enc")
OPENH264 = os.path.join(HERE, "target/release/openh264-encode")
CLIP = os.path.join(HERE, "tools/testing/content/make-clip.sh")
FPS = 30


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


def psnr(stream, src, size):
    # -r on both inputs: otherwise the filter pairs frames by mismatched timestamps.
    out = run(["ffmpeg", "-nostdin", "-v", "info", "-r", str(FPS), "-f", "h264", "-i", stream, "-r", str(FPS),
               "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-i", src, "-lavfi", "[0:v][1:v]psnr",
               "-f", "null", "-"]).stderr
    m = re.search(r"PSNR y:([0-9.]+)", out)
    return float(m.group(1)) if m else float("nan")


def kbps(path, frames):
    return os.path.getsize(path) * 8 * FPS / frames / 1000


def enc_h264enc_threads(threads):
    def enc(src, size, qp, out, frames, profile, target_kbps):
        cmd = [H264ENC, "encode", src, "--size", size, "--fps", str(FPS), "--qp", str(qp), "--profile", profile,
               "-o", out]
        cmd += ["--threads", str(threads)]
        r = run(cmd)
        return float(re.search(r"the encoder alone ([0-9.]+) frames/s", r.stdout).group(1))
    return enc


enc_h264enc = enc_h264enc_threads(1)


def enc_x264(preset, extra):
    def enc(src, size, qp, out, frames, profile, target_kbps):
        cmd = ["x264", "--preset", preset, "--tune", "psnr", "--ref", "1", "--bframes", "0",
               "--deblock", "0:0", "--qp", str(qp), "--input-res", size, "--fps", str(FPS), "-o", out] + extra + [src]
        if "--threads" not in extra:
            cmd += ["--threads", "1"]
        r = run(cmd)
        return float(re.search(r"encoded \d+ frames, ([0-9.]+) fps", r.stderr).group(1))
    return enc


def gst_seconds(pipeline):
    t = time.monotonic()
    run(["gst-launch-1.0", "-q"] + pipeline)
    return time.monotonic() - t


def enc_openh264_debian(src, size, qp, out, frames, profile, target_kbps):
    w, h = size.split("x")
    raw = ["filesrc", f"location={src}", "!", "rawvideoparse", f"width={w}", f"height={h}", "format=i420",
           f"framerate={FPS}/1", "!"]
    # Adaptive quantization and background detection trade PSNR for what
    # the eye sees, as x264's --tune psnr turns its own off: off here too.
    enc = ["openh264enc", "multi-thread=1", "complexity=medium", "rate-control=bitrate",
           "adaptive-quantization=false", "background-detection=false",
           f"bitrate={int(target_kbps * 1000)}", "gop-size=1000", "!", "filesink", f"location={out}"]
    coded = gst_seconds(raw + enc)
    null = gst_seconds(raw + ["fakesink"])
    return frames / max(coded - null, 1e-3)


def enc_openh264(src, size, qp, out, frames, profile, target_kbps):
    r = run([OPENH264, src, size, str(FPS), "--qp", str(qp), out])
    m = re.search(r"frames=(\d+) seconds=([0-9.]+)", r.stdout)
    return int(m.group(1)) / max(float(m.group(2)), 1e-9)


def interp(xs, ys, x):
    """Piecewise-linear y(x) over sorted xs."""
    for i in range(len(xs) - 1):
        if xs[i] <= x <= xs[i + 1]:
            t = (x - xs[i]) / (xs[i + 1] - xs[i]) if xs[i + 1] != xs[i] else 0
            return ys[i] + t * (ys[i + 1] - ys[i])
    return None


def bd(curve_a, curve_b, swap):
    """Mean difference b - a of y over the common x range; curves are [(x, y)] sorted by x."""
    a, b = sorted(curve_a), sorted(curve_b)
    lo, hi = max(a[0][0], b[0][0]), min(a[-1][0], b[-1][0])
    if hi <= lo:
        return float("nan")
    n, total = 200, 0.0
    for i in range(n + 1):
        x = lo + (hi - lo) * i / n
        ya = interp([p[0] for p in a], [p[1] for p in a], x)
        yb = interp([p[0] for p in b], [p[1] for p in b], x)
        total += (yb - ya) * (0.5 if i in (0, n) else 1)
    return total / n


def bd_rate(ours, theirs):
    """BD-rate of ours against theirs, percent: curves of (PSNR, log10 rate)."""
    d = bd([(p, math.log10(r)) for r, p in theirs], [(p, math.log10(r)) for r, p in ours], True)
    return (10 ** d - 1) * 100


def bd_psnr(ours, theirs):
    d = bd([(math.log10(r), p) for r, p in theirs], [(math.log10(r), p) for r, p in ours], False)
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--clips", default="garden,storm")
    ap.add_argument("--qps", default="22,27,32,37")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--profile", default="baseline")
    ap.add_argument("--encoders", default="all", help="comma-separated names (h264enc first), or all")
    ap.add_argument("--repeat", type=int, default=3,
                    help="encodes per point, one after another for every encoder; the fastest counts "
                         "(the machine's noise only ever slows a run down)")
    a = ap.parse_args()
    qps = [int(q) for q in a.qps.split(",")]
    encoders = [
        ("h264enc", enc_h264enc),
        ("h264enc threads", enc_h264enc_threads(0)),
        ("openh264", enc_openh264_debian),
        ("openh264 crate", enc_openh264),
        ("x264 ultrafast", enc_x264("ultrafast", [])),
        ("x264 veryfast baseline", enc_x264("veryfast", ["--profile", "baseline"])),
        ("x264 veryfast", enc_x264("veryfast", [])),
        ("x264 veryfast threads", enc_x264("veryfast", ["--threads", "auto"])),
    ]
    if a.encoders != "all":
        keep = a.encoders.split(",")
        encoders = [e for e in encoders if e[0] in keep or e[0] == "h264enc"]
    tmp = tempfile.mkdtemp(prefix="bench-h1-")
    results = {}  # (clip, encoder) -> [(kbps, psnr, fps)]
    print(f"Software H1 benchmark: {a.size}, {a.frames} frames per clip at {FPS} fps, QPs {qps}, single thread, "
          f"best of {a.repeat} encodes per point, {time.strftime('%Y-%m-%d %H:%M')}, one run on this machine")
    print("| clip | encoder | QP | kb/s | PSNR-Y dB | fps |")
    print("|---|---|---|---|---|---|")
    for clip in a.clips.split(","):
        src = run([CLIP, clip, a.size, str(a.frames)]).stdout.strip()
        for qp in qps:
            # Encoders take turns, so a slow spell of the machine falls on all of them.
            out = {name: os.path.join(tmp, f"{clip}-{name.replace(' ', '_')}-{qp}.h264") for name, _ in encoders}
            fps = {name: 0.0 for name, _ in encoders}
            for _ in range(a.repeat):
                for name, enc in encoders:
                    # h264enc comes first: the rate it took is the target of
                    # the encoders that take a bit rate.
                    target = kbps(out["h264enc"], a.frames) if os.path.exists(out["h264enc"]) else 0
                    fps[name] = max(fps[name], enc(src, a.size, qp, out[name], a.frames, a.profile, target))
            if "h264enc threads" in out:
                with open(out["h264enc"], "rb") as f1, open(out["h264enc threads"], "rb") as f2:
                    if f1.read() != f2.read():
                        sys.exit(f"{clip} QP {qp}: h264enc's stream differs with threads")
            for name, _ in encoders:
                pt = (kbps(out[name], a.frames), psnr(out[name], src, a.size), fps[name])
                results.setdefault((clip, name), []).append(pt)
                print(f"| {clip} | {name} | {qp} | {pt[0]:.0f} | {pt[1]:.2f} | {pt[2]:.1f} |", flush=True)
    print()
    print("h264enc against each encoder (geometric mean of the speed ratio over all runs; BD over each clip, averaged)")
    print("| encoder | h264enc fps / its fps | BD-rate | BD-PSNR dB |")
    print("|---|---|---|---|")
    summary = {}
    clips = a.clips.split(",")
    for name, _ in encoders[1:]:
        ratios, rates, dbs = [], [], []
        for clip in clips:
            ours, theirs = results[(clip, "h264enc")], results[(clip, name)]
            ratios += [o[2] / t[2] for o, t in zip(ours, theirs)]
            rates.append(bd_rate([(r, p) for r, p, _ in ours], [(r, p) for r, p, _ in theirs]))
            dbs.append(bd_psnr([(r, p) for r, p, _ in ours], [(r, p) for r, p, _ in theirs]))
        speed = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        summary[name] = (speed, sum(rates) / len(rates), sum(dbs) / len(dbs))
        print(f"| {name} | {speed:.2f} | {summary[name][1]:+.1f} % | {summary[name][2]:+.2f} |")
    if "h264enc threads" in summary:
        s = 1.0 / summary["h264enc threads"][0]
        print(f"threads: h264enc with one thread per CPU ({os.cpu_count()}) runs x{s:.2f} as fast as with one "
              f"(goal on 2 CPUs: x1.6)")
    if "openh264" in summary:
        s, r, d = summary["openh264"]
        ok = s >= 1.0 and d >= 0.0
        print(f"first bar (no slower than openh264, no worse PSNR at equal rate): {'met' if ok else 'missed'} "
              f"(speed x{s:.2f}, BD-PSNR {d:+.2f} dB)")
        ok = s >= 1.0 and r <= -15.0
        print(f"speed goal (Debian's OpenH264 speed at complexity=medium, a BD-rate at least 15 % better): "
              f"{'met' if ok else 'missed'} (speed x{s:.2f}, BD-rate {r:+.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
