//! `h264enc encode`: source frames through a stateless encoder device.

use crate::client_rc::{ClientRc, Coprocess, Target};
use crate::input;
use crate::report::{FrameStat, Summary};
use h264enc_client::device::{Device, PixelFormat, VirtualDevice};
use h264enc_client::device_thread::DeviceThread;
use h264enc_client::session::{configure, Configured, StreamConfig};
pub use h264enc_client::session::{Profile, RcMode};
use h264enc_client::units::CpbSize;
use std::io::Write;
use v4l2_h264enc_uapi::*;

/// Everything `encode` was asked to do.
#[derive(Clone, Debug)]
pub struct EncodeArgs {
    pub input: String,
    pub output: String,
    pub size: Option<(u32, u32)>,
    pub fps: Option<(u32, u32)>,
    pub layout: PixelFormat,
    pub rc: Option<RcMode>,
    pub bitrate: Option<u64>,
    pub max_bitrate: Option<u64>,
    pub cpb_size: Option<CpbSize>,
    pub filler: bool,
    pub qp: Option<u8>,
    pub quality: Option<u8>,
    pub qp_min: u8,
    pub qp_max: u8,
    pub gop: u32,
    pub profile: Profile,
    pub cabac: Option<bool>,
    pub cabac_init_idc: u8,
    pub transform_8x8: Option<bool>,
    pub slices: u32,
    pub ltr_period: u32,
    pub temporal_layers: u8,
    pub layer_split: Option<Vec<u32>>,
    pub client_rc: bool,
    /// The client's rate controller is this command (client_rc is set).
    pub client_rc_exec: Option<String>,
    /// Times a failed frame is queued again before the encode fails.
    pub retries: u32,
    /// Frames coded as IDR pictures on request.
    pub force_idr: Vec<u64>,
    /// Frames marked as the long-term reference on request.
    pub mark_long_term: Vec<u64>,
    /// (frame, bit rate): the bit rate changes before that frame.
    pub bitrate_at: Vec<(u64, u64)>,
    pub frames: Option<u64>,
    /// Frames kept in flight on the device (`None`: the default for the mode).
    pub in_flight: Option<usize>,
    /// Threads of the software H1 (1 when absent; 0: one per CPU).
    pub threads: Option<usize>,
    pub device: String,
    pub recon: Option<String>,
    pub stats: Option<String>,
    pub plot: Option<String>,
    pub quiet: bool,
}

fn dev_err(what: &str, e: String) -> String {
    format!("the device refused {what}: {e}")
}

