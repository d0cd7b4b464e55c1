//! Per-frame statistics, the end-of-run summary, and the plot.

use std::fmt::Write as _;

/// One coded frame.
#[derive(Clone, Debug)]
pub struct FrameStat {
    pub index: u64,
    pub idr: bool,
    pub nal_ref_idc: u8,
    pub temporal_id: u8,
    pub qp_q8: u32,
    pub bits: u32,
    pub target_bits: u32,
    pub cpb_fullness: u32,
    pub frame_num: u32,
    pub pic_order_cnt: i32,
    /// Marked "used for long-term reference".
    pub long_term: bool,
    /// Timestamps (ns) of the reference pictures the encoder holds after this
    /// frame, ascending.
    pub dpb: Vec<u64>,
    /// The encoder's HRD model found this access unit late at its removal time
    /// (CPB underflow).
    pub hrd_underflow: bool,
    /// The CPB overflowed while this access unit arrived.
    pub hrd_overflow: bool,
    /// Times the device coded the frame (more than 1: coded again so that
    /// the CPB would not underflow).
    pub passes: u8,
    /// No coding fitted the CPB: the frame is a copy of its reference
    /// picture, every macroblock skipped, and `passes` codings were discarded.
    pub skipped: bool,
    pub psnr_y: Option<f64>,
}

/// The run.
pub struct Summary {
    pub width: u32,
    pub height: u32,
    pub fps_num: u32,
    pub fps_den: u32,
    /// Target bit rate (0 for constant QP).
    pub bitrate: u64,
    pub frames: Vec<FrameStat>,
    pub seconds: f64,
    /// Time spent inside the device's encode calls (driver, core, hardware).
    pub encode_seconds: f64,
    /// Frames the device failed and that were queued again (--retries).
    pub retried: u32,
    /// Each temporal layer's own target bit rate, base first (empty without a split).
    pub layer_rates: Vec<u64>,
    /// Constant quality's peak: the most bits any one-second window may hold.
    pub window_peak: Option<u64>,
}

impl Summary {
    pub fn new(width: u32, height: u32, fps_num: u32, fps_den: u32, bitrate: u64) -> Self {
        Summary {
            width,
            height,
            fps_num,
            fps_den,
            bitrate,
            frames: Vec::new(),
            seconds: 0.0,
            encode_seconds: 0.0,
            retried: 0,
            layer_rates: Vec::new(),
            window_peak: None,
        }
    }

    pub fn add(&mut self, s: FrameStat) {
        self.frames.push(s);
    }

    fn fps(&self) -> f64 {
        f64::from(self.fps_num) / f64::from(self.fps_den)
    }

    /// Average bit rate over frames `from..`, bits/s.
    pub fn bitrate_from(&self, from: usize) -> f64 {
        let f = &self.frames[from.min(self.frames.len())..];
        if f.is_empty() {
            return 0.0;
        }
        f.iter().map(|s| f64::from(s.bits)).sum::<f64>() * self.fps() / f.len() as f64
    }

    /// Bit rate of each prefix of temporal layers (layers 0..=k) over frames
    /// `from..`, bits/s: what a receiver of only those layers gets. Each
    /// layer's average picture times its pictures per second, so that a
    /// window cutting the layer pattern short does not skew it.
    pub fn prefix_rates(&self, from: usize) -> Vec<f64> {
        let n = self.layer_rates.len();
        let f = &self.frames[from.min(self.frames.len())..];
        let (count, period) = h264enc::gop::pictures_per_period(n as u8);
        let layer_rate = |k: usize| {
            let bits: Vec<f64> = f
                .iter()
                .filter(|s| usize::from(s.temporal_id) == k)
                .map(|s| f64::from(s.bits))
                .collect();
            bits.iter().sum::<f64>() / bits.len().max(1) as f64 * count[k] as f64 / period as f64
                * self.fps()
        };
        (0..n).map(|k| (0..=k).map(layer_rate).sum()).collect()
    }

    /// Bits of the busiest run of one second's pictures (the frame rate
    /// rounded up), as bits/s.
    pub fn busiest_second(&self) -> f64 {
        let w = (self.fps().ceil() as usize).max(1);
        let bits: Vec<f64> = self.frames.iter().map(|f| f64::from(f.bits)).collect();
        if bits.len() < w {
            return bits.iter().sum::<f64>();
        }
        bits.windows(w)
            .map(|s| s.iter().sum::<f64>())
            .fold(0.0, f64::max)
    }

