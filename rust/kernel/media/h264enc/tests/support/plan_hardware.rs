//! A scripted "hardware" for the core's tests and benchmarks: it writes the
//! slice NAL unit a plan asks for, with the software H1's slice writer.

use h264enc::plan::FramePlan;
use hantro_h1_model::bitwriter::BitWriter;
use hantro_h1_model::slice::SliceHeader;

/// The slice header a plan asks for (POC type 2, one slice, filter on).
pub fn header_for(plan: &FramePlan, log2_max_frame_num: u32) -> SliceHeader {
    SliceHeader {
        nal_ref_idc: u32::from(plan.nal_ref_idc),
        idr: plan.idr != 0,
        intra: plan.slice_type == 2,
        first_mb_in_slice: 0,
        pps_id: 0,
        frame_num: plan.frame_num,
        log2_max_frame_num,
        idr_pic_id: u32::from(plan.idr_pic_id),
        poc_lsb: None,
        num_ref_idx_override: (plan.num_ref_idx_active > 1)
            .then_some(u32::from(plan.num_ref_idx_active)),
        ref_mod: (plan.ref_mod_idc_plus1 != 0)
            .then(|| (u32::from(plan.ref_mod_idc_plus1) - 1, plan.ref_mod_value)),
        mark_long_term: plan.mark_long_term != 0,
        cabac_init_idc: None,
        slice_qp_delta: i32::from(plan.qp) - 26,
        disable_deblocking_filter_idc: 0,
        alpha_div2: 0,
        beta_div2: 0,
    }
}

/// The slice NAL unit (start code included) of header `h` with `body` bytes of data.
pub fn slice_nal(plan: &FramePlan, h: &SliceHeader, body: usize) -> Vec<u8> {
    let mut bw = BitWriter::new();
    h.write(&mut bw);
    for k in 0..body {
        bw.put(8, 0x40 | (k as u32 & 0x3f));
    }
    bw.trailing();
    let mut nal = vec![
        0,
        0,
        0,
        1,
        ((plan.nal_ref_idc << 5) | if plan.idr != 0 { 5 } else { 1 }),
    ];
    nal.extend(bw.into_bytes());
    nal
}