/// Encodes on the device `--device` names; returns the summary, or a message for the user.
pub fn run(a: &EncodeArgs) -> Result<Summary, String> {
    let depth = in_flight(a)?;
    let mut d = if a.device == "virtual" {
        let threads = match a.threads {
            Some(0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
            Some(n) => n,
            None => 1,
        };
        DeviceThread::spawn(depth, move || {
            let mut d = VirtualDevice::try_open()?;
            d.set_threads(threads);
            Ok(Box::new(d))
        })?
    } else {
        if a.threads.is_some() {
            return Err(format!(
                "--threads sets the software H1's threads: {} codes with its own hardware",
                a.device
            ));
        }
        if a.recon.is_some() {
            return Err(format!(
                "--recon needs --device virtual: {} does not return its reconstruction",
                a.device
            ));
        }
        let path = a.device.clone();
        DeviceThread::spawn(depth, move || {
            Ok(Box::new(h264enc_client::v4l2::open(&path)?))
        })?
    };
    run_on(a, &mut d)
}

/// How many frames to keep in flight: `--in-flight`, by default 2, and 1
/// where the next frame's controls wait for the last one's outcome.
fn in_flight(a: &EncodeArgs) -> Result<usize, String> {
    let serial = if a.client_rc {
        Some("client-driven rate control plans each frame from the last one's feedback")
    } else if a.retries > 0 {
        Some("--retries queues a failed frame again in its place")
    } else {
        None
    };
    match (a.in_flight, serial) {
        (Some(n), Some(why)) if n > 1 => Err(format!("--in-flight {n} cannot be: {why}")),
        (Some(n), _) => Ok(n),
        (None, Some(_)) => Ok(1),
        (None, None) => Ok(2),
    }
}

/// Encodes on `d`, a device not yet configured.
pub fn run_on(a: &EncodeArgs, d: &mut DeviceThread) -> Result<Summary, String> {
    let virtual_h1 = a.device == "virtual";
    let mut src = input::open(&a.input, a.size, a.fps, a.layout)?;
    let f = src.format;
    let cfg = StreamConfig {
        width: f.width,
        height: f.height,
        fps_num: f.fps_num,
        fps_den: f.fps_den,
        format: f.layout,
        rc: a.rc,
        bitrate: a.bitrate,
        max_bitrate: a.max_bitrate,
        cpb_size: a.cpb_size,
        filler: a.filler,
        qp: a.qp,
        quality: a.quality,
        qp_min: a.qp_min,
        qp_max: a.qp_max,
        gop: a.gop,
        profile: a.profile,
        cabac: a.cabac,
        cabac_init_idc: a.cabac_init_idc,
        transform_8x8: a.transform_8x8,
        slices: a.slices,
        ltr_period: a.ltr_period,
        long_term: a.ltr_period > 0 || !a.mark_long_term.is_empty(),
        temporal_layers: a.temporal_layers,
        layer_split: a.layer_split.clone(),
        client_rc: a.client_rc,
        virtual_h1,
    };
    let Configured {
        rc,
        bitrate,
        peak,
        cpb_bits,
        mb_w,
        mb_h,
        layer_rates,
    } = configure(d, &cfg)?;

    if !a.bitrate_at.is_empty() && (matches!(rc, RcMode::Cqp | RcMode::Cq) || a.client_rc) {
        return Err("--bitrate-at needs in-kernel rate control (--rc cbr or vbr)".into());
    }

    // Client-driven rate control: the core's own frame controller in
    // userspace, or another program's.
    let mut client_rc = if a.client_rc {
        let t = Target {
            width: f.width,
            height: f.height,
            fps_num: f.fps_num,
            fps_den: f.fps_den,
            bitrate,
            peak,
            cpb_bits,
            cbr: rc != RcMode::Vbr,
            qp_min: a.qp_min,
            qp_max: a.qp_max,
        };
        Some(match &a.client_rc_exec {
            Some(cmd) => ClientRc::Exec(Coprocess::spawn(cmd, &t)?),
            None => ClientRc::core(&t)?,
        })
    } else {
        None
    };

    let mut out = Output::create(&a.output)?;
    let mut recon = match &a.recon {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| format!("cannot write {p}: {e}"))?),
        None => None,
    };
    let bar = crate::report::progress(a.quiet, a.frames);
    let mut summary = Summary::new(
        f.width,
        f.height,
        f.fps_num,
        f.fps_den,
        if matches!(rc, RcMode::Cqp | RcMode::Cq) && !a.client_rc {
            0
        } else {
            bitrate
        },
    );
    summary.layer_rates = layer_rates;
    if rc == RcMode::Cq {
        summary.window_peak = a.max_bitrate;
    }
    let start = std::time::Instant::now();
    // What the completion of a queued frame needs from its queueing.
    struct Queued {
        index: u64,
        frame: std::sync::Arc<Vec<u8>>,
        timestamp: u64,
        params: v4l2_ctrl_h264_encode_params,
        rc: v4l2_ctrl_h264_encode_rc,
        target: u32,
    }
    let mut queued = std::collections::VecDeque::new();
    // Frame buffers the device is done with, read into again: a frame of
    // 720p is larger than what the allocator keeps, and a new one per frame
    // costs its page faults every time.
    let mut spare: Vec<Vec<u8>> = Vec::new();
    d.set_read_recon(recon.is_some() || a.stats.is_some());
    // Takes the oldest frame in flight to the output; a failed frame may be
    // queued again (only with one frame in flight: it leaves the stream as
    // if it had not been queued, and nothing was queued after it).
    let mut complete = |d: &mut DeviceThread,
                        q: Queued,
                        summary: &mut Summary,
                        client_rc: &mut Option<ClientRc>,
                        spare: &mut Vec<Vec<u8>>|
     -> Result<(), String> {
        let i = q.index;
        let mut tries = 0;
        let done = loop {
            let done = d.dequeue().map_err(|e| dev_err(&format!("frame {i}"), e))?;
            summary.encode_seconds += done.seconds;
            if done.completed.error == 0 {
                break done;
            }
            let why = format!(
                "frame {i} failed on the device: {}{}",
                hantro_vdev::Errno(done.completed.error),
                done.log
                    .as_ref()
                    .map_or(String::new(), |m| format!(" (driver: {m})"))
            );
            if tries == a.retries || d.in_flight() > 0 {
                return Err(why);
            }
            tries += 1;
            summary.retried += 1;
            eprintln!("h264enc: {why}; queued again ({tries} of {})", a.retries);
            d.queue(q.frame.clone(), q.timestamp, Some(q.params), Some(q.rc))
                .map_err(|e| dev_err(&format!("frame {i}"), e))?;
        };
        let (done, rec) = (done.completed, done.recon);
        if let Some(c) = client_rc.as_mut() {
            c.complete(
                i,
                done.keyframe(),
                done.feedback.frame_bytes.saturating_mul(8),
                done.feedback.qp_avg_q8,
                mb_w * mb_h,
            )?;
        }
        out.write_all(&done.payload)?;
        let psnr = rec.as_ref().map(|r| {
            h264_reference_decode::psnr_y(
                &frame_i420(&q.frame, f),
                r,
                f.width as usize,
                f.height as usize,
            )
        });
        if let (Some(file), Some(r)) = (recon.as_mut(), rec.as_ref()) {
            file.write_all(r)
                .map_err(|e| format!("cannot write the reconstruction: {e}"))?;
        }
        let fb = &done.feedback;
        // The order of the feedback's DPB entries has no meaning.
        let mut dpb: Vec<u64> = fb
            .dpb
            .iter()
            .filter(|e| e.flags & V4L2_H264_DPB_ENTRY_FLAG_VALID != 0)
            .map(|e| e.reference_ts)
            .collect();
        dpb.sort_unstable();
        summary.add(FrameStat {
            index: i,
            idr: done.keyframe(),
            nal_ref_idc: fb.nal_ref_idc,
            temporal_id: fb.temporal_id,
            qp_q8: fb.qp_avg_q8,
            bits: fb.frame_bytes.saturating_mul(8),
            target_bits: if q.target != 0 {
                q.target
            } else {
                fb.target_bits
            },
            cpb_fullness: fb.cpb_fullness,
            frame_num: fb.frame_num,
            pic_order_cnt: fb.pic_order_cnt,
            long_term: fb.flags & V4L2_H264_ENCODE_FEEDBACK_FLAG_LONG_TERM != 0,
            dpb,
            hrd_underflow: fb.flags & V4L2_H264_ENCODE_FEEDBACK_FLAG_HRD_UNDERFLOW != 0,
            hrd_overflow: fb.flags & V4L2_H264_ENCODE_FEEDBACK_FLAG_HRD_OVERFLOW != 0,
            passes: fb.passes,
            skipped: fb.flags & V4L2_H264_ENCODE_FEEDBACK_FLAG_SKIPPED != 0,
            psnr_y: psnr,
        });
        if let Some(b) = &bar {
            b.inc(1);
        }
        // The device thread may not have dropped its share yet: then the
        // buffer goes, and a new one is made.
        if let Ok(frame) = std::sync::Arc::try_unwrap(q.frame) {
            spare.push(frame);
        }
        Ok(())
    };
    let result = (|| -> Result<(), String> {
        let mut i = 0u64;
        loop {
            if a.frames.is_some_and(|n| i >= n) {
                break;
            }
            let mut frame = spare.pop().unwrap_or_default();
            if !src.read_frame(&mut frame)? {
                break;
            }
            // In whole microseconds, as a V4L2 buffer carries them: every
            // device reports the same timestamps back (feedback, DPB).
            let ts = i * 1_000_000 * u64::from(f.fps_den) / u64::from(f.fps_num) * 1000;
            let mut params = v4l2_ctrl_h264_encode_params::default();
            if a.force_idr.contains(&i) {
                params.flags |= V4L2_H264_ENCODE_FLAG_FORCE_IDR;
            }
            if a.mark_long_term.contains(&i) {
                params.flags |= V4L2_H264_ENCODE_FLAG_MARK_LONG_TERM;
            }
            if let Some(&(_, rate)) = a.bitrate_at.iter().rfind(|(at, _)| *at == i) {
                // VBR keeps its peak-to-average ratio. The device takes
                // the change after the frames queued before this one.
                let new_peak = (u128::from(rate) * u128::from(peak) / u128::from(bitrate.max(1)))
                    .clamp(u128::from(rate), 400_000_000) as u32;
                d.set_bitrate(rate as u32, new_peak)
                    .map_err(|e| dev_err(&format!("the bit rate of frame {i}"), e))?;
            }
            let mut rcc = v4l2_ctrl_h264_encode_rc::default();
            let mut target = 0;
            if let Some(c) = client_rc.as_mut() {
                let intra = i == 0
                    || (a.gop > 0 && i.is_multiple_of(u64::from(a.gop)))
                    || a.force_idr.contains(&i);
                let (qp, bits) = c.plan(i, intra)?;
                rcc.flags = V4L2_H264_ENCODE_RC_FLAG_QP;
                rcc.qp = qp;
                target = bits;
            }
            let frame = std::sync::Arc::new(frame);
            d.queue(frame.clone(), ts, Some(params), Some(rcc))
                .map_err(|e| dev_err(&format!("frame {i}"), e))?;
            queued.push_back(Queued {
                index: i,
                frame,
                timestamp: ts,
                params,
                rc: rcc,
                target,
            });
            // The frames queued after the oldest keep the device busy while
            // that one is written out and the next one read.
            while d.full() {
                let q = queued.pop_front().ok_or("no frame in flight")?;
                complete(d, q, &mut summary, &mut client_rc, &mut spare)?;
            }
            i += 1;
        }
        while let Some(q) = queued.pop_front() {
            complete(d, q, &mut summary, &mut client_rc, &mut spare)?;
        }
        Ok(())
    })();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let result = result.and_then(|()| d.finish().map_err(|e| format!("draining the device: {e}")));
    if let Err(e) = result {
        out.abandon();
        return Err(e);
    }
    if summary.frames.is_empty() {
        out.abandon();
        return Err(format!("{}: no frames to encode", a.input));
    }
    out.finish()?;
    summary.seconds = start.elapsed().as_secs_f64();
    if let Some(p) = &a.stats {
        summary.write_stats(p)?;
    }
    if let Some(p) = &a.plot {
        summary.write_plot(p)?;
    }
    Ok(summary)
}

