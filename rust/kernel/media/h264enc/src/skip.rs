// SPDX-License-Identifier: GPL-2.0-only
//! A skipped picture: one P slice of P_Skip macroblocks, which the core
//! writes itself when no coding of a picture fits the CPB.
//!
//! Every macroblock of the slice is P_Skip with a zero motion vector
//! (8.4.1.1: the first one has no neighbours, the others neighbours with a
//! zero vector of reference index 0), no residual and no deblocking, so a
//! decoder reconstructs the picture as an exact copy of RefPicList0[0]. The
//! driver copies that reconstruction instead of running the hardware.

use super::bitstream::emulation::Escaper;
use super::bitstream::BitWriter;
use super::cabac::ArithmeticEncoder;
use super::cabac_init::p_slice_state;
use super::error::{Error, Result};
use super::nal::{nal_type, START_CODE};
use super::verify::PIC_INIT_QP;

/// ctxIdx of mb_skip_flag in P slices with ctxIdxInc 0 (Table 9-34, 9.3.3.1.1.1):
/// every neighbour of a macroblock of the slice is unavailable or skipped.
const MB_SKIP_FLAG_CTX_IDX: usize = 11;

/// What the slice header of a skipped picture says (7.3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SkippedSlice {
    /// nal_ref_idc: the planned picture's, a skipped picture is marked as it would have been.
    pub nal_ref_idc: u8,
    /// frame_num.
    pub frame_num: u32,
    /// log2_max_frame_num_minus4 + 4.
    pub log2_max_frame_num: u32,
    /// pic_order_cnt_lsb when `log2_max_poc_lsb` is not 0 (POC type 0).
    pub poc_lsb: u32,
    /// log2_max_pic_order_cnt_lsb_minus4 + 4, or 0 for POC type 2.
    pub log2_max_poc_lsb: u32,
    /// modification_of_pic_nums_idc + 1 of the one list modification, 0 for none.
    pub ref_mod_idc_plus1: u8,
    /// abs_diff_pic_num_minus1 or long_term_pic_num of the modification.
    pub ref_mod_value: u32,
    /// Mark the picture long-term (MMCO 6, long_term_frame_idx 0).
    pub mark_long_term: bool,
    /// cabac_init_idc with CABAC, `None` with CAVLC.
    pub cabac_init_idc: Option<u8>,
    /// SliceQP_Y, 0 to 51: it sets only the CABAC contexts' initial states.
    pub slice_qp: u8,
    /// PicSizeInMbs.
    pub pic_size_in_mbs: u32,
}

/// Writes the slice header's RBSP bits (7.3.3) before slice_data().
fn write_header(bw: &mut BitWriter<'_>, s: &SkippedSlice) -> Result {
    bw.put_ue(0)?; // first_mb_in_slice
    bw.put_ue(0)?; // slice_type: P
    bw.put_ue(0)?; // pic_parameter_set_id
    bw.put_bits(s.log2_max_frame_num, s.frame_num)?;
    if s.log2_max_poc_lsb != 0 {
        bw.put_bits(s.log2_max_poc_lsb, s.poc_lsb)?;
    }
    // One reference, the PPS default: num_ref_idx_active_override_flag 0.
    bw.put_flag(false)?;
    // ref_pic_list_modification() (7.3.3.1): the planned reference first.
    bw.put_flag(s.ref_mod_idc_plus1 != 0)?;
    if s.ref_mod_idc_plus1 != 0 {
        bw.put_ue(u32::from(s.ref_mod_idc_plus1).wrapping_sub(1))?;
        bw.put_ue(s.ref_mod_value)?;
        bw.put_ue(3)?;
    }
    if s.nal_ref_idc != 0 {
        // dec_ref_pic_marking() (7.3.3.3) of a non-IDR picture.
        bw.put_flag(s.mark_long_term)?;
        if s.mark_long_term {
            bw.put_ue(6)?; // memory_management_control_operation
            bw.put_ue(0)?; // long_term_frame_idx
            bw.put_ue(0)?; // end
        }
    }
    if let Some(idc) = s.cabac_init_idc {
        bw.put_ue(u32::from(idc))?;
    }
    bw.put_se(i32::from(s.slice_qp) - PIC_INIT_QP)?; // slice_qp_delta
    bw.put_ue(1) // disable_deblocking_filter_idc: nothing to filter
}

/// Writes the slice NAL unit of a skipped picture into `out`, start code
/// first; returns the bytes written.
pub fn write_skipped_slice(out: &mut [u8], s: &SkippedSlice) -> Result<usize> {
    if s.pic_size_in_mbs == 0 || s.slice_qp > 51 || s.ref_mod_idc_plus1 > 3 {
        return Err(Error::InvalidParam);
    }
    // The header takes at most 8 + 3 x 33 + 16 + 32 + 3 x 33 + 3 x 33 + 21 bits.
    let mut scratch = [0u8; 64];
    let mut bw = BitWriter::new(&mut scratch);
    write_header(&mut bw, s)?;
    let cabac_init_idc = match s.cabac_init_idc {
        None => {
            // slice_data() (7.3.4) with CAVLC: one run skips every
            // macroblock, and no more RBSP data follows.
            bw.put_ue(s.pic_size_in_mbs)?; // mb_skip_run
            bw.put_trailing_bits()?;
            None
        }
        Some(idc) => {
            while !bw.byte_aligned() {
                bw.put_flag(true)?; // cabac_alignment_one_bit
            }
            Some(idc)
        }
    };
    let head = out.get_mut(..START_CODE.len() + 1).ok_or(Error::NoSpace)?;
    for (d, &c) in head.iter_mut().zip(START_CODE.iter()) {
        *d = c;
    }
    if let Some(h) = head.last_mut() {
        *h = (s.nal_ref_idc.min(3) << 5) | nal_type::SLICE;
    }
    let mut e = Escaper::new(out.get_mut(START_CODE.len() + 1..).ok_or(Error::NoSpace)?);
    for &b in bw.data() {
        e.push(b)?;
    }
    let n = match cabac_init_idc {
        None => e.finish()?,
        Some(idc) => {
            // With CABAC, each macroblock is an mb_skip_flag of 1 and an
            // end_of_slice_flag, 1 for the last (7.3.4).
            let mut state = p_slice_state(MB_SKIP_FLAG_CTX_IDX, idc, s.slice_qp)?;
            let mut a = ArithmeticEncoder::new(e);
            for i in 1..=s.pic_size_in_mbs {
                a.decision(&mut state, true)?;
                a.terminate(i == s.pic_size_in_mbs)?;
            }
            a.finish()?
        }
    };
    Ok(n.saturating_add(START_CODE.len() + 1))
}
