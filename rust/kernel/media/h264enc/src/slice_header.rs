// SPDX-License-Identifier: GPL-2.0-only
//! Parsing of the slice headers the hardware writes (clause 7.3.3), bit by bit.
//!
//! Everything here comes from hardware and is untrusted: every read is bounds
//! checked, every value range checked, and a field the syntax does not allow
//! is an error, not a guess.

use super::bitstream::emulation::unescape_prefix;
use super::bitstream::BitReader;
use super::error::{Error, Result};

/// Stream parameters the slice header syntax depends on.
#[derive(Clone, Copy, Debug)]
pub struct ParseContext {
    /// log2_max_frame_num_minus4 + 4.
    pub log2_max_frame_num: u32,
    /// pic_order_cnt_type (0 or 2).
    pub poc_type: u8,
    /// log2_max_pic_order_cnt_lsb_minus4 + 4.
    pub log2_max_poc_lsb: u32,
    /// entropy_coding_mode_flag.
    pub cabac: bool,
    /// PicSizeInMbs.
    pub pic_size_in_mbs: u32,
}

/// Most list modification and marking commands kept.
pub const MAX_COMMANDS: usize = 4;

/// A parsed slice header with its NAL unit header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SliceHeader {
    /// nal_ref_idc.
    pub nal_ref_idc: u8,
    /// nal_unit_type.
    pub nal_unit_type: u8,
    /// first_mb_in_slice.
    pub first_mb_in_slice: u32,
    /// slice_type % 5 (0 P, 2 I).
    pub slice_type: u8,
    /// pic_parameter_set_id.
    pub pps_id: u32,
    /// frame_num.
    pub frame_num: u32,
    /// idr_pic_id (IDR only).
    pub idr_pic_id: u32,
    /// pic_order_cnt_lsb (POC type 0).
    pub poc_lsb: u32,
    /// num_ref_idx_l0_active_minus1 + 1 when overridden, else 0.
    pub num_ref_idx_override: u32,
    /// ref_pic_list_modification commands (idc, value).
    pub list_mods: [(u8, u32); MAX_COMMANDS],
    /// Number of valid entries of `list_mods`.
    pub num_list_mods: u8,
    /// no_output_of_prior_pics_flag.
    pub no_output_of_prior_pics: bool,
    /// long_term_reference_flag.
    pub long_term_reference: bool,
    /// memory_management_control_operation commands (operation, first argument).
    pub mmcos: [(u8, u32); MAX_COMMANDS],
    /// Number of valid entries of `mmcos`.
    pub num_mmcos: u8,
    /// cabac_init_idc (CABAC P slices).
    pub cabac_init_idc: u32,
    /// slice_qp_delta.
    pub slice_qp_delta: i32,
    /// disable_deblocking_filter_idc.
    pub disable_deblocking_filter_idc: u32,
    /// slice_alpha_c0_offset_div2.
    pub slice_alpha_c0_offset_div2: i32,
    /// slice_beta_offset_div2.
    pub slice_beta_offset_div2: i32,
}

