//! The encoder state machine against a scripted "hardware" that writes the
//! slice headers the plan asks for: reference lists for multi-reference
//! hardware, and the refusal of every kind of disagreeing output.

use h264enc::config::{Config, FrameParams};
use h264enc::encoder::Encoder;
use h264enc::plan::{FramePlan, HwFeedback};
use h264enc::Error;
use hantro_h1_model::slice::SliceHeader;

#[path = "support/plan_hardware.rs"]
mod plan_hardware;

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
    let mut h = plan_hardware::header_for(plan, 8);
    tweak(&mut h);
    plan_hardware::slice_nal(plan, &h, 2)
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
