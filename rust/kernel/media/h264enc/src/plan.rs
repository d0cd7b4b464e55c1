// SPDX-License-Identifier: GPL-2.0-only
//! The frame plan the driver programs the hardware from, the hardware feedback
//! it hands back, and what the core reports when a frame completes.

/// Slice types of the plan (slice_type % 5).
pub mod slice_type {
    /// P slice.
    pub const P: u8 = 0;
    /// I slice.
    pub const I: u8 = 2;
}

/// Number of H1 checkpoints.
pub const H264ENC_CHECKPOINTS: usize = 10;

/// Everything the driver needs to program one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct FramePlan {
    /// Index of the frame in coding order.
    pub frame_index: u64,
    /// Timestamp of the source buffer of the reference, when `ref_slot` is valid.
    pub reference_ts: u64,
    /// frame_num.
    pub frame_num: u32,
    /// pic_order_cnt_lsb (POC type 0).
    pub poc_lsb: u32,
    /// abs_diff_pic_num_minus1 or long_term_pic_num of the list modification.
    pub ref_mod_value: u32,
    /// Bits the picture should take, 0 without a target.
    pub target_bits: u32,
    /// idr_pic_id.
    pub idr_pic_id: u16,
    /// slice_type % 5: 0 for a P slice, 2 for an I slice.
    pub slice_type: u8,
    /// 1 for an IDR picture.
    pub idr: u8,
    /// nal_ref_idc of the slices.
    pub nal_ref_idc: u8,
    /// temporal_id.
    pub temporal_id: u8,
    /// 1 to mark the picture long-term (IDR flag or MMCO 6).
    pub mark_long_term: u8,
    /// modification_of_pic_nums_idc + 1 of the one list modification, 0 for none.
    pub ref_mod_idc_plus1: u8,
    /// Reconstruction slot to write.
    pub rec_slot: u8,
    /// Reconstruction slot to predict from, 0xff for intra pictures.
    pub ref_slot: u8,
    /// Slice QP.
    pub qp: u8,
    /// Lowest macroblock QP.
    pub qp_min: u8,
    /// Highest macroblock QP.
    pub qp_max: u8,
    /// 1 when the core writes SPS and PPS in front of this picture.
    pub with_parameter_sets: u8,
    /// MAD threshold per sample of the in-frame control; 0 for none.
    pub mad_threshold: u8,
    /// QP added to macroblocks under the MAD threshold.
    pub mad_qp_adjust: i8,
    /// MaxMvsPer2Mb of the stream's level (Table A-1), 0 for no limit: the
    /// hardware may use sub-8x8 partitions (16 vectors per macroblock) only
    /// when this is 0 or at least 32.
    pub max_mvs_per_2mb: u8,
    /// Macroblocks between checkpoints of the in-frame control; 0 for none.
    pub checkpoint_distance: u16,
    /// Cumulative checkpoint targets, 32-bit words.
    pub checkpoint_targets: [u16; H264ENC_CHECKPOINTS],
    /// Word-error thresholds of the QP-delta ladder, ascending.
    pub checkpoint_word_err: [i16; 6],
    /// QP deltas of the seven error ranges.
    pub checkpoint_delta_qp: [i8; 7],
    /// Entries of RefPicList0 the hardware may use (num_ref_idx_l0_active), 0 for intra.
    pub num_ref_idx_active: u8,
    /// Must be zero.
    pub reserved2: [u8; 2],
    /// Reconstruction slots of RefPicList0 in list order (after the modification);
    /// entry 0 is `ref_slot`.
    pub ref_list_slots: [u8; 16],
}

/// What the hardware reported for a frame (read from its registers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct HwFeedback {
    /// Bits of slice data the hardware wrote.
    pub stream_bits: u32,
    /// Sum of the macroblock QPs.
    pub qp_sum: u32,
    /// Non-zero coefficients coded.
    pub rlc_count: u32,
    /// Macroblocks under the MAD threshold.
    pub mad_count: u32,
    /// Slices the hardware completed.
    pub slices: u32,
    /// Checkpoint results, bits of macroblock data at each checkpoint reached.
    pub checkpoints: [u32; H264ENC_CHECKPOINTS],
}

/// What the core reports for a completed frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct FrameStatus {
    /// Bits of the access unit, headers and filler included.
    pub au_bits: u32,
    /// Filler bytes the driver must append (a filler NAL unit of this size, or 0).
    pub filler_bytes: u32,
    /// CPB fullness before the next picture's removal, bits (0 without HRD).
    pub cpb_fullness: u32,
    /// Bits the rate controller aimed for.
    pub target_bits: u32,
    /// Average QP, Q8.
    pub qp_avg_q8: u32,
    /// frame_num of the picture's slices.
    pub frame_num: u32,
    /// PicOrderCnt of the picture (8.2.1).
    pub pic_order_cnt: i32,
    /// slice_type % 5.
    pub slice_type: u8,
    /// 1 for an IDR picture.
    pub idr: u8,
    /// nal_ref_idc.
    pub nal_ref_idc: u8,
    /// temporal_id.
    pub temporal_id: u8,
    /// 1 when the picture is marked "used for long-term reference".
    pub long_term: u8,
    /// `H264ENC_HRD_*` flags of this picture: the CPB model's verdict on it
    /// alone, not on the stream so far.
    pub hrd_flags: u8,
    /// Hardware runs the picture took: 1, or more when it was coded again
    /// at a coarser QP (a coding would have underflowed the CPB) or as an
    /// IDR picture (a P picture was a scene cut).
    pub passes: u8,
    /// 1 when no coding fitted the CPB and the core wrote the picture as
    /// skipped: every macroblock P_Skip, a copy of its reference picture.
    pub skipped: u8,
}

// Plain values: cbindgen copies the expression into C (see capi).
/// [`FrameStatus::hrd_flags`]: the picture had not fully arrived in the CPB at
/// its removal time (C.3.3).
pub const H264ENC_HRD_UNDERFLOW: u8 = 0x1;
/// [`FrameStatus::hrd_flags`]: the CPB overflowed while the picture arrived
/// (C.3.2).
pub const H264ENC_HRD_OVERFLOW: u8 = 0x2;

/// What to do with a planned frame after a hardware run of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replanned {
    /// Complete it with that run (`Encoder::complete_frame`).
    Complete,
    /// Run the hardware again with this plan, headers included.
    CodeAgain(FramePlan),
    /// Complete it as a skipped picture with this plan
    /// (`Encoder::complete_skipped`): the driver copies the
    /// reconstruction of `ref_slot` to `rec_slot` instead of a run.
    Skip(FramePlan),
}
