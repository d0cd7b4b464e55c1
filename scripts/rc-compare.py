#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Rate controllers side by side on the same software H1.

Each controller chooses the QP of every frame of one clip at one bit rate and
CPB; the frames are coded by the same virtual H1 through the same driver, so
only the rate control differs. Ours is the one in the driver (the Rust core:
frame model, HRD, the H1's checkpoint ladder, frames coded again). The others
run as the client of the client-driven path (`h264enc encode
--client-rc-exec`): before each frame h264enc asks this script, as a
coprocess, for the frame's QP, and after it reports the frame's bits. They are
written here from their public descriptions (see
../shared/reference/rc-anchors.md and uapi.md), never in the kernel core:

  pid        the GStreamer stateless encoder proposal's controller
             (gstratecontroller.c): P-only PID on bits per macroblock,
             Kp 0.0001, the QP step bounded, intra frames ignored.
  budget     the table-based CBR of the 2026 VC8000E series
             (v4l2-h264-enc-rc.c): a 25-frame budget, I pictures 6x and P
             pictures 0.8x a frame's share, the QP from the size ratio of the
             last three pictures of the type through step tables (intra +-4,
             inter +-3). The series' tables are not public in the notes: the
             steps here are ours, on the same ratios.
  h1-vendor  the H1 reference software's frame RC (H264RateControl.c):
             a virtual buffer, target = bits per picture - the intra share +
             (virtual - real) / window, an R-Q model bits/MB = a1/Qs + a2/Qs^2
             fitted over the last 10 pictures, QP searched in 0.1 steps and
             moved at most 2 per picture; I QP = (last QP + average P QP) / 2.
  x264-abr   x264's 1-pass ABR with VBV (ratecontrol.c): qscale from the
             blurred complexity ^ (1 - qcomp 0.6) over a rate factor that the
             overflow (bits spent against bits given) corrects, then VBV:
             the predicted size must leave the buffer above half its size;
             the QP moves at most 4 between P pictures (--qpstep 4). No
             lookahead: the complexity is the last P picture's bits x qscale.

For each it prints the bit-rate error after the first second, the HRD
violations `h264enc verify --hrd` finds (Annex C: ours against the HRD its
stream signals, the clients' streams, which signal none, against a VBR HRD of
the rate and CPB they were given, full at the first removal: `--assume-hrd`),
PSNR-Y and the standard
deviation of the pictures' QP. `--json` prints a list of objects with the keys
algorithm, ours, error_pct, hrd_violations, psnr_y, qp_stddev.

usage: scripts/rc-compare.py CLIP --bitrate B --cpb-ms M [--json]
       [--frames N] [--size WxH]
CLIP is a Y4M file, or the name of a clip of tools/testing/content/make-clip.sh
(made at --size, 352x288, with --frames, 150). B in bits/s (k and M allowed).
"""
import argparse, json, math, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H264ENC = os.environ.get("H264ENC", os.path.join(HERE, "target/release/h264enc"))
MAKE_CLIP = os.path.join(HERE, "tools/testing/content/make-clip.sh")
CONTROLLERS = ["pid", "budget", "h1-vendor", "x264-abr"]


def qstep(qp):
    return 0.625 * 2 ** (qp / 6)


def qp_of(step):
    return 6 * math.log2(max(step, 1e-6) / 0.625)


class Pid:
    """GStreamer's proposal: qp += clamp(-Kp * error, -step, step) on P frames."""

    def __init__(self, c):
        self.c, self.qp = c, 26.0

    def plan(self, intra):
        return round(self.qp)

    def done(self, intra, bits, qp):
        if intra:
            return
        mbs = self.c["mbs"]
        target = self.c["bitrate"] / mbs
        measured = bits * self.c["fps"] / mbs
        step = 4
        self.qp += max(-step, min(step, -0.0001 * (target - measured)))
        self.qp = max(10, min(51, self.qp))


class Budget:
    """The VC8000E series' CBR: a 25-frame budget, per-type QP from size ratios."""

    WINDOW = 25
    # Size ratio (coded / target) thresholds and the QP step each band gives.
    STEPS_INTER = [(0.5, -3), (0.7, -2), (0.9, -1), (1.1, 0), (1.4, 1), (2.0, 2), (math.inf, 3)]
    STEPS_INTRA = [(0.4, -4), (0.6, -3), (0.8, -2), (0.95, -1), (1.05, 0), (1.3, 1), (1.7, 2),
                   (2.5, 3), (math.inf, 4)]

    def __init__(self, c):
        self.c = c
        per_frame = c["bitrate"] / c["fps"]
        # Initial QP from bits per macroblock.
        bpm = per_frame / c["mbs"]
        self.qp = {True: 40 if bpm < 20 else 34 if bpm < 60 else 28 if bpm < 200 else 22}
        self.qp[False] = self.qp[True] + 2
        self.history = {True: [], False: []}
        self.sizes = []

    def target(self, intra):
        per_frame = self.c["bitrate"] / self.c["fps"]
        spent = sum(self.sizes[-self.WINDOW:])
        given = per_frame * min(len(self.sizes), self.WINDOW)
        base = per_frame + (given - spent) / self.WINDOW
        return max(base * (6 if intra else 0.8), per_frame / 8)

    def plan(self, intra):
        self.want = self.target(intra)
        return int(max(10, min(51, self.qp[intra])))

    def done(self, intra, bits, qp):
        self.sizes.append(bits)
        h = self.history[intra]
        h.append(bits / self.want)
        # The last three pictures of the type, the latest weighing most.
        recent = h[-3:]
        weights = [1, 2, 4][-len(recent):]
        ratio = sum(r * w for r, w in zip(recent, weights)) / sum(weights)
        for bound, step in (self.STEPS_INTRA if intra else self.STEPS_INTER):
            if ratio < bound:
                self.qp[intra] = max(10, min(51, self.qp[intra] + step))
                break
        del h[:-3]


class H1Vendor:
    """The H1 reference software's frame RC: virtual buffer and quadratic R-Q model."""

    def __init__(self, c):
        self.c = c
        self.per_pic = c["bitrate"] / c["fps"]
        self.virtual, self.real = 0.0, 0.0
        self.window = max(int(c["fps"]), 1)
        self.samples = []  # (qstep, bits per MB) of the last 10 P pictures
        bpm = self.per_pic / c["mbs"]
        self.qp = 40 if bpm < 20 else 34 if bpm < 60 else 28 if bpm < 200 else 22
        self.p_qps, self.intra_bits = [], 0.0
        self.errors = []

    def model_bits(self, qp):
        if len(self.samples) < 2:
            return None
        # Least squares of bits/MB = a1/Qs + a2/Qs^2.
        s11 = sum(1 / q ** 2 for q, _ in self.samples)
        s12 = sum(1 / q ** 3 for q, _ in self.samples)
        s22 = sum(1 / q ** 4 for q, _ in self.samples)
        y1 = sum(b / q for q, b in self.samples)
        y2 = sum(b / q ** 2 for q, b in self.samples)
        det = s11 * s22 - s12 * s12
        if abs(det) < 1e-30:
            return None
        a1 = (y1 * s22 - y2 * s12) / det
        a2 = (s11 * y2 - s12 * y1) / det
        qs = qstep(qp)
        return a1 / qs + a2 / qs ** 2

    def plan(self, intra):
        self.virtual += self.per_pic
        if intra:
            if self.p_qps:
                self.qp = (self.qp + sum(self.p_qps) / len(self.p_qps)) / 2
            return int(round(max(10, min(51, self.qp))))
        intra_share = self.intra_bits / self.window
        err = sum(self.errors[-4:]) / max(len(self.errors[-4:]), 1)
        target = self.per_pic - intra_share + (self.virtual - self.real) / self.window - err
        target = max(target, 96 + 16 * math.sqrt(self.c["mbs"]))
        want = self.qp
        best = None
        for tenth in range(100, 511):
            qp = tenth / 10
            b = self.model_bits(qp)
            if b is None:
                break
            if b * self.c["mbs"] <= target:
                best = qp
                break
        if best is not None:
            want = best
        self.qp = max(self.qp - 2, min(self.qp + 2, want))
        self.target = target
        return int(round(max(10, min(51, self.qp))))

    def done(self, intra, bits, qp):
        self.real += bits
        if intra:
            self.intra_bits = bits - self.per_pic
            return
        self.p_qps = (self.p_qps + [qp])[-self.window:]
        self.samples = (self.samples + [(qstep(qp), bits / self.c["mbs"])])[-10:]
        self.errors.append(bits - getattr(self, "target", bits))


class X264Abr:
    """x264's 1-pass ABR with VBV (rate_estimate_qscale, clip_qscale), no lookahead."""

    QCOMP = 0.6

    def __init__(self, c):
        self.c = c
        self.per_pic = c["bitrate"] / c["fps"]
        self.cplx_sum, self.cplx_count = 0.0, 0.0
        self.cplxr_sum, self.wanted_window = 0.0, 0.0
        self.wanted, self.spent = 0.0, 0.0
        self.buffer = c["cpb_bits"] * 0.9
        self.complexity = None  # bits x qscale of the last P picture
        self.ip_factor = 1.4
        self.last_p_q = qstep(26)

    def plan(self, intra):
        if self.complexity is None:
            self.rceq = None
            return 26
        # The blurred complexity, and qscale = complexity^(1 - qcomp) / rate_factor.
        self.cplx_sum = self.cplx_sum * 0.5 + self.complexity
        self.cplx_count = self.cplx_count * 0.5 + 1
        self.rceq = (self.cplx_sum / self.cplx_count) ** (1 - self.QCOMP)
        rate_factor = self.wanted_window / self.cplxr_sum if self.cplxr_sum > 0 else self.rceq / qstep(26)
        q = self.rceq / rate_factor
        # The overflow: bits spent ahead of the rate, over a buffer of 2 s of it.
        q *= max(0.5, min(2.0, 1 + (self.spent - self.wanted) / (2 * self.c["bitrate"])))
        if intra:
            q /= self.ip_factor
        else:
            # --qpstep 4: at most 4 QP from the last P picture's.
            q = max(self.last_p_q / 2 ** (4 / 6), min(self.last_p_q * 2 ** (4 / 6), q))
        # VBV: the predicted size must leave the buffer at least half full.
        for _ in range(60):
            size = self.complexity / q * (3 if intra else 1)
            if self.buffer - size + self.per_pic >= self.c["cpb_bits"] * 0.5:
                break
            q *= 1.05
        return int(round(max(10, min(51, qp_of(q)))))

    def done(self, intra, bits, qp):
        q = qstep(qp)
        if not intra:
            self.complexity = bits * q
            self.last_p_q = q
        elif self.complexity is None:
            self.complexity = bits * q / 3
        if self.rceq is not None:
            self.cplxr_sum += bits * q / self.rceq
        self.wanted_window += self.per_pic
        self.wanted += self.per_pic
        self.spent += bits
        self.buffer = min(self.c["cpb_bits"], self.buffer - bits + self.per_pic)


def serve(name):
    """The coprocess: a config line, then per frame a request and a result."""
    c = json.loads(sys.stdin.readline())
    c["mbs"] = ((c["width"] + 15) // 16) * ((c["height"] + 15) // 16)
    ctl = {"pid": Pid, "budget": Budget, "h1-vendor": H1Vendor, "x264-abr": X264Abr}[name](c)
    for line in sys.stdin:
        m = json.loads(line)
        if "intra" in m:
            print(ctl.plan(m["intra"]), flush=True)
        else:
            ctl.done(m["type"] == "I", m["bits"], m["qp"])
    return 0


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


def measure(name, ours, stream, stats, src, fps, hrd):
    frames = [json.loads(l) for l in open(stats)]
    bits = [f["bits"] for f in frames]
    tail = bits[int(fps):] or bits
    rate = sum(tail) * fps / len(tail)
    # Ours signals its HRD; the clients' streams signal none and are held to
    # the rate and buffer they were given, the CPB full at the first removal.
    r = subprocess.run([H264ENC, "verify", stream, "--hrd", "--assume-hrd", hrd], capture_output=True, text=True)
    if r.returncode == 0:
        violations = 0
    else:
        msg = r.stderr
        violations = int(msg.split("underflow at ")[1].split()[0]) + int(msg.split("overflow at ")[1].split()[0])
    out = run(["ffmpeg", "-nostdin", "-v", "info", "-r", "30", "-f", "h264", "-i", stream, "-r", "30", "-i", src,
               "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"]).stderr
    psnr = float("nan")
    for line in out.splitlines():
        if "PSNR y:" in line:
            psnr = float(line.split("PSNR y:")[1].split()[0])
    qps = [f["qp"] for f in frames]
    mean = sum(qps) / len(qps)
    sd = math.sqrt(sum((q - mean) ** 2 for q in qps) / len(qps))
    return {"algorithm": name, "ours": ours, "rate": rate, "psnr_y": psnr, "hrd_violations": violations,
            "qp_stddev": sd}


def rate_arg(s):
    mult = {"k": 1000, "M": 1000000}.get(s[-1], 1)
    return int(float(s.rstrip("kM")) * mult)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        return serve(sys.argv[2])
    ap = argparse.ArgumentParser(description="Rate controllers side by side on the software H1")
    ap.add_argument("clip")
    ap.add_argument("--bitrate", required=True, type=rate_arg)
    ap.add_argument("--cpb-ms", required=True, type=int)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--size", default="352x288")
    a = ap.parse_args()
    if os.path.exists(a.clip):
        src = a.clip
    else:
        src = run([MAKE_CLIP, a.clip, a.size, str(a.frames), "y4m"]).stdout.strip()
    fps = 30
    with open(src, "rb") as f:
        header = f.readline().decode()
    for tok in header.split():
        if tok.startswith("F") and ":" in tok:
            n, d = tok[1:].split(":")
            fps = int(n) / int(d)
    tmp = tempfile.mkdtemp(prefix="rc-compare-")
    common = ["--bitrate", str(a.bitrate), "--cpb-size", str(a.cpb_ms), "-q"]
    results = []
    for name in ["h264enc"] + CONTROLLERS:
        stream = os.path.join(tmp, name + ".h264")
        stats = stream + ".jsonl"
        cmd = [H264ENC, "encode", src, "-o", stream, "--stats", stats] + common
        if name == "h264enc":
            cmd += ["--rc", "cbr"]
        else:
            cmd += ["--client-rc-exec", f"{sys.executable} {os.path.abspath(__file__)} --serve {name}"]
        run(cmd)
        hrd = f"{a.bitrate},{a.bitrate * a.cpb_ms / 1000},{fps}"
        m = measure(name, name == "h264enc", stream, stats, src, fps, hrd)
        m["error_pct"] = (m.pop("rate") - a.bitrate) / a.bitrate * 100
        results.append(m)
    if a.json:
        print(json.dumps([{k: r[k] for k in ["algorithm", "ours", "error_pct", "hrd_violations", "psnr_y",
                                             "qp_stddev"]} for r in results]))
        return 0
    print(f"Rate controllers on the software H1: {os.path.basename(src)}, {a.bitrate} b/s, CPB {a.cpb_ms} ms, "
          "one run on this machine")
    print("| controller | rate error after 1 s | HRD violations | PSNR-Y dB | QP std dev |")
    print("|---|---|---|---|---|")
    for r in results:
        name = r["algorithm"] + (" (ours, in the driver)" if r["ours"] else "")
        print(f"| {name} | {r['error_pct']:+.2f} % | {r['hrd_violations']} | {r['psnr_y']:.2f} | "
              f"{r['qp_stddev']:.2f} |")
    # A controller that overspends its rate or breaks its buffer buys PSNR
    # with bits a receiver does not have: quality is compared among those
    # that keep both.
    ours = next(r for r in results if r["ours"])
    fewest = min(r["hrd_violations"] for r in results)
    keepers = [r for r in results if r["hrd_violations"] == 0 and abs(r["error_pct"]) <= 3]
    print(f"ours: {ours['hrd_violations']} HRD violations, the fewest is {fewest}")
    if keepers:
        best = max(keepers, key=lambda r: r["psnr_y"])
        print(f"ours: PSNR-Y {ours['psnr_y'] - best['psnr_y']:+.2f} dB against the best of the controllers "
              f"that keep their buffer and the rate within 3 % ({best['algorithm']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
