//! The encoder state machine against a scripted "hardware" that writes the
//! slice headers the plan asks for: reference lists for multi-reference
//! hardware, and the refusal of every kind of disagreeing output.

use h264enc::config::{Config, FrameParams};
use h264enc::encoder::Encoder;
use h264enc::plan::{FramePlan, HwFeedback};
use h264enc::Error;
use hantro_h1_model::bitwriter::BitWriter;
use hantro_h1_model::slice::SliceHeader;

fn cfg(max_refs: u8) -> Config {
    Config {
        width: 64,
        height: 48,
        fps_num: 30,
        fps_den: 1,
        profile_idc: 66,
        log2_max_frame_num_minus4: 4,
        poc_type: 2,
        temporal_layers: 1,
        qp_i: 30,
        qp_p: 30,
        qp_max: 51,
        max_refs_per_frame: max_refs,
        ..Config::default()
    }
}

/// The slice NAL unit of a plan, as hardware honouring every field would write it.
fn slice_for(plan: &FramePlan, tweak: impl FnOnce(&mut SliceHeader)) -> Vec<u8> {
    let mut h = SliceHeader {
        nal_ref_idc: u32::from(plan.nal_ref_idc),
        idr: plan.idr != 0,
        intra: plan.slice_type == 2,
        first_mb_in_slice: 0,
        pps_id: 0,
        frame_num: plan.frame_num,
        log2_max_frame_num: 8,
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
    };
    tweak(&mut h);
    let mut bw = BitWriter::new();
    h.write(&mut bw);
    bw.put(16, 0x1234);
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

fn feedback(plan: &FramePlan, nal: &[u8]) -> HwFeedback {
    HwFeedback {
        stream_bits: nal.len() as u32 * 8,
        qp_sum: u32::from(plan.qp) * 12,
        slices: 1,
        ..HwFeedback::default()
    }
}

fn step(enc: &mut Encoder, ts: u64) -> FramePlan {
    let plan = enc
        .plan_frame(&FrameParams {
            timestamp: ts,
            ..FrameParams::default()
        })
        .unwrap();
    let nal = slice_for(&plan, |_| {});
    enc.complete_frame(&feedback(&plan, &nal), &nal, &[nal.len() as u32])
        .unwrap();
    plan
}

#[test]
fn multi_reference_hardware_gets_the_whole_list() {
    let mut enc = Encoder::new(&cfg(3)).unwrap();
    let slots: Vec<FramePlan> = (0..6).map(|i| step(&mut enc, i)).collect();
    // Frame 0 is intra; then the list grows to three: the previous pictures, newest first.
    assert_eq!(slots[0].num_ref_idx_active, 0);
    assert_eq!(slots[1].num_ref_idx_active, 1);
    assert_eq!(slots[2].num_ref_idx_active, 2);
    for p in &slots[3..] {
        assert_eq!(p.num_ref_idx_active, 3);
    }
    let p5 = &slots[5];
    let want: Vec<u8> = [4usize, 3, 2].iter().map(|&f| slots[f].rec_slot).collect();
    assert_eq!(&p5.ref_list_slots[..3], &want[..]);
    assert_eq!(p5.ref_slot, want[0]);
    // Single-reference hardware (the H1) gets one entry.
    let mut one = Encoder::new(&cfg(1)).unwrap();
    for i in 0..4 {
        assert!(step(&mut one, i).num_ref_idx_active <= 1);
    }
}

#[test]
fn every_disagreeing_output_is_refused_and_the_state_does_not_move() {
    let mut enc = Encoder::new(&cfg(1)).unwrap();
    step(&mut enc, 0);
    step(&mut enc, 1);
    type Tweak = Box<dyn Fn(&mut SliceHeader)>;
    let tweaks: Vec<(&str, Tweak, Error)> = vec![
        (
            "frame_num",
            Box::new(|h| h.frame_num += 1),
            Error::PlanMismatch,
        ),
        (
            "slice QP",
            Box::new(|h| h.slice_qp_delta += 1),
            Error::PlanMismatch,
        ),
        (
            "deblocking",
            Box::new(|h| h.disable_deblocking_filter_idc = 1),
            Error::PlanMismatch,
        ),
        (
            "list modification",
            Box::new(|h| h.ref_mod = Some((0, 0))),
            Error::PlanMismatch,
        ),
        (
            "marking",
            Box::new(|h| h.mark_long_term = true),
            Error::PlanMismatch,
        ),
        ("pps id", Box::new(|h| h.pps_id = 3), Error::PlanMismatch),
        (
            "reference count",
            Box::new(|h| h.num_ref_idx_override = Some(2)),
            Error::PlanMismatch,
        ),
    ];
    for (what, tweak, err) in tweaks {
        let plan = enc
            .plan_frame(&FrameParams {
                timestamp: 9,
                ..FrameParams::default()
            })
            .unwrap();
        let nal = slice_for(&plan, |h| tweak(h));
        assert_eq!(
            enc.complete_frame(&feedback(&plan, &nal), &nal, &[nal.len() as u32]),
            Err(err),
            "{what}"
        );
    }
    // Truncated output, a NAL table that does not add up, a missing start code.
    let plan = enc
        .plan_frame(&FrameParams {
            timestamp: 9,
            ..FrameParams::default()
        })
        .unwrap();
    let nal = slice_for(&plan, |_| {});
    assert_eq!(
        enc.complete_frame(&feedback(&plan, &nal[..6]), &nal[..6], &[6]),
        Err(Error::Truncated)
    );
    let plan = enc
        .plan_frame(&FrameParams {
            timestamp: 9,
            ..FrameParams::default()
        })
        .unwrap();
    let nal = slice_for(&plan, |_| {});
    assert_eq!(
        enc.complete_frame(&feedback(&plan, &nal), &nal, &[nal.len() as u32 - 1]),
        Err(Error::NalTableMismatch)
    );
    let plan = enc
        .plan_frame(&FrameParams {
            timestamp: 9,
            ..FrameParams::default()
        })
        .unwrap();
    let mut nal = slice_for(&plan, |_| {});
    nal[3] = 2;
    assert_eq!(
        enc.complete_frame(&feedback(&plan, &nal), &nal, &[nal.len() as u32]),
        Err(Error::InvalidSyntax)
    );
    // Complete without plan, plan twice.
    assert_eq!(
        enc.complete_frame(&HwFeedback::default(), &[], &[]),
        Err(Error::BadState)
    );
    enc.plan_frame(&FrameParams::default()).unwrap();
    assert_eq!(
        enc.plan_frame(&FrameParams::default()),
        Err(Error::BadState)
    );
    enc.abort_frame().unwrap();
    // After all that the stream continues where it was: frame_num 2, as if nothing failed.
    assert_eq!(step(&mut enc, 10).frame_num, 2);
    assert_eq!(enc.stats().frames, 3);
    assert_eq!(enc.stats().errors, 11);
}
