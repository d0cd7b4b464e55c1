//! `h264enc encode`: source frames through a stateless encoder device.

use crate::device::{bytes_of, Device, PixelFormat, VirtualDevice};
use crate::input::{self, Layout};
use crate::report::{FrameStat, Summary};
use hantro_vdev::uapi::*;
use std::io::Write;

/// Rate control modes of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RcMode {
    Cqp,
    Cbr,
    Vbr,
}

/// H.264 profiles of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Profile {
    Baseline,
    Main,
    High,
}

/// Everything `encode` was asked to do.
#[derive(Clone, Debug)]
pub struct EncodeArgs {
    pub input: String,
    pub output: String,
    pub size: Option<(u32, u32)>,
    pub fps: Option<(u32, u32)>,
    pub layout: Layout,
    pub rc: Option<RcMode>,
    pub bitrate: Option<u64>,
    pub max_bitrate: Option<u64>,
    pub cpb_size: Option<crate::units::CpbSize>,
    pub filler: bool,
    pub qp: Option<u8>,
    pub qp_min: u8,
    pub qp_max: u8,
    pub gop: u32,
    pub profile: Profile,
    pub cabac: Option<bool>,
    pub transform_8x8: bool,
    pub slices: u32,
    pub ltr_period: u32,
    pub temporal_layers: u8,
    pub client_rc: bool,
    pub frames: Option<u64>,
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
    if a.device == "virtual" {
        run_on(a, &mut VirtualDevice::open())
    } else {
        if a.recon.is_some() {
            return Err(format!(
                "--recon needs --device virtual: {} does not return its reconstruction",
                a.device
            ));
        }
        run_on(a, &mut crate::v4l2::open(&a.device)?)
    }
}

