// SPDX-License-Identifier: GPL-2.0-only
//! Verification of what the hardware wrote against the frame plan.
//!
//! The hardware's output is untrusted: before the stream state moves on,
//! every slice header is parsed (7.3.3) and held against what the core
//! planned, and the statistics against what the plan allows.

use super::config::Config;
use super::error::{Error, Result};
use super::nal::START_CODE;
use super::plan::{slice_type, FramePlan, HwFeedback};
use super::pps::PicParams;
use super::rc::inframe::InFramePlan;
use super::slice_header::{self, ParseContext};
use super::sps::SeqParams;

/// pic_init_qp of the core's PPS: the slice QP is coded as its difference.
pub const PIC_INIT_QP: i32 = 26;

/// What the slices of every picture of the stream share.
#[derive(Clone, Copy, Debug)]
pub struct StreamParams<'a> {
    /// The stream's configuration.
    pub cfg: &'a Config,
    /// The active SPS.
    pub sps: &'a SeqParams,
    /// The active PPS.
    pub pps: &'a PicParams,
    /// Slices in each picture.
    pub slices: u32,
}

/// Checks the hardware's output for `plan` slice by slice: the NAL size
/// table, the statistics and every slice header field the plan decided.
pub fn check_frame(
    stream_cfg: &StreamParams<'_>,
    plan: &FramePlan,
    inframe: &InFramePlan,
    fb: &HwFeedback,
    stream: &[u8],
    nal_sizes: &[u32],
) -> Result {
    let StreamParams {
        cfg,
        sps,
        pps,
        slices,
    } = *stream_cfg;
    if nal_sizes.len() != slices as usize || fb.slices != slices {
        return Err(Error::NalTableMismatch);
    }
    // At most 1024 sizes of u32 (the C API checks): the sum fits in 42 bits.
    let total = nal_sizes
        .iter()
        .fold(0u64, |t, &s| t.saturating_add(u64::from(s)));
    if fb.stream_bits % 8 != 0
        || total != u64::from(fb.stream_bits / 8)
        || total > stream.len() as u64
    {
        return Err(Error::NalTableMismatch);
    }
    let mbs = cfg.width_mbs() * cfg.height_mbs();
    // The H1 reports the QP sum halved: an odd sum reads back one lower.
    if fb.qp_sum < (u32::from(plan.qp_min) * mbs) & !1 || fb.qp_sum > u32::from(plan.qp_max) * mbs {
        return Err(Error::PlanMismatch);
    }
    // In-frame statistics: results grow and stay within the bits written.
    let reached = inframe.reached(mbs);
    let results = fb.checkpoints.get(..reached).ok_or(Error::PlanMismatch)?;
    let grows = results.windows(2).all(|w| w.first() <= w.get(1));
    if !grows || results.last().is_some_and(|&r| r > fb.stream_bits) {
        return Err(Error::PlanMismatch);
    }
    if fb.mad_count > mbs || (inframe.mad_threshold == 0 && fb.mad_count != 0) {
        return Err(Error::PlanMismatch);
    }
    let ctx = ParseContext {
        log2_max_frame_num: u32::from(sps.log2_max_frame_num_minus4) + 4,
        poc_type: sps.pic_order_cnt_type,
        log2_max_poc_lsb: u32::from(sps.log2_max_poc_lsb_minus4) + 4,
        cabac: pps.entropy_coding_mode_flag,
        pic_size_in_mbs: mbs,
    };
    let rows = u32::from(cfg.slice_mb_rows);
    let mut off = 0usize;
    // The slice index: nal_sizes has at most 1024 entries (the C API
    // checks), so it cannot wrap.
    let mut i = 0u32;
    for &size in nal_sizes {
        let end = off.checked_add(size as usize).ok_or(Error::Truncated)?;
        let nal = stream.get(off..end).ok_or(Error::Truncated)?;
        off = end;
        let body = nal
            .strip_prefix(&START_CODE[..])
            .ok_or(Error::InvalidSyntax)?;
        let h = slice_header::parse(body, &ctx)?;
        let first_mb = if rows == 0 {
            0
        } else {
            i.saturating_mul(rows).saturating_mul(cfg.width_mbs())
        };
        let want_type = if plan.idr != 0 { 5 } else { 1 };
        let mods_ok = match plan.ref_mod_idc_plus1 {
            0 => h.num_list_mods == 0,
            idc => h.num_list_mods == 1 && h.list_mods[0] == (idc - 1, plan.ref_mod_value),
        };
        let marking_ok = if plan.idr != 0 {
            !h.no_output_of_prior_pics && h.long_term_reference == (plan.mark_long_term != 0)
        } else if plan.mark_long_term != 0 {
            h.num_mmcos == 1 && h.mmcos[0] == (6, 0)
        } else {
            h.num_mmcos == 0
        };
        let want_override = if plan.num_ref_idx_active > 1 {
            u32::from(plan.num_ref_idx_active)
        } else {
            0
        };
        let ok = h.nal_ref_idc == plan.nal_ref_idc
            && h.nal_unit_type == want_type
            && h.first_mb_in_slice == first_mb
            && h.slice_type == plan.slice_type
            && h.pps_id == 0
            && h.frame_num == plan.frame_num
            && (plan.idr == 0 || h.idr_pic_id == u32::from(plan.idr_pic_id))
            && (ctx.poc_type != 0 || h.poc_lsb == plan.poc_lsb)
            // The PPS default is one entry; more must be signalled in the slice.
            && (plan.slice_type == slice_type::I
                || h.num_ref_idx_override == want_override)
            && mods_ok
            && marking_ok
            && (!ctx.cabac
                || plan.slice_type == slice_type::I
                || h.cabac_init_idc == u32::from(cfg.cabac_init_idc))
            && h.slice_qp_delta == i32::from(plan.qp) - PIC_INIT_QP
            && h.disable_deblocking_filter_idc
                == u32::from(cfg.disable_deblocking_filter_idc)
            && (h.disable_deblocking_filter_idc == 1
                || (h.slice_alpha_c0_offset_div2
                    == i32::from(cfg.slice_alpha_c0_offset_div2)
                    && h.slice_beta_offset_div2 == i32::from(cfg.slice_beta_offset_div2)));
        if !ok {
            return Err(Error::PlanMismatch);
        }
        i = i.wrapping_add(1);
    }
    Ok(())
}
