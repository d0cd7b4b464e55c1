//! A stream's configuration on a stateless encoder device: the checks a user
//! gets a message from, then the format and controls in the order
//! `Documentation/userspace-api/media/v4l/dev-stateless-encoder.rst` gives,
//! and streaming started. Shared by the command line and the GStreamer element.

use crate::device::{Device, PixelFormat};
use crate::units::CpbSize;
use v4l2_h264enc_uapi::*;

/// Rate control modes of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum RcMode {
    Cqp,
    Cbr,
    Vbr,
    /// Constant quality (`--quality`), the device's own mapping to a QP.
    Cq,
}

/// H.264 profiles of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Profile {
    Baseline,
    Main,
    High,
}

/// What a stream is to be: size, rate, pixel format and the encoder's settings.
#[derive(Clone, Debug)]
pub struct StreamConfig {
    pub width: u32,
    pub height: u32,
    pub fps_num: u32,
    pub fps_den: u32,
    pub format: PixelFormat,
    /// None: CBR when a bit rate is given, else constant QP.
    pub rc: Option<RcMode>,
    pub bitrate: Option<u64>,
    pub max_bitrate: Option<u64>,
    pub cpb_size: Option<CpbSize>,
    pub filler: bool,
    pub qp: Option<u8>,
    /// Constant quality, 1 (lowest) to 100, in `RcMode::Cq` (default 50).
    pub quality: Option<u8>,
    pub qp_min: u8,
    pub qp_max: u8,
    pub gop: u32,
    pub profile: Profile,
    pub cabac: Option<bool>,
    /// cabac_init_idc of P slices (CABAC), 0..2.
    pub cabac_init_idc: u8,
    /// The 8x8 transform; by default with the High profile.
    pub transform_8x8: Option<bool>,
    pub slices: u32,
    pub ltr_period: u32,
    /// The encoder holds a long-term reference (LTR_COUNT 1).
    pub long_term: bool,
    pub temporal_layers: u8,
    /// Percent of the bit rate each temporal layer's own pictures take, base
    /// first; None for [`DEFAULT_LAYER_SPLIT`].
    pub layer_split: Option<Vec<u32>>,
    /// The client gives every frame's QP (frame rate control off in the device).
    pub client_rc: bool,
    /// The device is the software H1 (which codes CAVLC only so far).
    pub virtual_h1: bool,
}

impl StreamConfig {
    /// A `width`x`height` I420 stream at 30 frames per second with the
    /// command line's defaults: constant QP 26, no IDR after the first,
    /// Constrained Baseline, one slice, one layer.
    pub fn new(width: u32, height: u32) -> Self {
        StreamConfig {
            width,
            height,
            fps_num: 30,
            fps_den: 1,
            format: PixelFormat::I420,
            rc: None,
            bitrate: None,
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
            long_term: false,
            temporal_layers: 1,
            layer_split: None,
            client_rc: false,
            virtual_h1: false,
        }
    }
}

/// The bit rate split of 2 and 3 temporal layers when none is given, percent
/// per layer, base first: WebRTC's allocation (60/40; 40/20/40), which gives
/// each prefix of layers about the quality of the full stream at its frame rate.
pub const DEFAULT_LAYER_SPLIT: [&[u32]; 2] = [&[60, 40], &[40, 20, 40]];

/// Each temporal layer's own bit rate: `bitrate` split as `c` asks (or the
/// default), the top layer taking what rounding leaves; empty without layers
/// or without a bit rate to split.
pub fn layer_rates(c: &StreamConfig, rc: RcMode, bitrate: u64) -> Result<Vec<u64>, String> {
    let n = usize::from(c.temporal_layers);
    let rate_controlled = !c.client_rc && matches!(rc, RcMode::Cbr | RcMode::Vbr);
    if c.layer_split.is_some() && (n < 2 || !rate_controlled) {
        return Err(
            "--layer-split needs --temporal-layers 2 or 3 and in-kernel rate control (--rc cbr or vbr)"
                .into(),
        );
    }
    if n < 2 || !rate_controlled {
        return Ok(Vec::new());
    }
    let split: Vec<u32> = match &c.layer_split {
        Some(s) => s.clone(),
        None => DEFAULT_LAYER_SPLIT[n - 2].to_vec(),
    };
    if split.len() != n || split.contains(&0) || split.iter().sum::<u32>() != 100 {
        return Err(format!(
            "--layer-split needs {n} percentages above 0 that add up to 100, one per layer (base first)"
        ));
    }
    let mut rates: Vec<u64> = split
        .iter()
        .map(|&p| bitrate * u64::from(p) / 100)
        .collect();
    let given: u64 = rates.iter().sum();
    if let Some(top) = rates.last_mut() {
        *top += bitrate - given;
    }
    Ok(rates)
}

