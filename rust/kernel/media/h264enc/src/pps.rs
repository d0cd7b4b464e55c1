// SPDX-License-Identifier: GPL-2.0-only
//! Picture parameter set writing (clause 7.3.2.2).

use super::bitstream::BitWriter;
use super::error::{Error, Result};
use super::nal::{nal_type, write_nal};

/// What the core puts in the PPS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PicParams {
    /// pic_parameter_set_id.
    pub pps_id: u8,
    /// seq_parameter_set_id.
    pub sps_id: u8,
    /// entropy_coding_mode_flag (CABAC).
    pub entropy_coding_mode_flag: bool,
    /// pic_init_qp_minus26.
    pub pic_init_qp_minus26: i8,
    /// chroma_qp_index_offset.
    pub chroma_qp_index_offset: i8,
    /// constrained_intra_pred_flag.
    pub constrained_intra_pred_flag: bool,
    /// transform_8x8_mode_flag (High profile; writes the PPS extension).
    pub transform_8x8_mode_flag: bool,
}

impl PicParams {
    /// Writes pic_parameter_set_rbsp() into `bw`.
    pub fn write_rbsp(&self, bw: &mut BitWriter<'_>) -> Result {
        if !(-26..=25).contains(&self.pic_init_qp_minus26)
            || !(-12..=12).contains(&self.chroma_qp_index_offset)
        {
            return Err(Error::InvalidParam);
        }
        bw.put_ue(u32::from(self.pps_id))?;
        bw.put_ue(u32::from(self.sps_id))?;
        bw.put_flag(self.entropy_coding_mode_flag)?;
        bw.put_flag(false)?; // bottom_field_pic_order_in_frame_present_flag
        bw.put_ue(0)?; // num_slice_groups_minus1
        bw.put_ue(0)?; // num_ref_idx_l0_default_active_minus1
        bw.put_ue(0)?; // num_ref_idx_l1_default_active_minus1
        bw.put_flag(false)?; // weighted_pred_flag
        bw.put_bits(2, 0)?; // weighted_bipred_idc
        bw.put_se(i32::from(self.pic_init_qp_minus26))?;
        bw.put_se(0)?; // pic_init_qs_minus26
        bw.put_se(i32::from(self.chroma_qp_index_offset))?;
        bw.put_flag(true)?; // deblocking_filter_control_present_flag
        bw.put_flag(self.constrained_intra_pred_flag)?;
        bw.put_flag(false)?; // redundant_pic_cnt_present_flag
        if self.transform_8x8_mode_flag {
            bw.put_flag(true)?;
            bw.put_flag(false)?; // pic_scaling_matrix_present_flag
            bw.put_se(i32::from(self.chroma_qp_index_offset))?; // second_chroma_qp_index_offset
        }
        bw.put_trailing_bits()
    }

    /// Writes the PPS NAL unit with its start code into `out`; returns its size.
    pub fn write_nal(&self, out: &mut [u8]) -> Result<usize> {
        let mut rbsp = [0u8; 32];
        let mut bw = BitWriter::new(&mut rbsp);
        self.write_rbsp(&mut bw)?;
        let len = bw.byte_len();
        write_nal(
            out,
            3,
            nal_type::PPS,
            rbsp.get(..len).ok_or(Error::NoSpace)?,
        )
    }
}