/// The frame as I420 for PSNR: NV12 deinterleaved; packed 4:2:2 split, its
/// chroma of each pair of rows averaged; RGB converted as the stream says
/// (BT.601, full range) in floating point, a reference the H1's fixed-point
/// conversion is measured against.
fn frame_i420(frame: &[u8], f: input::Format) -> Vec<u8> {
    let (w, h) = (f.width as usize, f.height as usize);
    match f.layout {
        PixelFormat::I420 => frame.to_vec(),
        PixelFormat::Nv12 => {
            let mut out = frame[..w * h].to_vec();
            let c = &frame[w * h..];
            out.extend(c.iter().step_by(2));
            out.extend(c.iter().skip(1).step_by(2));
            out
        }
        PixelFormat::Yuyv | PixelFormat::Uyvy => {
            let (yo, co) = if f.layout == PixelFormat::Yuyv {
                (0, 1)
            } else {
                (1, 0)
            };
            let mut out: Vec<u8> = frame.iter().skip(yo).step_by(2).copied().collect();
            for k in 0..2 {
                for r in (0..h).step_by(2) {
                    let row = |r: usize| &frame[r * 2 * w..][..2 * w];
                    let (a, b) = (row(r), row((r + 1).min(h - 1)));
                    out.extend((0..w / 2).map(|i| {
                        let at = 4 * i + 2 * k + co;
                        (u16::from(a[at]) + u16::from(b[at])).div_ceil(2) as u8
                    }));
                }
            }
            out
        }
        rgb => rgb_to_i420(frame, w, h, rgb),
    }
}