/// `V4L2_CID_MPEG_VIDEO_BITRATE_PEAK` for constant quality without a peak:
/// the largest value hantro's control takes.
const CQ_NO_PEAK: i64 = 400_000_000;

/// What [`configure`] settled on.
#[derive(Clone, Debug)]
pub struct Configured {
    pub rc: RcMode,
    pub bitrate: u64,
    pub peak: u64,
    pub cpb_bits: u64,
    pub mb_w: u32,
    pub mb_h: u32,
    /// Each temporal layer's own bit rate, base first (empty without a split).
    pub layer_rates: Vec<u64>,
}

fn dev_err(what: &str, e: String) -> String {
    format!("the device refused {what}: {e}")
}

/// Checks `c`, configures `d` with it and starts streaming.
pub fn configure(d: &mut dyn Device, c: &StreamConfig) -> Result<Configured, String> {
    if !c.width.is_multiple_of(2)
        || !c.height.is_multiple_of(2)
        || c.width > 4080
        || c.height > 4080
        || c.width < 16
        || c.height < 16
    {
        return Err(format!(
            "{}x{} is outside what the H1 codes: width and height 16..4080 in steps of 2 (4:2:0 and the SPS crop count two samples)",
            c.width, c.height
        ));
    }
    let rc = match (c.rc, c.bitrate) {
        (Some(m), _) => m,
        (None, Some(_)) => RcMode::Cbr,
        (None, None) => RcMode::Cqp,
    };
    if matches!(rc, RcMode::Cbr | RcMode::Vbr) && c.bitrate.is_none() {
        return Err(format!(
            "--rc {} needs --bitrate",
            if rc == RcMode::Cbr { "cbr" } else { "vbr" }
        ));
    }
    if c.quality.is_some() && rc != RcMode::Cq {
        return Err("--quality applies to --rc cq only".into());
    }
    if c.quality.is_some_and(|q| !(1..=100).contains(&q)) {
        return Err("--quality must be 1 (lowest) to 100".into());
    }
    if c.filler && rc != RcMode::Cbr {
        return Err("--filler applies to --rc cbr only".into());
    }
    if c.client_rc && c.bitrate.is_none() {
        return Err("--client-rc needs --bitrate: the client's rate control aims at it".into());
    }
    if c.qp_min > c.qp_max || c.qp_max > 51 || c.qp.is_some_and(|q| q > 51) {
        return Err("QPs must satisfy 0 <= --qp-min <= --qp-max <= 51 and --qp <= 51".into());
    }
    let cabac = c.cabac.unwrap_or(c.profile != Profile::Baseline);
    if cabac && c.profile == Profile::Baseline {
        return Err("--cabac needs --profile main or high".into());
    }
    if c.cabac_init_idc > 2 {
        return Err("--cabac-init-idc must be 0, 1 or 2".into());
    }
    let transform_8x8 = c.transform_8x8.unwrap_or(c.profile == Profile::High);
    if transform_8x8 && c.profile != Profile::High {
        return Err("--transform-8x8 needs --profile high".into());
    }
    let mb_w = c.width.div_ceil(16);
    let mb_h = c.height.div_ceil(16);
    if c.slices == 0 || c.slices > mb_h {
        return Err(format!(
            "--slices must be 1..{mb_h} for this height (the H1 cuts slices at macroblock rows)"
        ));
    }

    d.set_format(c.width, c.height, c.format, c.fps_num, c.fps_den)
        .map_err(|e| dev_err("the format", e))?;
    let set = |d: &mut dyn Device, id: u32, v: i64, what: &str| -> Result<(), String> {
        let v = i32::try_from(v).map_err(|_| format!("{what} {v} is out of range"))?;
        d.set_ctrl(id, v).map_err(|e| dev_err(what, e))
    };
    let bitrate = c.bitrate.unwrap_or(0);
    let peak = c.max_bitrate.unwrap_or(if rc == RcMode::Vbr {
        bitrate * 3 / 2
    } else {
        bitrate
    });
    let cpb_bits = c.cpb_size.map(|c| c.bits(peak)).unwrap_or(peak);
    let layer_rates = layer_rates(c, rc, bitrate)?;
    let (profile, profile_idc) = match c.profile {
        Profile::Baseline => (V4L2_MPEG_VIDEO_H264_PROFILE_CONSTRAINED_BASELINE, 66),
        Profile::Main => (V4L2_MPEG_VIDEO_H264_PROFILE_MAIN, 77),
        Profile::High => (V4L2_MPEG_VIDEO_H264_PROFILE_HIGH, 100),
    };
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_PROFILE,
        i64::from(profile),
        "--profile",
    )?;
    let level = lowest_level(c, rc, profile_idc, peak, cpb_bits)
        .and_then(level_menu)
        .ok_or_else(|| {
            format!(
                "{}x{} at this rate fits no H.264 level up to 5.1",
                c.width, c.height
            )
        })?;
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_LEVEL,
        i64::from(level),
        "the level",
    )?;
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_ENTROPY_MODE,
        i64::from(if cabac {
            V4L2_MPEG_VIDEO_H264_ENTROPY_MODE_CABAC
        } else {
            V4L2_MPEG_VIDEO_H264_ENTROPY_MODE_CAVLC
        }),
        "--cabac",
    )?;
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_8X8_TRANSFORM,
        i64::from(transform_8x8),
        "--transform-8x8",
    )?;
    set(d, V4L2_CID_MPEG_VIDEO_GOP_SIZE, i64::from(c.gop), "--gop")?;
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_MIN_QP,
        i64::from(c.qp_min),
        "--qp-min",
    )?;
    set(
        d,
        V4L2_CID_MPEG_VIDEO_H264_MAX_QP,
        i64::from(c.qp_max),
        "--qp-max",
    )?;
    let qp = c.qp.unwrap_or(26);
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
    if c.slices > 1 {
        let rows = mb_h.div_ceil(c.slices);
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
    if c.temporal_layers > 1 {
        set(
            d,
            V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING,
            1,
            "--temporal-layers",
        )?;
        set(
            d,
            V4L2_CID_MPEG_VIDEO_H264_HIERARCHICAL_CODING_LAYER,
            i64::from(c.temporal_layers),
            "--temporal-layers",
        )?;
    }
    // Set only when it is not the default, so that CABAC with idc 0 works on
    // drivers without the control.
    if cabac && c.cabac_init_idc != 0 {
        set(
            d,
            V4L2_CID_STATELESS_H264_ENCODE_CABAC_INIT_IDC,
            i64::from(c.cabac_init_idc),
            "--cabac-init-idc",
        )?;
    }
    if c.long_term || c.ltr_period > 0 {
        set(d, V4L2_CID_MPEG_VIDEO_LTR_COUNT, 1, "--ltr-period")?;
    }
    if c.ltr_period > 0 {
        set(
            d,
            V4L2_CID_STATELESS_H264_ENCODE_LTR_PERIOD,
            i64::from(c.ltr_period),
            "--ltr-period",
        )?;
    }
    if c.client_rc || rc == RcMode::Cqp {
        // Without frame-level rate control the device codes I_FRAME_QP and
        // P_FRAME_QP, or the QP a request brings.
        set(d, V4L2_CID_MPEG_VIDEO_FRAME_RC_ENABLE, 0, "--qp")?;
    } else if rc == RcMode::Cq {
        set(
            d,
            V4L2_CID_MPEG_VIDEO_BITRATE_MODE,
            i64::from(V4L2_MPEG_VIDEO_BITRATE_MODE_CQ),
            "--rc cq",
        )?;
        set(
            d,
            V4L2_CID_MPEG_VIDEO_CONSTANT_QUALITY,
            i64::from(c.quality.unwrap_or(50)),
            "--quality",
        )?;
        // The peak bounds every one-second window; without one, the
        // control's largest value bounds nothing.
        set(
            d,
            V4L2_CID_MPEG_VIDEO_BITRATE_PEAK,
            c.max_bitrate.map_or(CQ_NO_PEAK, |p| p as i64),
            "--max-bitrate",
        )?;
    } else {
        let mode = if rc == RcMode::Vbr {
            V4L2_MPEG_VIDEO_BITRATE_MODE_VBR
        } else {
            V4L2_MPEG_VIDEO_BITRATE_MODE_CBR
        };
        set(d, V4L2_CID_MPEG_VIDEO_BITRATE_MODE, i64::from(mode), "--rc")?;
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
            i64::from(c.filler),
            "--filler",
        )?;
        const LAYER_BR: [u32; 3] = [
            V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L0_BR,
            V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L1_BR,
            V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L2_BR,
        ];
        for (&id, &r) in LAYER_BR.iter().zip(&layer_rates) {
            set(d, id, r as i64, "--layer-split")?;
        }
    }
    d.start().map_err(|e| dev_err("the configuration", e))?;
    Ok(Configured {
        rc,
        bitrate,
        peak,
        cpb_bits,
        mb_w,
        mb_h,
        layer_rates,
    })
}

