// SPDX-License-Identifier: GPL-2.0-only
//! The encoder configuration the driver builds from the V4L2 controls, and the
//! per-frame parameters, with their validation.

use super::error::{Error, Result};

/// Rate control modes.
pub mod rc_mode {
    /// Constant QP (qp_i, qp_p).
    pub const CQP: u8 = 0;
    /// Constant bit rate.
    pub const CBR: u8 = 1;
    /// Variable bit rate, peak limited.
    pub const VBR: u8 = 2;
    /// Constant QP (qp_i, qp_p) that a frame may override with its own QP.
    pub const CLIENT: u8 = 3;
    /// Constant quality: qp_i and qp_p, raised only where a picture would
    /// make any one-second window exceed `max_bitrate` (0: no peak).
    pub const CQ: u8 = 4;
}

/// Stream configuration, set before the first frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Config {
    /// Visible width in luma samples (multiple of 2).
    pub width: u16,
    /// Visible height in luma samples (multiple of 2).
    pub height: u16,
    /// Frame rate numerator (frames per fps_den seconds).
    pub fps_num: u32,
    /// Frame rate denominator.
    pub fps_den: u32,
    /// profile_idc: 66 (constrained baseline), 77 (main) or 100 (high).
    pub profile_idc: u8,
    /// level_idc, 0 to choose the lowest that fits.
    pub level_idc: u8,
    /// CABAC (main and high only).
    pub entropy_cabac: u8,
    /// 8x8 transform (high only).
    pub transform_8x8: u8,
    /// constrained_intra_pred_flag.
    pub constrained_intra_pred: u8,
    /// chroma_qp_index_offset, -12..12.
    pub chroma_qp_index_offset: i8,
    /// disable_deblocking_filter_idc, 0..2.
    pub disable_deblocking_filter_idc: u8,
    /// slice_alpha_c0_offset_div2, -6..6.
    pub slice_alpha_c0_offset_div2: i8,
    /// slice_beta_offset_div2, -6..6.
    pub slice_beta_offset_div2: i8,
    /// cabac_init_idc, 0..2.
    pub cabac_init_idc: u8,
    /// Macroblock rows per slice, 0 for one slice per picture.
    pub slice_mb_rows: u16,
    /// pic_order_cnt_type, 0 or 2.
    pub poc_type: u8,
    /// log2_max_frame_num_minus4, 0..12.
    pub log2_max_frame_num_minus4: u8,
    /// Frames between IDR pictures, 0 for only the first.
    pub idr_period: u32,
    /// Temporal layers, 1..3.
    pub temporal_layers: u8,
    /// Rate control mode: `H264ENC_RC_CQP`, `H264ENC_RC_CBR`, `H264ENC_RC_VBR`,
    /// `H264ENC_RC_CLIENT` or `H264ENC_RC_CQ`.
    pub rc_mode: u8,
    /// Append filler data to keep CBR streams exact.
    pub filler: u8,
    /// Write an access unit delimiter before every picture.
    pub aud: u8,
    /// Every this many frames a P frame references the long-term picture, 0 for none.
    pub ltr_period: u32,
    /// Target bit rate, bits/s (CBR, VBR).
    pub bitrate: u32,
    /// Peak bit rate, bits/s (VBR; CBR uses `bitrate`; CQ: the most any
    /// one-second window holds, 0 for no bound).
    pub max_bitrate: u32,
    /// CPB size in bits, 0 for one second at the peak rate.
    pub cpb_size: u32,
    /// QP of intra pictures (CQP, and client mode when a frame brings none).
    pub qp_i: u8,
    /// QP of P pictures (CQP).
    pub qp_p: u8,
    /// Lowest QP rate control may choose.
    pub qp_min: u8,
    /// Highest QP rate control may choose.
    pub qp_max: u8,
    /// Largest QP change between pictures (0 for no limit).
    pub max_qp_step: u8,
    /// colour_primaries, transfer_characteristics, matrix_coefficients; 0 for none signalled.
    pub colour_primaries: u8,
    /// transfer_characteristics.
    pub transfer_characteristics: u8,
    /// matrix_coefficients.
    pub matrix_coefficients: u8,
    /// video_full_range_flag.
    pub full_range: u8,
    /// Reference frames the hardware can use per P picture (the H1: 1).
    pub max_refs_per_frame: u8,
    /// Long-term references, 0 or 1: with 1 every IDR picture is marked
    /// long-term (`V4L2_CID_MPEG_VIDEO_LTR_COUNT`).
    pub ltr_count: u8,
    /// 1 to write the SPS and PPS only before the first IDR picture and
    /// before one whose SPS changed; 0 before every IDR picture
    /// (`V4L2_CID_MPEG_VIDEO_PREPEND_SPSPPS_TO_IDR` = 1).
    pub omit_param_sets: u8,
    /// Bits/s of each temporal layer's own pictures, base layer first
    /// (`V4L2_CID_MPEG_VIDEO_H264_HIER_CODING_L0_BR` ..); all zero for no
    /// split. With a split, layers below `temporal_layers` have a rate, the
    /// others none, and the rates add up to `bitrate` (CBR, VBR).
    pub layer_bitrate: [u32; 3],
}