/// R, G and B of pixel `i` of an RGB frame, 8 bits each.
fn rgb_at(frame: &[u8], i: usize, fmt: PixelFormat) -> [f32; 3] {
    let at = |o: [usize; 3]| o.map(|k| f32::from(frame[4 * i + k]));
    match fmt {
        PixelFormat::Rgb565 => {
            let v = u16::from_le_bytes([frame[2 * i], frame[2 * i + 1]]);
            let (r, g, b) = (v >> 11, (v >> 5) & 0x3f, v & 0x1f);
            [(r << 3 | r >> 2), (g << 2 | g >> 4), (b << 3 | b >> 2)].map(f32::from)
        }
        PixelFormat::Bgrx => at([2, 1, 0]),
        PixelFormat::Rgbx => at([0, 1, 2]),
        PixelFormat::Xrgb => at([1, 2, 3]),
        _ => at([3, 2, 1]),
    }
}

/// An RGB frame as BT.601 full-range I420, the chroma of each 2x2 block
/// averaged.
fn rgb_to_i420(frame: &[u8], w: usize, h: usize, fmt: PixelFormat) -> Vec<u8> {
    let mut y = vec![0u8; w * h];
    let (mut cb, mut cr) = (vec![0f32; w * h / 4], vec![0f32; w * h / 4]);
    for (i, out) in y.iter_mut().enumerate() {
        let [r, g, b] = rgb_at(frame, i, fmt);
        let luma = 0.299 * r + 0.587 * g + 0.114 * b;
        *out = luma.round().clamp(0.0, 255.0) as u8;
        let c = (i / w / 2) * (w / 2) + (i % w) / 2;
        cb[c] += (b - luma) * 0.564 / 4.0;
        cr[c] += (r - luma) * 0.713 / 4.0;
    }
    let q = |v: f32| (v + 128.0).round().clamp(0.0, 255.0) as u8;
    y.extend(cb.into_iter().map(q));
    y.extend(cr.into_iter().map(q));
    y
}

