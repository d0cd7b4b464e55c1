// SPDX-License-Identifier: GPL-2.0-only
//! Sequence parameter set writing (clause 7.3.2.1.1) with VUI (Annex E).

use super::bitstream::BitWriter;
use super::error::{Error, Result};
use super::nal::{nal_type, write_nal};

/// profile_idc values (Annex A).
pub mod profile {
    /// Baseline (constraint_set1 marks Constrained Baseline).
    pub const BASELINE: u8 = 66;
    /// Main.
    pub const MAIN: u8 = 77;
    /// High.
    pub const HIGH: u8 = 100;
}

/// Frame cropping in luma samples (converted to chroma units when written).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Crop {
    /// Samples cropped on the right.
    pub right: u16,
    /// Samples cropped at the bottom.
    pub bottom: u16,
}

/// What the core puts in the SPS; a subset of clause 7.3.2.1.1 the encoder needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqParams {
    /// profile_idc.
    pub profile_idc: u8,
    /// constraint_set0..5 flags, bit 7 is constraint_set0_flag.
    pub constraint_flags: u8,
    /// level_idc (10 x the level number; 9 for level 1b).
    pub level_idc: u8,
    /// seq_parameter_set_id.
    pub sps_id: u8,
    /// log2_max_frame_num_minus4.
    pub log2_max_frame_num_minus4: u8,
    /// pic_order_cnt_type: 0 or 2.
    pub pic_order_cnt_type: u8,
    /// log2_max_pic_order_cnt_lsb_minus4 (POC type 0).
    pub log2_max_poc_lsb_minus4: u8,
    /// max_num_ref_frames.
    pub max_num_ref_frames: u8,
    /// gaps_in_frame_num_value_allowed_flag: set with temporal layers, so
    /// that a decoder given only the lower layers, which skips reference
    /// pictures of the layers above, still decodes (8.2.5.2).
    pub gaps_in_frame_num_allowed: bool,
    /// pic_width_in_mbs_minus1 + 1.
    pub width_mbs: u16,
    /// pic_height_in_map_units_minus1 + 1 (frame_mbs_only).
    pub height_mbs: u16,
    /// Frame cropping.
    pub crop: Crop,
    /// VUI timing: num_units_in_tick and time_scale (0 for no timing info).
    pub num_units_in_tick: u32,
    /// VUI time_scale.
    pub time_scale: u32,
    /// VUI colour description.
    pub colour: Option<Colour>,
    /// VUI NAL HRD parameters.
    pub nal_hrd: Option<Hrd>,
    /// VUI bitstream restriction: max_dec_frame_buffering (max_num_reorder_frames is 0).
    pub max_dec_frame_buffering: Option<u8>,
}

/// video_signal_type and colour description of the VUI (E.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Colour {
    /// video_full_range_flag.
    pub full_range: bool,
    /// colour_primaries (Table E-3).
    pub primaries: u8,
    /// transfer_characteristics (Table E-4).
    pub transfer: u8,
    /// matrix_coefficients (Table E-5).
    pub matrix: u8,
}

/// One-CPB NAL HRD parameters (E.1.2) as signalled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hrd {
    /// bit_rate_scale.
    pub bit_rate_scale: u8,
    /// cpb_size_scale.
    pub cpb_size_scale: u8,
    /// bit_rate_value_minus1[0].
    pub bit_rate_value_minus1: u32,
    /// cpb_size_value_minus1[0].
    pub cpb_size_value_minus1: u32,
    /// cbr_flag[0].
    pub cbr: bool,
}

impl Hrd {
    /// Chooses scales for `bit_rate` (bits/s) and `cpb_size` (bits), rounding both down
    /// to what the syntax can express (E-37, E-38).
    pub fn new(bit_rate: u32, cpb_size: u32, cbr: bool) -> Result<Hrd> {
        if bit_rate < 64 || cpb_size < 16 {
            return Err(Error::InvalidParam);
        }
        // The finest scale whose value still fits ue(v) (2^32 - 2): the
        // signalled rate is then within 64 bit/s of the requested one.
        let mut brs = 0u32;
        while brs < 15 && u64::from(bit_rate >> (6 + brs)) > u64::from(u32::MAX - 1) {
            brs += 1;
        }
        let mut cps = 0u32;
        while cps < 15 && u64::from(cpb_size >> (4 + cps)) > u64::from(u32::MAX - 1) {
            cps += 1;
        }
        Ok(Hrd {
            bit_rate_scale: brs as u8,
            cpb_size_scale: cps as u8,
            bit_rate_value_minus1: (bit_rate >> (6 + brs)) - 1,
            cpb_size_value_minus1: (cpb_size >> (4 + cps)) - 1,
            cbr,
        })
    }

    /// BitRate[0] in bits/s (E-37).
    pub fn bit_rate(&self) -> u64 {
        // The scales are 4-bit fields (E.1.2): at most 2^32 << 21.
        (u64::from(self.bit_rate_value_minus1) + 1) << (6 + u32::from(self.bit_rate_scale.min(15)))
    }

    /// CpbSize[0] in bits (E-38).
    pub fn cpb_size(&self) -> u64 {
        (u64::from(self.cpb_size_value_minus1) + 1) << (4 + u32::from(self.cpb_size_scale.min(15)))
    }

