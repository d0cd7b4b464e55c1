// SPDX-License-Identifier: GPL-2.0-only
//! What a configuration makes of a stream before its first picture: the
//! picture-type policy, the HRD it signals, the level it needs, its
//! parameter sets and its rate controller.

use super::config::{rc_mode, Config};
use super::error::{Error, Result};
use super::gop::GopConfig;
use super::level::LevelNeeds;
use super::pps::PicParams;
use super::rc::cq::CappedCq;
use super::rc::cqp::Cqp;
use super::rc::frame::{FrameRc, FrameRcConfig};
use super::rc::Rc;
use super::sps::{Colour, Crop, Hrd, SeqParams};
use super::verify::PIC_INIT_QP;

/// The picture-type policy of `cfg`.
pub fn gop_of(cfg: &Config) -> GopConfig {
    GopConfig {
        idr_period: cfg.idr_period,
        temporal_layers: cfg.temporal_layers,
        long_term: cfg.ltr_count != 0,
        ltr_period: cfg.ltr_period,
    }
}

/// The HRD parameters the SPS of `cfg` signals, in CBR and VBR.
pub fn hrd_of(cfg: &Config) -> Result<Option<Hrd>> {
    if !matches!(cfg.rc_mode, rc_mode::CBR | rc_mode::VBR) {
        return Ok(None);
    }
    let peak = if cfg.rc_mode == rc_mode::VBR {
        cfg.max_bitrate
    } else {
        cfg.bitrate
    };
    let cpb = if cfg.cpb_size == 0 {
        peak
    } else {
        cfg.cpb_size
    };
    Ok(Some(Hrd::new(peak, cpb, cfg.rc_mode == rc_mode::CBR)?))
}

/// What the stream of `cfg` asks of a level (Annex A): a client that must
/// name the level (V4L2's level control has no "automatic") picks the
/// lowest that holds it with [`level::choose`].
pub fn level_needs(cfg: &Config) -> Result<LevelNeeds> {
    let hrd = hrd_of(cfg)?;
    Ok(LevelNeeds {
        width_mbs: cfg.width_mbs(),
        height_mbs: cfg.height_mbs(),
        fps_num: cfg.fps_num,
        fps_den: cfg.fps_den,
        bitrate: hrd.map_or(0, |h| h.bit_rate().min(u64::from(u32::MAX)) as u32),
        cpb_size: hrd.map_or(0, |h| h.cpb_size().min(u64::from(u32::MAX)) as u32),
        num_ref_frames: gop_of(cfg).num_ref_frames(cfg.max_refs_per_frame),
        high: cfg.profile_idc == 100,
    })
}

/// The SPS and PPS of the stream of `cfg` at `level_idc`, with `hrd`.
pub fn param_sets(
    cfg: &Config,
    level_idc: u8,
    hrd: Option<Hrd>,
    num_ref_frames: u32,
) -> Result<(SeqParams, PicParams)> {
    let (wm, hm) = (cfg.width_mbs(), cfg.height_mbs());
    let colour = if cfg.colour_primaries != 0 {
        Some(Colour {
            full_range: cfg.full_range != 0,
            primaries: cfg.colour_primaries,
            transfer: cfg.transfer_characteristics,
            matrix: cfg.matrix_coefficients,
        })
    } else {
        None
    };
    let sps = SeqParams {
        profile_idc: cfg.profile_idc,
        // Constrained Baseline sets constraint_set0 and 1; Main sets 1 (A.2).
        constraint_flags: match cfg.profile_idc {
            66 => 0xc0,
            77 => 0x40,
            _ => 0,
        },
        level_idc,
        sps_id: 0,
        log2_max_frame_num_minus4: cfg.log2_max_frame_num_minus4,
        pic_order_cnt_type: cfg.poc_type,
        log2_max_poc_lsb_minus4: 12,
        max_num_ref_frames: num_ref_frames as u8,
        gaps_in_frame_num_allowed: cfg.temporal_layers > 2,
        width_mbs: wm as u16,
        height_mbs: hm as u16,
        crop: Crop {
            // wm * 16 rounds the width up, so these are 0..=15.
            right: (wm * 16).saturating_sub(u32::from(cfg.width)) as u16,
            bottom: (hm * 16).saturating_sub(u32::from(cfg.height)) as u16,
        },
        num_units_in_tick: cfg.fps_den,
        time_scale: cfg.fps_num.checked_mul(2).ok_or(Error::InvalidParam)?,
        colour,
        nal_hrd: hrd,
        max_dec_frame_buffering: Some(num_ref_frames as u8),
    };
    let pps = PicParams {
        pps_id: 0,
        sps_id: 0,
        entropy_coding_mode_flag: cfg.entropy_cabac != 0,
        pic_init_qp_minus26: (PIC_INIT_QP - 26) as i8,
        chroma_qp_index_offset: cfg.chroma_qp_index_offset,
        constrained_intra_pred_flag: cfg.constrained_intra_pred != 0,
        transform_8x8_mode_flag: cfg.transform_8x8 != 0,
    };
    Ok((sps, pps))
}

/// The rate controller of `cfg`, with the HRD the stream signals.
pub fn rate_controller(cfg: &Config, hrd: Option<Hrd>) -> Result<Rc> {
    Ok(match (cfg.rc_mode, hrd) {
        (rc_mode::CBR | rc_mode::VBR, Some(h)) => Rc::Frame(FrameRc::new(
            FrameRcConfig {
                // CBR runs at exactly the signalled rate; VBR averages at most the peak.
                bitrate: if cfg.rc_mode == rc_mode::CBR {
                    h.bit_rate().min(u64::from(u32::MAX)) as u32
                } else {
                    cfg.bitrate
                        .min(h.bit_rate().min(u64::from(u32::MAX)) as u32)
                },
                max_bitrate: h.bit_rate().min(u64::from(u32::MAX)) as u32,
                cpb_size: h.cpb_size().min(u64::from(u32::MAX)) as u32,
                fps_num: cfg.fps_num,
                fps_den: cfg.fps_den,
                cbr: cfg.rc_mode == rc_mode::CBR,
                filler: cfg.filler != 0,
                qp_min: cfg.qp_min,
                qp_max: cfg.qp_max,
                max_qp_step: cfg.max_qp_step,
                pixels: u32::from(cfg.width) * u32::from(cfg.height),
                temporal_layers: cfg.temporal_layers,
                layer_share_q16: cfg.layer_shares_q16(),
            },
            // The CPB starts where the rate control keeps it: 7/8 full
            // with CBR filler, which takes off any excess, else 3/4.
            if cfg.rc_mode == rc_mode::CBR && cfg.filler != 0 {
                224
            } else {
                192
            },
        )?),
        (rc_mode::CQ, _) => Rc::Cq(CappedCq::new(
            cfg.qp_i,
            cfg.qp_p,
            cfg.max_bitrate,
            (cfg.fps_num, cfg.fps_den),
            u32::from(cfg.width) * u32::from(cfg.height),
        )?),
        // Client mode: every picture brings its QP (checked in plan_frame).
        _ => Rc::Cqp(Cqp {
            qp_i: cfg.qp_i,
            qp_p: cfg.qp_p,
            layer_offset: 1,
        }),
    })
}