/// The lowest level that holds the stream, as the device's core judges it:
/// V4L2's level control has no "automatic" value.
fn lowest_level(
    c: &StreamConfig,
    rc: RcMode,
    profile_idc: u8,
    peak: u64,
    cpb_bits: u64,
) -> Option<u8> {
    use h264enc::config::{rc_mode, Config};
    let (rc_mode, bitrate, max_bitrate, cpb_size) = match (c.client_rc, rc) {
        (false, RcMode::Cbr) => (rc_mode::CBR, peak, peak, cpb_bits),
        (false, RcMode::Vbr) => (rc_mode::VBR, c.bitrate.unwrap_or(0), peak, cpb_bits),
        _ => (rc_mode::CQP, 0, 0, 0),
    };
    let cfg = Config {
        width: u16::try_from(c.width).ok()?,
        height: u16::try_from(c.height).ok()?,
        fps_num: c.fps_num,
        fps_den: c.fps_den,
        profile_idc,
        rc_mode,
        bitrate: u32::try_from(bitrate).ok()?,
        max_bitrate: u32::try_from(max_bitrate).ok()?,
        cpb_size: u32::try_from(cpb_size).ok()?,
        temporal_layers: c.temporal_layers.max(1),
        ltr_count: u8::from(c.long_term || c.ltr_period > 0),
        ltr_period: c.ltr_period,
        max_refs_per_frame: 1,
        ..Config::default()
    };
    h264enc::level::choose(&h264enc::encoder::level_needs(&cfg).ok()?)
}