/// The total of a split between temporal layers (rates or shares, base
/// first) when it has the shape of `layers` layers: more than one, every
/// layer of the pattern with a value and none above it; None otherwise.
pub fn layer_split_total(split: &[u32; 3], layers: u8) -> Option<u64> {
    let n = usize::from(layers);
    let shaped = n > 1
        && split
            .iter()
            .zip(0usize..3)
            .all(|(&v, k)| (k < n) == (v != 0));
    shaped.then(|| {
        split
            .iter()
            .fold(0u64, |a, &v| a.saturating_add(u64::from(v)))
    })
}

/// Largest picture side the core accepts, in samples.
pub const MAX_SIDE: u16 = 4096;

impl Config {
    /// Width in macroblocks.
    pub fn width_mbs(&self) -> u32 {
        u32::from(self.width).div_ceil(16)
    }

    /// Height in macroblocks.
    pub fn height_mbs(&self) -> u32 {
        u32::from(self.height).div_ceil(16)
    }

    /// Checks every field; the core refuses what it cannot code exactly.
    pub fn validate(&self) -> Result {
        let bad = self.width < 16
            || self.height < 16
            || self.width > MAX_SIDE
            || self.height > MAX_SIDE
            || self.width % 2 != 0
            || self.height % 2 != 0
            || self.fps_num == 0
            || self.fps_den == 0
            || !matches!(self.profile_idc, 66 | 77 | 100)
            || (self.entropy_cabac != 0 && self.profile_idc == 66)
            || (self.transform_8x8 != 0 && self.profile_idc != 100)
            || self.entropy_cabac > 1
            || self.transform_8x8 > 1
            || self.constrained_intra_pred > 1
            || !(-12..=12).contains(&self.chroma_qp_index_offset)
            || self.disable_deblocking_filter_idc > 2
            || !(-6..=6).contains(&self.slice_alpha_c0_offset_div2)
            || !(-6..=6).contains(&self.slice_beta_offset_div2)
            || self.cabac_init_idc > 2
            || u32::from(self.slice_mb_rows) > self.height_mbs()
            || !matches!(self.poc_type, 0 | 2)
            || self.log2_max_frame_num_minus4 > 12
            || !(1..=3).contains(&self.temporal_layers)
            || self.rc_mode > 4
            || self.filler > 1
            || self.aud > 1
            || self.full_range > 1
            || self.qp_i > 51
            || self.qp_p > 51
            || self.qp_min > self.qp_max
            || self.qp_max > 51
            || self.max_refs_per_frame == 0
            || self.max_refs_per_frame > 16
            || self.ltr_count > 1
            || (self.ltr_period != 0 && self.ltr_count == 0)
            || self.omit_param_sets > 1;
        if bad {
            return Err(Error::InvalidParam);
        }
        if matches!(self.rc_mode, 1 | 2) {
            let peak = if self.rc_mode == 1 {
                self.bitrate
            } else {
                self.max_bitrate
            };
            if self.bitrate < 1000 || peak < self.bitrate {
                return Err(Error::InvalidParam);
            }
        }
        if self.filler != 0 && self.rc_mode != 1 {
            return Err(Error::InvalidParam);
        }
        if self.layer_bitrate != [0; 3] {
            let ok = matches!(self.rc_mode, 1 | 2)
                && layer_split_total(&self.layer_bitrate, self.temporal_layers)
                    == Some(u64::from(self.bitrate));
            if !ok {
                return Err(Error::InvalidParam);
            }
        }
        Ok(())
    }

