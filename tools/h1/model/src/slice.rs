//! The slice header the H1 writes (clause 7.3.3), derived from its registers.

use crate::bitwriter::BitWriter;

/// Slice header fields, as the registers give them.
#[derive(Clone, Debug, Default)]
pub struct SliceHeader {
    pub nal_ref_idc: u32,
    pub idr: bool,
    pub intra: bool,
    pub first_mb_in_slice: u32,
    pub pps_id: u32,
    pub frame_num: u32,
    pub log2_max_frame_num: u32,
    pub idr_pic_id: u32,
    /// Some(lsb, log2_max_poc_lsb) for pic_order_cnt_type 0.
    pub poc_lsb: Option<(u32, u32)>,
    /// Some((modification_of_pic_nums_idc, value)) for one reference list modification.
    pub ref_mod: Option<(u32, u32)>,
    /// num_ref_idx_l0_active_minus1 + 1 when overridden. The H1 never overrides
    /// (one reference); tests of multi-reference plans use it.
    pub num_ref_idx_override: Option<u32>,
    pub mark_long_term: bool,
    pub cabac_init_idc: Option<u32>,
    pub slice_qp_delta: i32,
    pub disable_deblocking_filter_idc: u32,
    pub alpha_div2: i32,
    pub beta_div2: i32,
}

impl SliceHeader {
    /// nal_unit_type of the slice.
    pub fn nal_unit_type(&self) -> u32 {
        if self.idr {
            5
        } else {
            1
        }
    }

    /// Writes slice_header() (7.3.3) with dec_ref_pic_marking() and ref_pic_list_modification().
    pub fn write(&self, bw: &mut BitWriter) {
        bw.ue(self.first_mb_in_slice);
        bw.ue(if self.intra { 7 } else { 5 });
        bw.ue(self.pps_id);
        bw.put(
            self.log2_max_frame_num,
            self.frame_num & ((1 << self.log2_max_frame_num) - 1),
        );
        if self.idr {
            bw.ue(self.idr_pic_id);
        }
        if let Some((lsb, bits)) = self.poc_lsb {
            bw.put(bits, lsb & ((1 << bits) - 1));
        }
        if !self.intra {
            // num_ref_idx_active_override_flag
            match self.num_ref_idx_override {
                Some(n) => {
                    bw.flag(true);
                    bw.ue(n - 1);
                }
                None => bw.flag(false),
            }
            // ref_pic_list_modification() (7.3.3.1)
            match self.ref_mod {
                Some((idc, value)) => {
                    bw.flag(true);
                    bw.ue(idc);
                    bw.ue(value);
                    bw.ue(3);
                }
                None => bw.flag(false),
            }
        }
        if self.nal_ref_idc != 0 {
            // dec_ref_pic_marking() (7.3.3.3)
            if self.idr {
                bw.flag(false); // no_output_of_prior_pics_flag
                bw.flag(self.mark_long_term);
            } else if self.mark_long_term {
                bw.flag(true); // adaptive_ref_pic_marking_mode_flag
                bw.ue(6); // mark the current picture long-term
                bw.ue(0); // long_term_frame_idx
                bw.ue(0);
            } else {
                bw.flag(false);
            }
        }
        if let Some(idc) = self.cabac_init_idc {
            bw.ue(idc);
        }
        bw.se(self.slice_qp_delta);
        bw.ue(self.disable_deblocking_filter_idc);
        if self.disable_deblocking_filter_idc != 1 {
            bw.se(self.alpha_div2);
            bw.se(self.beta_div2);
        }
    }
}
