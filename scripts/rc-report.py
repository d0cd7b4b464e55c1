#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rate-control report: h264enc (virtual H1) beside x264 in one run.

For each clip, bit rate and mode (CBR, CBR with filler, VBR at a 1.5x peak):
bit rate error measured after the first second, HRD violations (both streams
checked by `h264enc verify --hrd`, the project's Annex C checker, against the
HRD each stream signals), PSNR-Y, and QP stability (mean absolute QP change
between consecutive P frames; x264's per-frame QPs come from --verbose).
The last lines check the first bar of the rate control: error within 2 % on
steady clips and 5 % across scene cuts, zero HRD violations, the QP settled
within 15 pictures of a cut.

With --low-delay, instead: CBR with filler at CPBs of 100, 200 and 250 ms
across scene cuts (a CIF clip with a cut every 30 frames, the same at 720p
and 2 Mb/s, and the CIF camera clip), h264enc beside x264 veryfast with
`--nal-hrd cbr` and the same buffer: rate error, HRD violations, PSNR-Y,
and which of h264enc's means fired (frames coded again at a coarser QP, P
pictures coded again as IDR pictures at a cut, pictures skipped). Its bar: no HRD violation
and an error within 1 %.

usage: scripts/rc-report.py [--frames N] [--size WxH] [--low-delay]
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


def violations(stream):
    """HRD violations `h264enc verify --hrd` finds (Annex C), or None without an HRD."""
    r = subprocess.run([H264ENC, "verify", stream, "--hrd"], capture_output=True, text=True)
    if r.returncode == 0:
        return 0
    msg = r.stderr
    if "violated" not in msg:
        return None
    under = int(msg.split("underflow at ")[1].split()[0])
    over = int(msg.split("overflow at ")[1].split()[0])
    return under + over