    /// Each temporal layer's share of the bit rate in 1/65536, adding up
    /// to exactly 65536 (all zero without a split); call after `validate`.
    pub fn layer_shares_q16(&self) -> [u32; 3] {
        let mut shares = [0u32; 3];
        if self.layer_bitrate == [0; 3] || self.bitrate == 0 {
            return shares;
        }
        let mut given = 0u32;
        let mut last = 0;
        for ((s, &r), k) in shares.iter_mut().zip(&self.layer_bitrate).zip(0usize..3) {
            // r <= bitrate (validated), so the share is at most 65536.
            *s = ((u64::from(r) << 16) / u64::from(self.bitrate)) as u32;
            given = given.saturating_add(*s);
            if r != 0 {
                last = k;
            }
        }
        // Rounding down leaves a remainder; the top layer takes it.
        if let Some(s) = shares.get_mut(last) {
            *s = s.saturating_add(65536u32.saturating_sub(given));
        }
        shares
    }
}

/// Per-frame flags.
pub mod frame_flags {
    /// Code this picture as an IDR.
    pub const FORCE_IDR: u32 = 1 << 0;
    /// The client saw a scene change before this picture.
    pub const SCENE_CHANGE: u32 = 1 << 1;
    /// Predict from the picture named by `reference_ts` instead of the default.
    pub const REFERENCE_TS: u32 = 1 << 2;
    /// The client gives this picture's QP in `qp` (client rate control).
    pub const QP: u32 = 1 << 3;
    /// Mark this picture long-term, in place of the long-term picture held
    /// (`Config::ltr_count` 1; a reference picture only).
    pub const MARK_LONG_TERM: u32 = 1 << 4;
    /// All flags the core knows.
    pub const ALL: u32 = FORCE_IDR | SCENE_CHANGE | REFERENCE_TS | QP | MARK_LONG_TERM;
}

/// Parameters of one frame, from the request's controls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct FrameParams {
    /// Timestamp of the source (OUTPUT) buffer, nanoseconds.
    pub timestamp: u64,
    /// Timestamp of the source buffer of the picture to predict from, with
    /// `H264ENC_FRAME_REFERENCE_TS`.
    pub reference_ts: u64,
    /// Frame flags: `H264ENC_FRAME_FORCE_IDR`, `H264ENC_FRAME_SCENE_CHANGE`,
    /// `H264ENC_FRAME_REFERENCE_TS`, `H264ENC_FRAME_QP`,
    /// `H264ENC_FRAME_MARK_LONG_TERM`.
    pub flags: u32,
    /// QP of this picture with `H264ENC_FRAME_QP`, 0..51.
    pub qp: u8,
    /// Must be zero.
    pub reserved: [u8; 3],
}

impl FrameParams {
    /// Checks the fields.
    pub fn validate(&self) -> Result {
        if self.flags & !frame_flags::ALL != 0 || self.qp > 51 || self.reserved != [0; 3] {
            return Err(Error::InvalidParam);
        }
        Ok(())
    }
}
