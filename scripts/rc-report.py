#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rate-control report: h264enc (virtual H1) beside x264 in one run.

For each clip and bit rate: bit rate error measured after the first second,
HRD violations (both streams checked by `h264enc verify --hrd`, the project's
Annex C checker, against the HRD each stream signals), PSNR-Y, and the QP
stability of h264enc (mean absolute QP change between P frames).

usage: scripts/rc-report.py [--frames N] [--size WxH]
"""
import argparse, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H264ENC = os.path.join(HERE, "target/release/h264enc")
CLIP = os.path.join(HERE, "tools/testing/content/make-clip.sh")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def frame_sizes(path):
    out = run(["ffprobe", "-v", "error", "-f", "h264", "-show_entries", "packet=size", "-of", "csv=p=0", path]).stdout
    return [int(x) for x in out.split() if x.strip()]


def rate_after_first_second(sizes, fps):
    s = sizes[int(fps):] or sizes
    return sum(s) * 8 * fps / len(s)


def psnr(stream, src, w, h):
    # -r on both inputs: otherwise the filter pairs frames by mismatched timestamps.
    out = run(["ffmpeg", "-nostdin", "-v", "info", "-r", "30", "-f", "h264", "-i", stream, "-r", "30", "-f", "rawvideo",
               "-pix_fmt", "yuv420p", "-s", f"{w}x{h}", "-i", src, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"]).stderr
    for line in out.splitlines():
        if "PSNR y:" in line:
            return float(line.split("PSNR y:")[1].split()[0])
    return float("nan")


def hrd(stream):
    r = subprocess.run([H264ENC, "verify", stream, "--hrd"], capture_output=True, text=True)
    if r.returncode == 0:
        return "ok"
    msg = r.stderr.strip()
    return "VIOLATED" if "violated" in msg else "n/a (" + msg.split(":")[-1].strip()[:40] + ")"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--size", default="352x288")
    a = ap.parse_args()
    w, h = (int(x) for x in a.size.split("x"))
    fps = 30
    rows = []
    tmp = tempfile.mkdtemp(prefix="rc-report-")
    for clip in ["meadow", "carphone", "scenecut"]:
        src = run([CLIP, clip, a.size, str(a.frames)]).stdout.strip()
        for kbps in [300, 800]:
            for mode in ["cbr", "cbr+filler"]:
                b = kbps * 1000
                ours = os.path.join(tmp, f"{clip}-{kbps}-{mode}.h264")
                stats = ours + ".jsonl"
                cmd = [H264ENC, "encode", src, "--size", a.size, "--fps", str(fps), "-o", ours, "--bitrate", f"{kbps}k",
                       "--cpb-size", "1000", "--stats", stats, "-q"]
                if mode == "cbr+filler":
                    cmd.append("--filler")
                run(cmd)
                qps = [json.loads(l)["qp"] for l in open(stats)]
                types = [json.loads(l)["type"] for l in open(stats)]
                steps = [abs(qps[i] - qps[i - 1]) for i in range(1, len(qps)) if types[i] == "P" and types[i - 1] == "P"]
                x264 = os.path.join(tmp, f"{clip}-{kbps}-{mode}-x264.h264")
                xcmd = ["x264", "--quiet", "--input-res", a.size, "--fps", str(fps), "--ref", "1", "--bframes", "0",
                        "--preset", "veryfast", "--bitrate", str(kbps), "--vbv-maxrate", str(kbps), "--vbv-bufsize", str(kbps),
                        "-o", x264, src]
                xcmd[1:1] = ["--nal-hrd", "cbr" if mode == "cbr+filler" else "vbr"]
                run(xcmd)
                for name, path in [("h264enc", ours), ("x264 veryfast", x264)]:
                    r = rate_after_first_second(frame_sizes(path), fps)
                    rows.append((clip, kbps, mode, name, (r - b) / b * 100, hrd(path), psnr(path, src, w, h),
                                 sum(steps) / len(steps) if name == "h264enc" and steps else float("nan")))
    print(f"Rate control, {a.frames} frames {a.size} at {fps} fps, CPB 1 s, one run on this machine")
    print("| clip | kb/s | mode | encoder | rate error after 1 s | HRD | PSNR-Y dB | mean |dQP| P-P |")
    print("|---|---|---|---|---|---|---|---|")
    for c, k, m, n, err, hr, p, dq in rows:
        print(f"| {c} | {k} | {m} | {n} | {err:+.2f} % | {hr} | {p:.2f} | {'' if dq != dq else f'{dq:.2f}'} |")


if __name__ == "__main__":
    sys.exit(main())