/// Parses a slice NAL unit (NAL header byte first, no start code, escaped payload).
pub fn parse(nal: &[u8], ctx: &ParseContext) -> Result<SliceHeader> {
    let header = *nal.first().ok_or(Error::Truncated)?;
    if header & 0x80 != 0 {
        return Err(Error::InvalidSyntax);
    }
    let mut h = SliceHeader {
        nal_ref_idc: (header >> 5) & 3,
        nal_unit_type: header & 0x1f,
        ..SliceHeader::default()
    };
    let idr = match h.nal_unit_type {
        1 => false,
        5 => true,
        _ => return Err(Error::InvalidSyntax),
    };
    // A slice header takes well under 64 bytes; only that prefix is unescaped.
    let mut rbsp = [0u8; 64];
    let n = unescape_prefix(nal.get(1..).unwrap_or(&[]), &mut rbsp)?;
    let mut r = BitReader::new(rbsp.get(..n).ok_or(Error::Truncated)?);

    h.first_mb_in_slice = r.ue()?;
    if h.first_mb_in_slice >= ctx.pic_size_in_mbs {
        return Err(Error::InvalidSyntax);
    }
    let slice_type = r.ue()?;
    if slice_type > 9 {
        return Err(Error::InvalidSyntax);
    }
    h.slice_type = (slice_type % 5) as u8;
    // The encoder codes only P and I slices; an IDR has I slices only (7.4.3).
    let allowed = if idr {
        h.slice_type == 2
    } else {
        h.slice_type == 0 || h.slice_type == 2
    };
    if !allowed {
        return Err(Error::InvalidSyntax);
    }
    h.pps_id = r.ue()?;
    if h.pps_id > 255 {
        return Err(Error::InvalidSyntax);
    }
    h.frame_num = r.bits(ctx.log2_max_frame_num)?;
    if idr {
        h.idr_pic_id = r.ue()?;
        if h.idr_pic_id > 65535 {
            return Err(Error::InvalidSyntax);
        }
    }
    if ctx.poc_type == 0 {
        h.poc_lsb = r.bits(ctx.log2_max_poc_lsb)?;
    }
    if h.slice_type == 0 {
        if r.flag()? {
            let minus1 = r.ue()?;
            if minus1 > 31 {
                return Err(Error::InvalidSyntax);
            }
            h.num_ref_idx_override = minus1 + 1;
        }
        // ref_pic_list_modification() (7.3.3.1)
        if r.flag()? {
            loop {
                let idc = r.ue()?;
                if idc == 3 {
                    break;
                }
                if idc > 2 {
                    return Err(Error::InvalidSyntax);
                }
                let value = r.ue()?;
                let slot = h
                    .list_mods
                    .get_mut(usize::from(h.num_list_mods))
                    .ok_or(Error::InvalidSyntax)?;
                *slot = (idc as u8, value);
                // The slot exists, so the count is below the array's length.
                h.num_list_mods = h.num_list_mods.wrapping_add(1);
            }
        }
    }
    if h.nal_ref_idc != 0 {
        // dec_ref_pic_marking() (7.3.3.3)
        if idr {
            h.no_output_of_prior_pics = r.flag()?;
            h.long_term_reference = r.flag()?;
        } else if r.flag()? {
            loop {
                let op = r.ue()?;
                if op == 0 {
                    break;
                }
                if op > 6 {
                    return Err(Error::InvalidSyntax);
                }
                let arg = match op {
                    1 | 2 | 3 | 4 | 6 => r.ue()?,
                    _ => 0,
                };
                if op == 3 {
                    r.ue()?; // long_term_frame_idx
                }
                let slot = h
                    .mmcos
                    .get_mut(usize::from(h.num_mmcos))
                    .ok_or(Error::InvalidSyntax)?;
                *slot = (op as u8, arg);
                // The slot exists, so the count is below the array's length.
                h.num_mmcos = h.num_mmcos.wrapping_add(1);
            }
        }
    } else if idr {
        return Err(Error::InvalidSyntax);
    }
    if ctx.cabac && h.slice_type != 2 {
        h.cabac_init_idc = r.ue()?;
        if h.cabac_init_idc > 2 {
            return Err(Error::InvalidSyntax);
        }
    }
    h.slice_qp_delta = r.se()?;
    if !(-51..=51).contains(&h.slice_qp_delta) {
        return Err(Error::InvalidSyntax);
    }
    // deblocking_filter_control_present_flag is always 1 in the core's PPS.
    h.disable_deblocking_filter_idc = r.ue()?;
    if h.disable_deblocking_filter_idc > 2 {
        return Err(Error::InvalidSyntax);
    }
    if h.disable_deblocking_filter_idc != 1 {
        h.slice_alpha_c0_offset_div2 = r.se()?;
        h.slice_beta_offset_div2 = r.se()?;
        if !(-6..=6).contains(&h.slice_alpha_c0_offset_div2)
            || !(-6..=6).contains(&h.slice_beta_offset_div2)
        {
            return Err(Error::InvalidSyntax);
        }
    }
    Ok(h)
}