/// Where the stream goes: a file, written as NAME.part and renamed when the
/// encode succeeds (a failed encode leaves nothing); a device or a pipe named
/// on the command line (`/dev/null`, a FIFO), written in place, since a
/// rename would put a file where the device was; or standard output (`-o -`),
/// written as the access units come.
enum Output {
    File {
        path: String,
        part: String,
        file: std::fs::File,
    },
    Special {
        path: String,
        file: std::fs::File,
    },
    Stdout(std::io::BufWriter<std::io::Stdout>),
}

impl Output {
    fn create(path: &str) -> Result<Output, String> {
        use std::io::IsTerminal;
        if path == "-" {
            if std::io::stdout().is_terminal() {
                return Err("-o -: standard output is a terminal, not a pipe or a file".into());
            }
            return Ok(Output::Stdout(std::io::BufWriter::new(std::io::stdout())));
        }
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| format!("cannot write {path}: {e}"))?;
            return Ok(Output::Special {
                path: path.to_string(),
                file,
            });
        }
        let part = format!("{path}.part");
        let file = std::fs::File::create(&part).map_err(|e| format!("cannot write {path}: {e}"))?;
        Ok(Output::File {
            path: path.to_string(),
            part,
            file,
        })
    }

    fn write_all(&mut self, data: &[u8]) -> Result<(), String> {
        match self {
            Output::File { path, file, .. } | Output::Special { path, file } => file
                .write_all(data)
                .map_err(|e| format!("cannot write {path}: {e}")),
            // Each access unit goes down the pipe as soon as it is coded.
            Output::Stdout(w) => w
                .write_all(data)
                .and_then(|()| w.flush())
                .map_err(|e| format!("cannot write the stream to standard output: {e}")),
        }
    }

    fn finish(self) -> Result<(), String> {
        match self {
            Output::File { path, part, file } => {
                file.sync_all().ok();
                std::fs::rename(&part, &path).map_err(|e| format!("cannot write {path}: {e}"))
            }
            Output::Special { .. } => Ok(()),
            Output::Stdout(mut w) => w
                .flush()
                .map_err(|e| format!("cannot write the stream to standard output: {e}")),
        }
    }

    /// Drops what a failed encode wrote (a file; a pipe keeps what it took).
    fn abandon(self) {
        if let Output::File { part, .. } = self {
            let _ = std::fs::remove_file(part);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use h264enc_client::v4l2::{fake::FakeKernel, V4l2Encoder};

    /// A frame the device fails ends the encode with a message that names the
    /// frame and the driver's reason, and leaves no output file behind.
    #[test]
    fn a_failed_frame_stops_with_a_message_and_no_output_file() {
        let input = h264_oracle::clip_with("meadow", 176, 144, 4, false)
            .unwrap()
            .display()
            .to_string();
        let dir = std::env::temp_dir().join(format!("h264enc-encode-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let output = dir.join("fail.h264").display().to_string();
        let a = EncodeArgs {
            input,
            output: output.clone(),
            size: Some((176, 144)),
            fps: Some((30, 1)),
            layout: PixelFormat::I420,
            rc: None,
            bitrate: Some(300_000),
            max_bitrate: None,
            cpb_size: None,
            filler: false,
            qp: None,
            quality: None,
            qp_min: 10,
            qp_max: 51,
            gop: 0,
            profile: Profile::Baseline,
            cabac: None,
            cabac_init_idc: 0,
            transform_8x8: None,
            slices: 1,
            ltr_period: 0,
            temporal_layers: 1,
            layer_split: None,
            client_rc: false,
            client_rc_exec: None,
            retries: 0,
            force_idr: Vec::new(),
            mark_long_term: Vec::new(),
            bitrate_at: Vec::new(),
            frames: None,
            in_flight: None,
            threads: None,
            device: "/dev/video0".into(),
            recon: None,
            stats: None,
            plot: None,
            quiet: true,
        };
        let mut d = DeviceThread::spawn(2, || {
            let mut k = FakeKernel::new();
            k.fault_at = Some((2, hantro_vdev::Fault::Timeout));
            Ok(Box::new(V4l2Encoder::open(k, "/dev/video0")?))
        })
        .unwrap();
        let e = run_on(&a, &mut d).err().unwrap();
        assert!(
            e.contains("frame 2 failed on the device") && e.contains("V4L2_BUF_FLAG_ERROR"),
            "{e}"
        );
        assert!(!std::path::Path::new(&output).exists());
        assert!(!std::path::Path::new(&format!("{output}.part")).exists());
    }
}