/// Encodes on `d`, a device not yet configured.
pub fn run_on(a: &EncodeArgs, d: &mut dyn Device) -> Result<Summary, String> {
    let virtual_h1 = a.device == "virtual";
    let mut src = input::open(&a.input, a.size, a.fps, a.layout)?;
    let f = src.format;
    if f.width % 4 != 0 || f.width > 4080 || f.height > 4080 || f.width < 16 || f.height < 16 {
        return Err(format!(
            "{}x{} is outside what the H1 codes: width 16..4080 in steps of 4, height 16..4080 in steps of 2",
            f.width, f.height
        ));
    }
    let rc = match (a.rc, a.bitrate) {
        (Some(m), _) => m,
        (None, Some(_)) => RcMode::Cbr,
        (None, None) => RcMode::Cqp,
    };
    if matches!(rc, RcMode::Cbr | RcMode::Vbr) && a.bitrate.is_none() {
        return Err(format!(
            "--rc {} needs --bitrate",
            if rc == RcMode::Cbr { "cbr" } else { "vbr" }
        ));
    }
    if a.filler && rc != RcMode::Cbr {
        return Err("--filler applies to --rc cbr only".into());
    }
    if a.client_rc && a.bitrate.is_none() {
        return Err("--client-rc needs --bitrate: the client's rate control aims at it".into());
    }
    if a.qp_min > a.qp_max || a.qp_max > 51 || a.qp.is_some_and(|q| q > 51) {
        return Err("QPs must satisfy 0 <= --qp-min <= --qp-max <= 51 and --qp <= 51".into());
    }
    let cabac = a.cabac.unwrap_or(a.profile != Profile::Baseline);
    if cabac && a.profile == Profile::Baseline {
        return Err("--cabac needs --profile main or high".into());
    }
    if a.transform_8x8 && a.profile != Profile::High {
        return Err("--transform-8x8 needs --profile high".into());
    }
    if virtual_h1 && (cabac || a.transform_8x8) {
        return Err(
            "the virtual H1 codes CAVLC without the 8x8 transform only so far; use --no-cabac (or --profile baseline) and no --transform-8x8"
                .into(),
        );
    }
    let mb_w = f.width.div_ceil(16);
    let mb_h = f.height.div_ceil(16);
    if a.slices == 0 || a.slices > mb_h {
        return Err(format!(
            "--slices must be 1..{mb_h} for this height (the H1 cuts slices at macroblock rows)"
        ));
    }

    let fmt = if f.layout == Layout::Nv12 {
        PixelFormat::Nv12
    } else {
        PixelFormat::I420
    };
    d.set_format(f.width, f.height, fmt, f.fps_num, f.fps_den)
        .map_err(|e| dev_err("the format", e))?;
    let sps = v4l2_ctrl_h264_sps {
        profile_idc: match a.profile {
            Profile::Baseline => 66,
            Profile::Main => 77,
            Profile::High => 100,
        },
        chroma_format_idc: 1,
        log2_max_frame_num_minus4: 12,
        pic_order_cnt_type: 2,
        max_num_ref_frames: 1,
        flags: V4L2_H264_SPS_FLAG_FRAME_MBS_ONLY,
        ..Default::default()
    };
    d.set_compound(V4L2_CID_STATELESS_H264_SPS, bytes_of(&sps))
        .map_err(|e| dev_err("the SPS", e))?;
    let mut pps_flags = V4L2_H264_PPS_FLAG_DEBLOCKING_FILTER_CONTROL_PRESENT;
    if cabac {
        pps_flags |= V4L2_H264_PPS_FLAG_ENTROPY_CODING_MODE;
    }
    if a.transform_8x8 {
        pps_flags |= V4L2_H264_PPS_FLAG_TRANSFORM_8X8_MODE;
    }
    let pps = v4l2_ctrl_h264_pps {
        flags: pps_flags as u16,
        ..Default::default()
    };
    d.set_compound(V4L2_CID_STATELESS_H264_PPS, bytes_of(&pps))
        .map_err(|e| dev_err("the PPS", e))?;
    let set = |d: &mut dyn Device, id: u32, v: i64, what: &str| -> Result<(), String> {
        let v = i32::try_from(v).map_err(|_| format!("{what} {v} is out of range"))?;
        d.set_ctrl(id, v).map_err(|e| dev_err(what, e))
    };
    set(d, V4L2_CID_MPEG_VIDEO_GOP_SIZE, i64::from(a.gop), "--gop")?;
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_MIN_QP,
        i64::from(a.qp_min),
        "--qp-min",
    )?;
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_MAX_QP,
        i64::from(a.qp_max),
        "--qp-max",
    )?;
    let qp = a.qp.unwrap_or(26);
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_I_FRAME_QP,
        i64::from(qp),
        "--qp",
    )?;
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_P_FRAME_QP,
        i64::from(qp),
        "--qp",
    )?;
    if a.slices > 1 {
        let rows = mb_h.div_ceil(a.slices);
        set(
            d,
            V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MODE,
            i64::from(V4L2_MPEG_VIDEO_MULTI_SLICE_MODE_MAX_MB),
            "--slices",
        )?;
        set(
            d,
            V4L2_CID_MPEG_VIDEO_MULTI_SLICE_MAX_MB,
            i64::from(rows * mb_w),
            "--slices",
        )?;
    }
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER,
        i64::from(a.temporal_layers),
        "--temporal-layers",
    )?;
    set(
        d,
        V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD,
        i64::from(a.ltr_period),
        "--ltr-period",
    )?;
    let bitrate = a.bitrate.unwrap_or(0);
    let peak = a.max_bitrate.unwrap_or(if rc == RcMode::Vbr {
        bitrate * 3 / 2
    } else {
        bitrate
    });
    let cpb_bits = a.cpb_size.map(|c| c.bits(peak)).unwrap_or(peak);
    if a.client_rc {
        set(d, V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE, 0, "--client-rc")?;
    } else {
        let mode = match rc {
            RcMode::Cqp => V4L2_MPEG_VIDEO_BITRATE_MODE_CQ,
            RcMode::Cbr => V4L2_MPEG_VIDEO_BITRATE_MODE_CBR,
            RcMode::Vbr => V4L2_MPEG_VIDEO_BITRATE_MODE_VBR,
        };
        set(d, V4L2_CID_MPEG_VIDEO_BITRATE_MODE, i64::from(mode), "--rc")?;
        if rc != RcMode::Cqp {
            set(d, V4L2_CID_MPEG_VIDEO_BITRATE, bitrate as i64, "--bitrate")?;
            set(
                d,
                V4L2_CID_MPEG_VIDEO_BITRATE_PEAK,
                peak as i64,
                "--max-bitrate",
            )?;
            // The CPB size control counts kilobytes (1000 bytes).
            set(
                d,
                V4L2_CID_MPEG_VIDEO_H264_CPB_SIZE,
                cpb_bits.div_ceil(8000) as i64,
                "--cpb-size",
            )?;
            set(
                d,
                V4L2_CID_STATELESS_H264_ENCODE_FILLER,
                i64::from(a.filler),
                "--filler",
            )?;
        }
    }
    d.start().map_err(|e| dev_err("the configuration", e))?;

    // Client-driven rate control runs the core's own frame controller in userspace.
    let mut client_rc = if a.client_rc {
        use h264enc::rc::frame::{FrameRc, FrameRcConfig};
        Some(
            FrameRc::new(
                FrameRcConfig {
                    bitrate: bitrate as u32,
                    max_bitrate: peak as u32,
                    cpb_size: cpb_bits as u32,
                    fps_num: f.fps_num,
                    fps_den: f.fps_den,
                    cbr: rc != RcMode::Vbr,
                    filler: false,
                    qp_min: a.qp_min,
                    qp_max: a.qp_max,
                    max_qp_step: 4,
                    pixels: f.width * f.height,
                },
                192,
            )
            .map_err(|e| format!("client rate control: {}", e.name()))?,
        )
    } else {
        None
    };

    let tmp = format!("{}.part", a.output);
    let mut out =
        std::fs::File::create(&tmp).map_err(|e| format!("cannot write {}: {e}", a.output))?;
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
        if rc == RcMode::Cqp && !a.client_rc {
            0
        } else {
            bitrate
        },
    );
    let mut frame = Vec::new();
    let start = std::time::Instant::now();
    let result = (|| -> Result<(), String> {
        let mut i = 0u64;
        while a.frames.is_none_or(|n| i < n) && src.read_frame(&mut frame)? {
            let ts = i * 1_000_000_000 * u64::from(f.fps_den) / u64::from(f.fps_num);
            let params = v4l2_ctrl_h264_encode_params::default();
            let mut rcc = v4l2_ctrl_h264_encode_rc::default();
            let mut target = 0;
            if let Some(c) = client_rc.as_mut() {
                use h264enc::rc::{FrameInfo, RateController};
                let intra = i == 0 || (a.gop > 0 && i.is_multiple_of(u64::from(a.gop)));
                let plan = c.plan(&FrameInfo {
                    intra,
                    ..Default::default()
                });
                rcc.flags = V4L2_H264_ENCODE_RC_FLAG_QP;
                rcc.qp = plan.qp;
                target = plan.target_bits;
            }
            let done = d
                .encode(&frame, ts, &params, &rcc)
                .map_err(|e| dev_err(&format!("frame {i}"), e))?;
            if done.error != 0 {
                return Err(format!(
                    "frame {i} failed on the device: {}{}",
                    hantro_vdev::Errno(done.error),
                    d.last_log()
                        .map_or(String::new(), |m| format!(" (driver: {m})"))
                ));
            }
            if let Some(c) = client_rc.as_mut() {
                use h264enc::rc::{FrameResult, RateController};
                c.complete(&FrameResult {
                    intra: done.keyframe(),
                    bits: done.feedback.frame_bits,
                    qp_avg_q8: done.feedback.qp_avg_q8,
                    mbs: mb_w * mb_h,
                });
            }
            out.write_all(&done.payload)
                .map_err(|e| format!("cannot write {}: {e}", a.output))?;
            let rec = if recon.is_some() || a.stats.is_some() {
                d.recon(done.rec_slot)
                    .transpose()
                    .map_err(|e| dev_err("recon", e))?
            } else {
                None
            };
            let psnr = rec.as_ref().map(|r| {
                h264_oracle::psnr_y(
                    &frame_i420(&frame, f),
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
            summary.add(FrameStat {
                index: i,
                idr: done.keyframe(),
                nal_ref_idc: fb.nal_ref_idc,
                temporal_id: fb.temporal_id,
                qp_q8: fb.qp_avg_q8,
                bits: fb.frame_bits,
                target_bits: if target != 0 { target } else { fb.target_bits },
                cpb_fullness: fb.cpb_fullness,
                psnr_y: psnr,
            });
            if let Some(b) = &bar {
                b.inc(1);
            }
            i += 1;
        }
        Ok(())
    })();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let result = result.and_then(|()| d.finish().map_err(|e| format!("draining the device: {e}")));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if summary.frames.is_empty() {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: no frames to encode", a.input));
    }
    out.sync_all().ok();
    std::fs::rename(&tmp, &a.output).map_err(|e| format!("cannot write {}: {e}", a.output))?;
    summary.seconds = start.elapsed().as_secs_f64();
    if let Some(p) = &a.stats {
        summary.write_stats(p)?;
    }
    if let Some(p) = &a.plot {
        summary.write_plot(p)?;
    }
    Ok(summary)
}

/// The frame as I420 (NV12 sources are deinterleaved) for PSNR.
fn frame_i420(frame: &[u8], f: input::Format) -> Vec<u8> {
    if f.layout == Layout::I420 {
        return frame.to_vec();
    }
    let ysz = (f.width * f.height) as usize;
    let mut out = frame[..ysz].to_vec();
    let c = &frame[ysz..];
    out.extend(c.iter().step_by(2));
    out.extend(c.iter().skip(1).step_by(2));
    out
}