def low_delay(frames, profile):
    fps = 30
    rows = []
    tmp = tempfile.mkdtemp(prefix="rc-low-delay-")
    for clip, size, kbps in [("scenecut", "352x288", 300), ("carphone", "352x288", 300),
                             ("scenecut", "1280x720", 2000)]:
        w, h = (int(x) for x in size.split("x"))
        src = run([CLIP, clip, size, str(frames)]).stdout.strip()
        for ms in [100, 200, 250]:
            ours = os.path.join(tmp, f"{clip}-{size}-{ms}.h264")
            stats = ours + ".jsonl"
            run([H264ENC, "encode", src, "--size", size, "--fps", str(fps), "-o", ours, "--bitrate", f"{kbps}k",
                 "--cpb-size", str(ms), "--filler", "--profile", profile, "--stats", stats, "-q"])
            fr = [json.loads(l) for l in open(stats)]
            # A P picture coded again as an IDR picture is an I picture with
            # more than one coding past the first picture (the CLI's GOP is
            # one IDR picture at the start).
            skipped = sum(1 for f in fr if f.get("skipped"))
            again = sum(1 for f in fr if f["passes"] > 1 and not f.get("skipped"))
            as_idr = sum(1 for f in fr if f["passes"] > 1 and f["type"] == "I" and f["index"] > 0)
            fired = f"{again} ({as_idr} P as IDR)" + (f", {skipped} skipped" if skipped else "")
            x264 = os.path.join(tmp, f"{clip}-{size}-{ms}-x264.h264")
            run(["x264", "--quiet", "--threads", "1", "--preset", "veryfast", "--ref", "1", "--bframes", "0",
                 "--input-res", size, "--fps", str(fps),
                 "--bitrate", str(kbps), "--vbv-maxrate", str(kbps), "--vbv-bufsize", str(kbps * ms // 1000),
                 "--nal-hrd", "cbr", "-o", x264, src])
            for name, path, fired in [("h264enc", ours, fired), ("x264 veryfast", x264, "")]:
                r = rate_after_first_second(frame_sizes(path), fps)
                rows.append((f"{clip} {size}", kbps, ms, name, (r - kbps * 1000) / (kbps * 10),
                             violations(path), psnr(path, src, w, h), fired))
    print(f"Low-delay CBR with filler, {frames} frames at {fps} fps, one run on this machine")
    print("| clip | kb/s | CPB ms | encoder | rate error after 1 s | HRD violations | PSNR-Y dB | coded again |")
    print("|---|---|---|---|---|---|---|---|")
    for c, k, ms, n, err, v, p, fired in rows:
        print(f"| {c} | {k} | {ms} | {n} | {err:+.2f} % | {v} | {p:.2f} | {fired} |")
    missed = 0
    for i in range(0, len(rows), 2):
        c, k, ms, n, err, v, p, _ = rows[i]
        xp = rows[i + 1][6]
        if v != 0 or abs(err) > 1.0:
            missed += 1
            print(f"bar missed: {c} {ms} ms: error {err:+.2f} %, {v} HRD violations")
        print(f"PSNR-Y against x264: {c} {ms} ms: {p - xp:+.2f} dB")
    print(f"low-delay bar (no HRD violation, error within 1 %): {'met' if not missed else f'{missed} missed'}")
    return 1 if missed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--size", default="352x288")
    ap.add_argument("--low-delay", action="store_true")
    ap.add_argument("--profile", default="high", choices=["baseline", "main", "high"],
                    help="h264enc's profile (x264 veryfast codes High)")
    a = ap.parse_args()
    if a.low_delay:
        return low_delay(a.frames, a.profile)
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
                       "--cpb-size", "1000", "--profile", a.profile, "--stats", stats, "-q"]
                peak = kbps * 3 // 2 if mode == "vbr" else kbps
                if mode == "cbr+filler":
                    cmd.append("--filler")
                if mode == "vbr":
                    cmd += ["--rc", "vbr", "--max-bitrate", f"{peak}k"]
                run(cmd)
                frames = [json.loads(l) for l in open(stats)]
                ours_qp = [(f["type"], f["qp"]) for f in frames]
                x264 = os.path.join(tmp, f"{clip}-{kbps}-{mode}-x264.h264")
                xcmd = ["x264", "--verbose", "--threads", "1", "--input-res", a.size, "--fps", str(fps), "--ref", "1",
                        "--bframes", "0",
                        "--preset", "veryfast", "--bitrate", str(kbps), "--vbv-maxrate", str(peak),
                        "--vbv-bufsize", str(peak), "--nal-hrd", "cbr" if mode == "cbr+filler" else "vbr",
                        "-o", x264, src]
                x264_qp = x264_frame_qps(run(xcmd).stderr)
                for name, path, qp in [("h264enc", ours, ours_qp), ("x264 veryfast", x264, x264_qp)]:
                    r = rate_after_first_second(frame_sizes(path), fps)
                    cut = 30 if clip == "scenecut" else 0
                    rows.append((clip, kbps, mode, name, (r - b) / b * 100, hrd(path), psnr(path, src, w, h),
                                 qp_steps(qp, cut), settle(qp, cut) if cut else None))
    print(f"Rate control, {a.frames} frames {a.size} at {fps} fps, CPB 1 s at the peak rate, one run on this machine")
    print("(mean abs dQP: between consecutive P pictures, the three pictures from each cut left out;"
          " settle: most pictures after a cut before the QP stays within 2 of the scene's steady QP)")
    print("| clip | kb/s | mode | encoder | rate error after 1 s | HRD | PSNR-Y dB | mean abs dQP P-P | settle |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c, k, m, n, err, hr, p, dq, st in rows:
        print(f"| {c} | {k} | {m} | {n} | {err:+.2f} % | {hr} | {p:.2f} | {dq:.2f} | {'' if st is None else st} |")
    steadier = sum(1 for i in range(0, len(rows), 2) if rows[i][7] <= rows[i + 1][7])
    print(f"QP steadier than or as steady as x264's: {steadier} of {len(rows) // 2} runs")
    failed = 0
    for c, k, m, n, err, hr, p, dq, st in rows:
        if n != "h264enc":
            continue
        # VBR aims at the average from below: only overshoot counts against it.
        bound = 5.0 if c == "scenecut" else 2.0
        e = max(err, 0.0) if m == "vbr" else abs(err)
        if e > bound or hr != "ok":
            failed += 1
            print(f"bar missed: {c} {k} kb/s {m}: error {err:+.2f} % (bound {bound} %), HRD {hr}")
        if st is not None and st > 15:
            failed += 1
            print(f"bar missed: {c} {k} kb/s {m}: the QP settles {st} pictures after a cut (bound 15)")
    print("first bar (2 % steady, 5 % scene cuts, no HRD violation, the QP settled 15 pictures after a cut): "
          f"{'met' if not failed else f'{failed} missed'}")
    return 1 if failed else 0


def x264_frame_qps(log):
    """(type, QP) per frame from x264 --verbose ("frame=  N QP=xx.xx NAL=n Slice:P ...")."""
    out = []
    for line in log.splitlines():
        if "frame=" in line and "QP=" in line and "Slice:" in line:
            qp = float(line.split("QP=")[1].split()[0])
            out.append((line.split("Slice:")[1].split()[0], qp))
    return out


def qp_steps(frames, cut=0):
    """Mean |QP change| between consecutive P pictures; with `cut`, a scene
    cut every `cut` frames, leaving out the three pictures from each cut."""
    steps = [abs(frames[i][1] - frames[i - 1][1]) for i in range(1, len(frames))
             if frames[i][0] == "P" and frames[i - 1][0] == "P" and not (cut and i % cut in (0, 1, 2))]
    return sum(steps) / len(steps) if steps else float("nan")


def settle(frames, cut):
    """Most pictures after a cut (every `cut` frames) before the QP stays
    within 2 of the scene's steady QP (the mean of its last 15 pictures)."""
    worst = 0
    for c in range(cut, len(frames) - cut + 1, cut):
        q = [f[1] for f in frames[c:c + cut]]
        steady = sum(q[-15:]) / 15
        worst = max(worst, next(k for k in range(len(q) + 1) if all(abs(v - steady) <= 2 for v in q[k:])))
    return worst


if __name__ == "__main__":
    sys.exit(main())
