//! The element's settings, its property values, and what they ask of the
//! stream: the rate-control mode, the profile among those downstream
//! accepts, the stream configuration and its peak rate.

use gst::glib;
use h264enc_client::device::PixelFormat;
use h264enc_client::session::{Profile, RcMode, StreamConfig};
use h264enc_client::units::CpbSize;

/// Rate-control modes (the `rate-control` property).
#[derive(Debug, Eq, PartialEq, Ord, PartialOrd, Hash, Clone, Copy, glib::Enum)]
#[repr(u32)]
#[enum_type(name = "GstV4l2SlH264EncRateControl")]
pub enum RateControl {
    /// Constant QP (`quantizer`).
    #[enum_value(name = "Constant QP", nick = "cqp")]
    Cqp = 0,
    /// Constant bit rate with an HRD (`bitrate`, `cpb-size`, `filler`).
    #[enum_value(name = "Constant bit rate", nick = "cbr")]
    Cbr = 1,
    /// Variable bit rate: average `bitrate`, peak 1.5 x.
    #[enum_value(name = "Variable bit rate", nick = "vbr")]
    Vbr = 2,
    /// Constant quality (`quality`), which the device maps to a QP.
    #[enum_value(name = "Constant quality", nick = "cq")]
    Cq = 3,
}

/// Property values (names as in the 2023 RFC's `v4l2slh264enc` where they overlap).
#[derive(Clone, Debug)]
pub(super) struct Settings {
    pub(super) device: String,
    pub(super) bitrate: u32,
    pub(super) max_bitrate: u32,
    pub(super) rate_control: RateControl,
    pub(super) qp_min: u32,
    pub(super) qp_max: u32,
    pub(super) quantizer: u32,
    pub(super) quality: u32,
    pub(super) keyframe_interval: u32,
    pub(super) cabac: bool,
    pub(super) cabac_init_idc: u32,
    pub(super) cpb_size: u32,
    pub(super) filler: bool,
    pub(super) ltr_period: u32,
    pub(super) temporal_layers: u32,
    pub(super) layer_split: String,
    pub(super) in_flight: u32,
    /// Threads of the software H1 (device=virtual); 0: one per CPU.
    pub(super) threads: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            device: "virtual".into(),
            bitrate: 2_000_000,
            max_bitrate: 0,
            rate_control: RateControl::Cbr,
            qp_min: 10,
            qp_max: 51,
            quantizer: 26,
            quality: 50,
            keyframe_interval: 0,
            cabac: false,
            cabac_init_idc: 0,
            cpb_size: 1000,
            filler: false,
            ltr_period: 0,
            temporal_layers: 1,
            layer_split: String::new(),
            in_flight: 2,
            threads: 1,
        }
    }
}

/// The profiles the element codes, as caps name them, in its order of
/// preference when downstream leaves the choice open.
pub(super) const CAPS_PROFILES: [&str; 4] = ["constrained-baseline", "baseline", "main", "high"];

/// The profile to code, and the name the output caps give it: the one the
/// settings ask for (`cabac`: main, else constrained-baseline) when
/// downstream accepts it, else the first of `CAPS_PROFILES` downstream
/// accepts. A constrained-baseline stream is a baseline one: downstream that
/// takes only `baseline` gets it under that name.
pub(super) fn choose_profile(s: &Settings, allowed: Option<&gst::Caps>) -> (Profile, &'static str) {
    let wanted = if s.cabac {
        "main"
    } else {
        "constrained-baseline"
    };
    let accepts = |name: &str| -> bool {
        let Some(caps) = allowed else { return true };
        caps.iter().any(|st| match st.value("profile") {
            Err(_) => true,
            Ok(v) => match v.get::<&str>() {
                Ok(p) => p == name,
                Err(_) => v
                    .get::<gst::List>()
                    .is_ok_and(|l| l.iter().any(|x| x.get::<&str>() == Ok(name))),
            },
        })
    };
    let name = if accepts(wanted) {
        wanted
    } else {
        CAPS_PROFILES
            .into_iter()
            .find(|p| accepts(p))
            .unwrap_or(wanted)
    };
    let profile = match name {
        "main" => Profile::Main,
        "high" => Profile::High,
        _ => Profile::Baseline,
    };
    (profile, name)
}

/// The stream the settings ask for at `width`x`height`; Err for a setting
/// that cannot be right at any size.
pub(super) fn stream_config(
    s: &Settings,
    width: u32,
    height: u32,
    (fps_num, fps_den): (u32, u32),
    format: PixelFormat,
    profile: Profile,
) -> Result<StreamConfig, String> {
    let layer_split = if s.layer_split.trim().is_empty() {
        None
    } else {
        Some(
            s.layer_split
                .split(',')
                .map(|p| p.trim().parse::<u32>())
                .collect::<Result<Vec<u32>, _>>()
                .map_err(|_| {
                    format!(
                        "layer-split '{}' is not a list of percentages such as 40,20,40",
                        s.layer_split
                    )
                })?,
        )
    };
    Ok(StreamConfig {
        width,
        height,
        fps_num,
        fps_den,
        format,
        rc: Some(match s.rate_control {
            RateControl::Cqp => RcMode::Cqp,
            RateControl::Cbr => RcMode::Cbr,
            RateControl::Vbr => RcMode::Vbr,
            RateControl::Cq => RcMode::Cq,
        }),
        bitrate: Some(u64::from(s.bitrate)),
        max_bitrate: peak_of(s).map(u64::from),
        cpb_size: Some(CpbSize::Millis(u64::from(s.cpb_size))),
        filler: s.filler && s.rate_control == RateControl::Cbr,
        qp: Some(s.quantizer as u8),
        quality: (s.rate_control == RateControl::Cq).then_some(s.quality as u8),
        qp_min: s.qp_min as u8,
        qp_max: s.qp_max as u8,
        gop: s.keyframe_interval,
        profile,
        cabac: Some(s.cabac),
        cabac_init_idc: s.cabac_init_idc as u8,
        // High: its 8x8 transform, as h264enc --profile high has it.
        transform_8x8: Some(profile == Profile::High),
        slices: 1,
        ltr_period: s.ltr_period,
        long_term: s.ltr_period > 0,
        temporal_layers: s.temporal_layers as u8,
        layer_split,
        client_rc: false,
        virtual_h1: s.device == "virtual",
    })
}

/// The peak the settings ask for: `max-bitrate`, or by default the mode's
/// (VBR: 1.5 x the bit rate; CBR: the bit rate; CQ: none).
pub(super) fn peak_of(s: &Settings) -> Option<u32> {
    match (s.rate_control, s.max_bitrate) {
        (RateControl::Cbr, _) => Some(s.bitrate),
        (RateControl::Cq, 0) => None,
        (rc, 0) => Some(peak(rc, s.bitrate)),
        (_, p) => Some(p),
    }
}

/// The peak rate a mode signals for `bitrate`.
fn peak(rc: RateControl, bitrate: u32) -> u32 {
    if rc == RateControl::Vbr {
        bitrate.saturating_add(bitrate / 2)
    } else {
        bitrate
    }
}
