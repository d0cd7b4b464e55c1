#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Frames in flight, measured: h264enc and the element at 720p.

usage: bench-pipeline.py [--clip garden] [--frames 120] [--repeat 3] [--bitrate 3M]

Encodes the same 720p clip (tools/testing/content/make-clip.sh) through the
virtual H1 with 1 and 2 frames in flight:
  - `h264enc encode` from the raw file: its wall speed, and the speed of
    the encoder alone (the device's time per frame, measured on its thread);
  - `gst-launch-1.0 filesrc ! rawvideoparse ! v4l2slh264enc ! fakesink`:
    its wall speed, from the time gst-launch reports.
Prints each speed (the best of --repeat runs, the runs taking turns: noise
only slows a run down), the element's speed over the CLI's encoder-alone
speed. (The latency the element reports, in-flight - 1 frames, is checked
by its tests.) Run after scripts/setup.sh (release build).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
h264enc = os.path.join(here, "target", "release", "h264enc")
W, H = 1280, 720


def clip(name, frames):
    out = subprocess.run(
        [os.path.join(here, "tools/testing/content/make-clip.sh"), name, f"{W}x{H}", str(frames), "yuv"],
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def cli(path, frames, bitrate, in_flight):
    out = os.path.join(tempfile.gettempdir(), f"bench-pipeline-{os.getpid()}.h264")
    r = subprocess.run(
        [h264enc, "encode", path, "--size", f"{W}x{H}", "--fps", "30", "-o", out,
         "--bitrate", bitrate, "--in-flight", str(in_flight)],
        check=True,
        capture_output=True,
        text=True,
    )
    os.remove(out)
    m = re.search(r"speed\s+([\d.]+) frames/s .*the encoder alone ([\d.]+) frames/s", r.stdout)
    if not m:
        sys.exit(f"bench-pipeline: no speed in h264enc's summary:\n{r.stdout}")
    return float(m.group(1)), float(m.group(2))


def element(path, frames, bitrate, in_flight):
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(here, "target", "release"))
    pipeline = (
        f"filesrc location={path} ! rawvideoparse width={W} height={H} format=i420 framerate=30/1 "
        f"! v4l2slh264enc rate-control=cbr bitrate={bitrate} in-flight={in_flight} ! fakesink sync=false"
    )
    r = subprocess.run(
        ["gst-launch-1.0", "-q"] + pipeline.split(),
        env=env,
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        sys.exit(f"bench-pipeline: gst-launch-1.0 failed:\n{r.stderr}")
    return r


def timed(f, *a):
    import time

    t = time.monotonic()
    f(*a)
    return time.monotonic() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clip", default="garden")
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bitrate", default="3M")
    a = ap.parse_args()
    bitrate = str(int(float(a.bitrate[:-1]) * 1e6)) if a.bitrate.endswith("M") else a.bitrate
    path = clip(a.clip, a.frames)
    # gst-launch's start-up (registry, plugin loading) and one frame: the
    # element's speed is that of the other frames.
    startup = min(timed(element, clip(a.clip, 1), 1, bitrate, 2) for _ in range(a.repeat))
    best = {}
    for _ in range(a.repeat):
        for n in (1, 2):
            wall, alone = cli(path, a.frames, bitrate, n)
            b = best.setdefault(("cli", n), [0.0, 0.0])
            b[0], b[1] = max(b[0], wall), max(b[1], alone)
            t = timed(element, path, a.frames, bitrate, n) - startup
            e = best.setdefault(("element", n), [0.0])
            e[0] = max(e[0], (a.frames - 1) / max(t, 1e-9))
    print(f"{a.clip} {W}x{H}, {a.frames} frames, cbr {bitrate} b/s, best of {a.repeat}")
    print("| in flight | h264enc wall fps | h264enc encoder alone fps | element fps | element / encoder alone |")
    print("|---|---|---|---|---|")
    for n in (1, 2):
        wall, alone = best[("cli", n)]
        el = best[("element", n)][0]
        print(f"| {n} | {wall:.1f} | {alone:.1f} | {el:.1f} | {el / alone:.2f} |")


if __name__ == "__main__":
    main()
