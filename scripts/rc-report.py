#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rate-control report: h264enc (virtual H1) beside x264 in one run.

For each clip, bit rate and mode (CBR, CBR with filler, VBR at a 1.5x peak):
bit rate error measured after the first second, HRD violations (both streams
checked by `h264enc verify --hrd`, the project's Annex C checker, against the
HRD each stream signals), PSNR-Y, and QP stability (mean absolute QP change
between consecutive P frames; x264's per-frame QPs come from --verbose).
The last lines check the first bar of the rate control: error within 2 % on
steady clips and 5 % across scene cuts, zero HRD violations.

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
            for mode in ["cbr", "cbr+filler", "vbr"]:
                b = kbps * 1000
                ours = os.path.join(tmp, f"{clip}-{kbps}-{mode}.h264")
                stats = ours + ".jsonl"
                cmd = [H264ENC, "encode", src, "--size", a.size, "--fps", str(fps), "-o", ours, "--bitrate", f"{kbps}k",
                       "--cpb-size", "1000", "--stats", stats, "-q"]
                peak = kbps * 3 // 2 if mode == "vbr" else kbps
                if mode == "cbr+filler":
                    cmd.append("--filler")
                if mode == "vbr":
                    cmd += ["--rc", "vbr", "--max-bitrate", f"{peak}k"]
                run(cmd)
                frames = [json.loads(l) for l in open(stats)]
                ours_qp = [(f["type"], f["qp"]) for f in frames]
                x264 = os.path.join(tmp, f"{clip}-{kbps}-{mode}-x264.h264")
                xcmd = ["x264", "--verbose", "--input-res", a.size, "--fps", str(fps), "--ref", "1", "--bframes", "0",
                        "--preset", "veryfast", "--bitrate", str(kbps), "--vbv-maxrate", str(peak),
                        "--vbv-bufsize", str(peak), "--nal-hrd", "cbr" if mode == "cbr+filler" else "vbr",
                        "-o", x264, src]
                x264_qp = x264_frame_qps(run(xcmd).stderr)
                for name, path, qp in [("h264enc", ours, ours_qp), ("x264 veryfast", x264, x264_qp)]:
                    r = rate_after_first_second(frame_sizes(path), fps)
                    rows.append((clip, kbps, mode, name, (r - b) / b * 100, hrd(path), psnr(path, src, w, h),
                                 qp_steps(qp)))
    print(f"Rate control, {a.frames} frames {a.size} at {fps} fps, CPB 1 s at the peak rate, one run on this machine")
    print("| clip | kb/s | mode | encoder | rate error after 1 s | HRD | PSNR-Y dB | mean abs dQP P-P |")
    print("|---|---|---|---|---|---|---|---|")
    for c, k, m, n, err, hr, p, dq in rows:
        print(f"| {c} | {k} | {m} | {n} | {err:+.2f} % | {hr} | {p:.2f} | {dq:.2f} |")
    failed = 0
    for c, k, m, n, err, hr, p, dq in rows:
        if n != "h264enc":
            continue
        # VBR aims at the average from below: only overshoot counts against it.
        bound = 5.0 if c == "scenecut" else 2.0
        e = max(err, 0.0) if m == "vbr" else abs(err)
        if e > bound or hr != "ok":
            failed += 1
            print(f"bar missed: {c} {k} kb/s {m}: error {err:+.2f} % (bound {bound} %), HRD {hr}")
    print(f"first bar (2 % steady, 5 % scene cuts, no HRD violation): {'met' if not failed else f'{failed} missed'}")
    return 1 if failed else 0


def x264_frame_qps(log):
    """(type, QP) per frame from x264 --verbose ("frame=  N QP=xx.xx NAL=n Slice:P ...")."""
    out = []
    for line in log.splitlines():
        if "frame=" in line and "QP=" in line and "Slice:" in line:
            qp = float(line.split("QP=")[1].split()[0])
            out.append((line.split("Slice:")[1].split()[0], qp))
    return out


def qp_steps(frames):
    steps = [abs(frames[i][1] - frames[i - 1][1]) for i in range(1, len(frames))
             if frames[i][0] == "P" and frames[i - 1][0] == "P"]
    return sum(steps) / len(steps) if steps else float("nan")


if __name__ == "__main__":
    sys.exit(main())