/// The `V4L2_CID_MPEG_VIDEO_H264_LEVEL` menu entry of `level_idc`.
fn level_menu(level_idc: u8) -> Option<u32> {
    Some(match level_idc {
        10 => V4L2_MPEG_VIDEO_H264_LEVEL_1_0,
        11 => V4L2_MPEG_VIDEO_H264_LEVEL_1_1,
        12 => V4L2_MPEG_VIDEO_H264_LEVEL_1_2,
        13 => V4L2_MPEG_VIDEO_H264_LEVEL_1_3,
        20 => V4L2_MPEG_VIDEO_H264_LEVEL_2_0,
        21 => V4L2_MPEG_VIDEO_H264_LEVEL_2_1,
        22 => V4L2_MPEG_VIDEO_H264_LEVEL_2_2,
        30 => V4L2_MPEG_VIDEO_H264_LEVEL_3_0,
        31 => V4L2_MPEG_VIDEO_H264_LEVEL_3_1,
        32 => V4L2_MPEG_VIDEO_H264_LEVEL_3_2,
        40 => V4L2_MPEG_VIDEO_H264_LEVEL_4_0,
        41 => V4L2_MPEG_VIDEO_H264_LEVEL_4_1,
        42 => V4L2_MPEG_VIDEO_H264_LEVEL_4_2,
        50 => V4L2_MPEG_VIDEO_H264_LEVEL_5_0,
        51 => V4L2_MPEG_VIDEO_H264_LEVEL_5_1,
        _ => return None,
    })
}