    fn write(&self, bw: &mut BitWriter<'_>) -> Result {
        bw.put_ue(0)?; // cpb_cnt_minus1
        bw.put_bits(4, u32::from(self.bit_rate_scale))?;
        bw.put_bits(4, u32::from(self.cpb_size_scale))?;
        bw.put_ue(self.bit_rate_value_minus1)?;
        bw.put_ue(self.cpb_size_value_minus1)?;
        bw.put_flag(self.cbr)?;
        let len = super::sei::DELAY_LENGTH - 1;
        bw.put_bits(5, len)?; // initial_cpb_removal_delay_length_minus1
        bw.put_bits(5, len)?; // cpb_removal_delay_length_minus1
        bw.put_bits(5, len)?; // dpb_output_delay_length_minus1
        bw.put_bits(5, 24) // time_offset_length
    }
}

impl SeqParams {
    /// Writes seq_parameter_set_rbsp() into `bw`.
    pub fn write_rbsp(&self, bw: &mut BitWriter<'_>) -> Result {
        if self.width_mbs == 0
            || self.height_mbs == 0
            || self.pic_order_cnt_type == 1
            || self.pic_order_cnt_type > 2
        {
            return Err(Error::InvalidParam);
        }
        bw.put_bits(8, u32::from(self.profile_idc))?;
        bw.put_bits(8, u32::from(self.constraint_flags & 0xfc))?;
        bw.put_bits(8, u32::from(self.level_idc))?;
        bw.put_ue(u32::from(self.sps_id))?;
        if self.profile_idc == profile::HIGH {
            bw.put_ue(1)?; // chroma_format_idc 4:2:0
            bw.put_ue(0)?; // bit_depth_luma_minus8
            bw.put_ue(0)?; // bit_depth_chroma_minus8
            bw.put_flag(false)?; // qpprime_y_zero_transform_bypass_flag
            bw.put_flag(false)?; // seq_scaling_matrix_present_flag
        }
        bw.put_ue(u32::from(self.log2_max_frame_num_minus4))?;
        bw.put_ue(u32::from(self.pic_order_cnt_type))?;
        if self.pic_order_cnt_type == 0 {
            bw.put_ue(u32::from(self.log2_max_poc_lsb_minus4))?;
        }
        bw.put_ue(u32::from(self.max_num_ref_frames))?;
        bw.put_flag(self.gaps_in_frame_num_allowed)?;
        bw.put_ue(u32::from(self.width_mbs) - 1)?;
        bw.put_ue(u32::from(self.height_mbs) - 1)?;
        bw.put_flag(true)?; // frame_mbs_only_flag
        bw.put_flag(true)?; // direct_8x8_inference_flag
        let cropping = self.crop != Crop::default();
        bw.put_flag(cropping)?;
        if cropping {
            // CropUnitX = CropUnitY = 2 for 4:2:0 frames (7-19, 7-20).
            bw.put_ue(0)?;
            bw.put_ue(u32::from(self.crop.right / 2))?;
            bw.put_ue(0)?;
            bw.put_ue(u32::from(self.crop.bottom / 2))?;
        }
        let vui = self.time_scale != 0
            || self.colour.is_some()
            || self.nal_hrd.is_some()
            || self.max_dec_frame_buffering.is_some();
        bw.put_flag(vui)?;
        if vui {
            self.write_vui(bw)?;
        }
        bw.put_trailing_bits()
    }

    /// Writes vui_parameters() (E.1.1).
    fn write_vui(&self, bw: &mut BitWriter<'_>) -> Result {
        bw.put_flag(false)?; // aspect_ratio_info_present_flag
        bw.put_flag(false)?; // overscan_info_present_flag
        bw.put_flag(self.colour.is_some())?; // video_signal_type_present_flag
        if let Some(c) = self.colour {
            bw.put_bits(3, 5)?; // video_format: unspecified
            bw.put_flag(c.full_range)?;
            bw.put_flag(true)?; // colour_description_present_flag
            bw.put_bits(8, u32::from(c.primaries))?;
            bw.put_bits(8, u32::from(c.transfer))?;
            bw.put_bits(8, u32::from(c.matrix))?;
        }
        bw.put_flag(false)?; // chroma_loc_info_present_flag
        let timing = self.time_scale != 0;
        bw.put_flag(timing)?;
        if timing {
            bw.put_bits(32, self.num_units_in_tick)?;
            bw.put_bits(32, self.time_scale)?;
            bw.put_flag(true)?; // fixed_frame_rate_flag
        }
        bw.put_flag(self.nal_hrd.is_some())?;
        if let Some(h) = &self.nal_hrd {
            h.write(bw)?;
        }
        bw.put_flag(false)?; // vcl_hrd_parameters_present_flag
        if self.nal_hrd.is_some() {
            bw.put_flag(false)?; // low_delay_hrd_flag
        }
        bw.put_flag(false)?; // pic_struct_present_flag
        bw.put_flag(self.max_dec_frame_buffering.is_some())?;
        if let Some(dpb) = self.max_dec_frame_buffering {
            bw.put_flag(true)?; // motion_vectors_over_pic_boundaries_flag
            bw.put_ue(2)?; // max_bytes_per_pic_denom
            bw.put_ue(1)?; // max_bits_per_mb_denom
            bw.put_ue(16)?; // log2_max_mv_length_horizontal
            bw.put_ue(16)?; // log2_max_mv_length_vertical
            bw.put_ue(0)?; // max_num_reorder_frames
            bw.put_ue(u32::from(dpb))?;
        }
        Ok(())
    }

    /// Writes the SPS NAL unit with its start code into `out`; returns its size.
    pub fn write_nal(&self, out: &mut [u8]) -> Result<usize> {
        let mut rbsp = [0u8; 128];
        let mut bw = BitWriter::new(&mut rbsp);
        self.write_rbsp(&mut bw)?;
        let len = bw.byte_len();
        write_nal(
            out,
            3,
            nal_type::SPS,
            rbsp.get(..len).ok_or(Error::NoSpace)?,
        )
    }
}
