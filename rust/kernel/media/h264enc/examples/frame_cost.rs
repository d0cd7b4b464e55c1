//! Runs plan + complete for N frames (argument 1, default 1000) of a CIF CBR
//! stream with L1T3, answering as the hardware would (one slice per frame,
//! its header written by the software H1's slice writer). Measured with
//! callgrind by scripts/bench-core.sh: instructions per frame of the core.

use h264enc::config::{Config, FrameParams};
use h264enc::encoder::Encoder;
use h264enc::plan::HwFeedback;

#[path = "../tests/support/plan_hardware.rs"]
mod plan_hardware;

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let cfg = Config {
        width: 352,
        height: 288,
        fps_num: 30,
        fps_den: 1,
        profile_idc: 66,
        log2_max_frame_num_minus4: 12,
        poc_type: 2,
        temporal_layers: 3,
        rc_mode: 1,
        bitrate: 1_000_000,
        qp_i: 26,
        qp_p: 28,
        qp_max: 51,
        max_qp_step: 4,
        max_refs_per_frame: 1,
        idr_period: 60,
        ..Config::default()
    };
    let mut enc = Encoder::new(&cfg).expect("config");
    let mbs = 22 * 18;
    let mut total_bits = 0u64;
    for i in 0..n {
        let plan = enc
            .plan_frame(&FrameParams {
                timestamp: i,
                ..FrameParams::default()
            })
            .expect("plan");
        // The hardware's slice: header from the plan, then a body sized like a real frame.
        let body = if plan.idr != 0 {
            2500
        } else {
            2000usize.saturating_sub(usize::from(plan.qp) * 30)
        };
        let nal = plan_hardware::slice_nal(&plan, &plan_hardware::header_for(&plan, 16), body);
        let fb = HwFeedback {
            stream_bits: nal.len() as u32 * 8,
            qp_sum: u32::from(plan.qp) * mbs,
            slices: 1,
            ..HwFeedback::default()
        };
        let st = enc
            .complete_frame(&fb, &nal, &[nal.len() as u32])
            .expect("complete");
        total_bits += u64::from(st.au_bits);
    }
    println!(
        "{n} frames, {} bits, {} errors",
        total_bits,
        enc.stats().errors
    );
}