    /// The text printed at the end of `encode`.
    pub fn text(&self, output: &str) -> String {
        let n = self.frames.len();
        let qps: Vec<f64> = self
            .frames
            .iter()
            .map(|f| f64::from(f.qp_q8) / 256.0)
            .collect();
        let qavg = qps.iter().sum::<f64>() / n as f64;
        let qmin = qps.iter().cloned().fold(f64::MAX, f64::min);
        let qmax = qps.iter().cloned().fold(f64::MIN, f64::max);
        let rate = self.bitrate_from(0);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "h264enc: {output}: {n} frames {}x{} at {:.3} fps",
            self.width,
            self.height,
            self.fps()
        );
        let _ = writeln!(
            s,
            "  speed    {:.1} frames/s ({:.2} s); the encoder alone {:.1} frames/s",
            n as f64 / self.seconds.max(1e-9),
            self.seconds,
            n as f64 / self.encode_seconds.max(1e-9),
        );
        if self.retried > 0 {
            let _ = writeln!(s, "  retried  {} failed frames queued again", self.retried);
        }
        if self.bitrate > 0 {
            // Error measured after the first second, where the buffer has settled.
            let skip = (self.fps().round() as usize).min(n.saturating_sub(1));
            let steady = self.bitrate_from(skip);
            let err = (steady - self.bitrate as f64) / self.bitrate as f64 * 100.0;
            let _ = writeln!(
                s,
                "  bitrate  {:.1} kb/s overall, {:.1} kb/s after the first second; target {:.1} kb/s, error {:+.2} %",
                rate / 1000.0,
                steady / 1000.0,
                self.bitrate as f64 / 1000.0,
                err
            );
        } else {
            let _ = writeln!(s, "  bitrate  {:.1} kb/s (no target)", rate / 1000.0);
        }
        if let Some(p) = self.window_peak {
            let _ = writeln!(
                s,
                "  peak     the busiest second holds {:.1} kb, the peak {:.1} kb",
                self.busiest_second() / 1000.0,
                p as f64 / 1000.0
            );
        }
        let skip = (self.fps().round() as usize).min(n.saturating_sub(1));
        let mut target = 0u64;
        for (k, got) in self.prefix_rates(skip).into_iter().enumerate() {
            target += self.layer_rates[k];
            let _ = writeln!(
                s,
                "  layers   0..{k}: {:.1} kb/s after the first second, target {:.1} kb/s ({:.0} % of the stream's), error {:+.2} %",
                got / 1000.0,
                target as f64 / 1000.0,
                target as f64 * 100.0 / self.bitrate.max(1) as f64,
                (got - target as f64) / target.max(1) as f64 * 100.0
            );
        }
        let _ = writeln!(
            s,
            "  QP       average {qavg:.2}, min {qmin:.2}, max {qmax:.2}"
        );
        let hrd = |what: &str, which: &dyn Fn(&FrameStat) -> bool| {
            let at: Vec<u64> = self
                .frames
                .iter()
                .filter(|f| which(f))
                .map(|f| f.index)
                .collect();
            if at.is_empty() {
                return String::new();
            }
            let shown: Vec<String> = at.iter().take(10).map(u64::to_string).collect();
            let more = if at.len() > 10 { ", ..." } else { "" };
            format!(
                "  HRD      the stream breaks its HRD: CPB {what} at {} frames ({}{more})\n",
                at.len(),
                shown.join(", ")
            )
        };
        s += &hrd("underflow", &|f| f.hrd_underflow);
        s += &hrd("overflow", &|f| f.hrd_overflow);
        let again: Vec<&FrameStat> = self
            .frames
            .iter()
            .filter(|f| f.passes > 1 && !f.skipped)
            .collect();
        if !again.is_empty() {
            let shown: Vec<String> = again
                .iter()
                .take(10)
                .map(|f| format!("{} ({}x)", f.index, f.passes))
                .collect();
            let more = if again.len() > 10 { ", ..." } else { "" };
            let _ = writeln!(
                s,
                "  recoded  {} frames coded again at a coarser QP to keep the CPB: {}{more}",
                again.len(),
                shown.join(", ")
            );
        }
        let skipped: Vec<String> = self
            .frames
            .iter()
            .filter(|f| f.skipped)
            .map(|f| f.index.to_string())
            .collect();
        if !skipped.is_empty() {
            let more = if skipped.len() > 10 { ", ..." } else { "" };
            let _ = writeln!(
                s,
                "  skipped  {} frames no coding fitted in the CPB, sent as copies of their reference: {}{more}",
                skipped.len(),
                skipped[..skipped.len().min(10)].join(", ")
            );
        }
        let psnrs: Vec<f64> = self.frames.iter().filter_map(|f| f.psnr_y).collect();
        if !psnrs.is_empty() {
            let _ = writeln!(
                s,
                "  PSNR-Y   {:.2} dB average",
                psnrs.iter().sum::<f64>() / psnrs.len() as f64
            );
        }
        s
    }

    /// Writes one JSON object per frame.
    pub fn write_stats(&self, path: &str) -> Result<(), String> {
        let mut out = String::new();
        for f in &self.frames {
            let _ = writeln!(
                out,
                "{{\"index\":{},\"type\":\"{}\",\"nal_ref_idc\":{},\"temporal_layer\":{},\"qp\":{:.3},\"bits\":{},\"target_bits\":{},\"cpb_fullness\":{},\"frame_num\":{},\"poc\":{},\"long_term\":{},\"dpb\":{:?},\"hrd_underflow\":{},\"hrd_overflow\":{},\"passes\":{},\"skipped\":{},\"psnr_y\":{}}}",
                f.index,
                if f.idr { "I" } else { "P" },
                f.nal_ref_idc,
                f.temporal_id,
                f64::from(f.qp_q8) / 256.0,
                f.bits,
                f.target_bits,
                f.cpb_fullness,
                f.frame_num,
                f.pic_order_cnt,
                f.long_term,
                f.dpb,
                f.hrd_underflow,
                f.hrd_overflow,
                f.passes,
                f.skipped,
                f.psnr_y.map_or("null".to_string(), |p| format!("{p:.3}"))
            );
        }
        std::fs::write(path, out).map_err(|e| format!("cannot write {path}: {e}"))
    }

    /// Writes an SVG of bit rate, QP and CPB fullness over the frames.
    pub fn write_plot(&self, path: &str) -> Result<(), String> {
        if !path.ends_with(".svg") {
            return Err(format!("{path}: the plot is written as SVG; name it .svg"));
        }
        let (w, h) = (900.0, 540.0);
        let n = self.frames.len().max(2) as f64;
        let panel = |title: &str,
                     y0: f64,
                     vals: &[f64],
                     colour: &str,
                     target: Option<f64>|
         -> String {
            let max = vals
                .iter()
                .cloned()
                .fold(target.unwrap_or(0.0), f64::max)
                .max(1e-9);
            let ph = 150.0;
            let mut p = format!(
                "<text x=\"10\" y=\"{}\" font-size=\"13\">{title} (max {max:.1})</text>\n",
                y0 - 4.0
            );
            p += &format!("<rect x=\"60\" y=\"{y0}\" width=\"{}\" height=\"{ph}\" fill=\"none\" stroke=\"#999\"/>\n", w - 80.0);
            let pts: Vec<String> = vals
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    format!(
                        "{:.1},{:.1}",
                        60.0 + (w - 80.0) * i as f64 / (n - 1.0),
                        y0 + ph - ph * v / max
                    )
                })
                .collect();
            p += &format!(
                "<polyline fill=\"none\" stroke=\"{colour}\" points=\"{}\"/>\n",
                pts.join(" ")
            );
            if let Some(t) = target {
                let y = y0 + ph - ph * t / max;
                p += &format!("<line x1=\"60\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#c00\" stroke-dasharray=\"4\"/>\n", w - 20.0);
            }
            p
        };
        let rate: Vec<f64> = self
            .frames
            .iter()
            .map(|f| f64::from(f.bits) * self.fps() / 1000.0)
            .collect();
        let qp: Vec<f64> = self
            .frames
            .iter()
            .map(|f| f64::from(f.qp_q8) / 256.0)
            .collect();
        let cpb: Vec<f64> = self
            .frames
            .iter()
            .map(|f| f64::from(f.cpb_fullness) / 1000.0)
            .collect();
        let mut svg = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        let target = (self.bitrate > 0).then_some(self.bitrate as f64 / 1000.0);
        svg += &panel("frame size as kb/s", 20.0, &rate, "#1f77b4", target);
        svg += &panel("QP", 200.0, &qp, "#2ca02c", None);
        svg += &panel("CPB fullness (kbit)", 380.0, &cpb, "#9467bd", None);
        svg += "</svg>\n";
        std::fs::write(path, svg).map_err(|e| format!("cannot write {path}: {e}"))
    }
}

/// A progress bar on stderr when it is a terminal.
pub fn progress(quiet: bool, frames: Option<u64>) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let b = match frames {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    b.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {pos} frames {per_sec} {bar:40}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(b)
}
