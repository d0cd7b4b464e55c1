//! The encoder state machine against a scripted "hardware" that writes the
//! slice headers the plan asks for: reference lists for multi-reference
//! hardware, and the refusal of every kind of disagreeing output.

use h264enc::config::{Config, FrameParams};
use h264enc::encoder::Encoder;
use h264enc::plan::{FramePlan, FrameStatus, HwFeedback, H264ENC_HRD_UNDERFLOW};
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
    run(enc, ts, 0, 2).0
}

/// Codes frame `ts` with `flags`, the hardware writing `body` bytes of
/// macroblock data; returns the plan and what the core reported.
fn run(enc: &mut Encoder, ts: u64, flags: u32, body: usize) -> (FramePlan, FrameStatus) {
    run_poc(enc, ts, flags, body, false)
}

/// [`run`] for a stream of `pic_order_cnt_type` 2, or 0 when `poc_type_0`:
/// the slice header then carries pic_order_cnt_lsb.
fn run_poc(
    enc: &mut Encoder,
    ts: u64,
    flags: u32,
    body: usize,
    poc_type_0: bool,
) -> (FramePlan, FrameStatus) {
    let plan = enc
        .plan_frame(&FrameParams {
            timestamp: ts,
            flags,
            ..FrameParams::default()
        })
        .unwrap();
    let mut h = plan_hardware::header_for(&plan, 8);
    if poc_type_0 {
        // The core's SPS: log2_max_pic_order_cnt_lsb_minus4 = 12.
        h.poc_lsb = Some((plan.poc_lsb, 16));
    }
    let nal = plan_hardware::slice_nal(&plan, &h, body);
    let st = enc
        .complete_frame(&feedback(&plan, &nal), &nal, &[nal.len() as u32])
        .unwrap();
    (plan, st)
}

/// The timestamps and long-term marks of the DPB the core reports.
fn dpb(enc: &Encoder) -> Vec<(u64, bool)> {
    let mut v: Vec<(u64, bool)> = (0..)
        .map_while(|i| enc.dpb_entry(i))
        .map(|e| (e.timestamp, e.long_term != 0))
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn status_gives_the_pictures_order_count_as_a_decoder_derives_it() {
    // pic_order_cnt_type 0: PicOrderCnt = 2 * frames since the IDR, whose
    // low bits are the pic_order_cnt_lsb the slice carries (8.2.1.1).
    let mut enc = Encoder::new(&Config {
        poc_type: 0,
        idr_period: 5,
        ..cfg(1)
    })
    .unwrap();
    for i in 0..12u64 {
        let (plan, st) = run_poc(&mut enc, i, 0, 2, true);
        assert_eq!(st.pic_order_cnt, 2 * (i % 5) as i32, "frame {i}");
        assert_eq!(
            st.pic_order_cnt as u32 % 256,
            plan.poc_lsb % 256,
            "frame {i}"
        );
        assert_eq!((st.frame_num, st.idr), (plan.frame_num, plan.idr));
    }
    // pic_order_cnt_type 2 with a non-reference top layer: 2 * absFrameNum,
    // one less for a non-reference picture (8.2.1.3).
    let mut enc = Encoder::new(&Config {
        temporal_layers: 2,
        ..cfg(1)
    })
    .unwrap();
    let mut abs_frame_num = 0i32;
    let mut prev_ref = true;
    for i in 0..9u64 {
        let (_, st) = run(&mut enc, i, 0, 2);
        if i > 0 && prev_ref {
            abs_frame_num += 1;
        }
        let reference = st.nal_ref_idc != 0;
        assert_eq!(
            st.pic_order_cnt,
            2 * abs_frame_num - i32::from(!reference),
            "frame {i}"
        );
        prev_ref = reference;
    }
}

#[test]
fn dpb_report_names_the_references_by_timestamp() {
    let mut enc = Encoder::new(&Config {
        ltr_period: 4,
        ltr_count: 1,
        ..cfg(1)
    })
    .unwrap();
    assert!(dpb(&enc).is_empty());
    let (_, st) = run(&mut enc, 100, 0, 2);
    assert_eq!(st.long_term, 1, "the IDR picture is marked long-term");
    assert_eq!(dpb(&enc), [(100, true)]);
    run(&mut enc, 101, 0, 2);
    assert_eq!(dpb(&enc), [(100, true), (101, false)]);
    // The sliding window drops 101 for 102; the long-term picture stays.
    let (_, st) = run(&mut enc, 102, 0, 2);
    assert_eq!(st.long_term, 0);
    assert_eq!(dpb(&enc), [(100, true), (102, false)]);
    let e = (0..)
        .map_while(|i| enc.dpb_entry(i))
        .find(|e| e.timestamp == 102);
    assert_eq!(e.map(|e| (e.frame_num, e.pic_order_cnt)), Some((2, 4)));
    // A frame that names a picture the DPB no longer holds is refused, and
    // the DPB stays as it was.
    let gone = enc.plan_frame(&FrameParams {
        timestamp: 103,
        reference_ts: 101,
        flags: h264enc::config::frame_flags::REFERENCE_TS,
        ..FrameParams::default()
    });
    assert_eq!(gone, Err(Error::NoReference));
    assert_eq!(dpb(&enc), [(100, true), (102, false)]);
    // An IDR picture empties it.
    run(&mut enc, 104, h264enc::config::frame_flags::FORCE_IDR, 2);
    assert_eq!(dpb(&enc), [(104, true)]);
}

#[test]
fn hrd_flags_judge_each_access_unit_alone() {
    // CBR at 100 kb/s with a 10 kb CPB and filler (small pictures do not
    // overflow it): a 4 kB picture cannot arrive in time; the pictures after
    // it are small again.
    let mut enc = Encoder::new(&Config {
        rc_mode: h264enc::config::rc_mode::CBR,
        bitrate: 100_000,
        cpb_size: 10_000,
        filler: 1,
        ..cfg(1)
    })
    .unwrap();
    let mut flags = Vec::new();
    for i in 0..40u64 {
        let body = if i == 10 { 4000 } else { 2 };
        flags.push(run(&mut enc, i, 0, body).1.hrd_flags);
    }
    assert!(flags[..10].iter().all(|&f| f == 0), "{flags:?}");
    assert_eq!(flags[10], H264ENC_HRD_UNDERFLOW, "{flags:?}");
    assert!(flags[20..].iter().all(|&f| f == 0), "{flags:?}");
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

#[test]
fn parameter_sets_come_on_every_idr_or_only_when_they_change() {
    let mut every = Encoder::new(&Config {
        idr_period: 2,
        ..cfg(1)
    })
    .unwrap();
    let sets: Vec<u8> = (0..5)
        .map(|ts| step(&mut every, ts).with_parameter_sets)
        .collect();
    assert_eq!(sets, [1, 0, 1, 0, 1]);

    let mut once = Encoder::new(&Config {
        idr_period: 2,
        omit_param_sets: 1,
        rc_mode: h264enc::config::rc_mode::CBR,
        bitrate: 200_000,
        max_bitrate: 200_000,
        ..cfg(1)
    })
    .unwrap();
    let mut sets: Vec<u8> = (0..4)
        .map(|ts| step(&mut once, ts).with_parameter_sets)
        .collect();
    // A new bit rate is a new SPS: the next IDR picture carries it.
    once.set_bitrate(100_000, 100_000).unwrap();
    sets.extend((4..7).map(|ts| step(&mut once, ts).with_parameter_sets));
    assert_eq!(sets, [1, 0, 0, 0, 1, 0, 0]);
}

#[test]
fn a_level_too_small_for_the_stream_is_refused() {
    // 64x48 at 30 fps is 12 macroblocks a frame, 360 a second: level 1.0
    // (99 per frame, 1485 a second) holds it; 1920x1088 at 30 does not fit.
    assert!(Encoder::new(&Config {
        level_idc: 10,
        ..cfg(1)
    })
    .is_ok());
    let big = Config {
        width: 1920,
        height: 1080,
        ..cfg(1)
    };
    assert_eq!(
        Encoder::new(&Config {
            level_idc: 10,
            ..big
        })
        .err(),
        Some(Error::InvalidParam)
    );
    assert!(Encoder::new(&Config {
        level_idc: 40,
        ..big
    })
    .is_ok());
}

#[test]
fn a_frame_qp_is_taken_in_client_mode_only() {
    let with_qp = |ts| FrameParams {
        timestamp: ts,
        flags: h264enc::config::frame_flags::QP,
        qp: 40,
        ..FrameParams::default()
    };
    let mut client = Encoder::new(&Config {
        rc_mode: h264enc::config::rc_mode::CLIENT,
        qp_i: 22,
        qp_p: 24,
        ..cfg(1)
    })
    .unwrap();
    // Without a QP of its own a frame has the configured one.
    assert_eq!(step(&mut client, 0).qp, 22);
    assert_eq!(step(&mut client, 1).qp, 24);
    assert_eq!(client.plan_frame(&with_qp(2)).unwrap().qp, 40);

    let mut cqp = Encoder::new(&cfg(1)).unwrap();
    assert_eq!(cqp.plan_frame(&with_qp(0)).err(), Some(Error::InvalidParam));
    // The refused request left nothing planned.
    assert_eq!(step(&mut cqp, 0).qp, 30);
}

#[test]
fn a_client_marks_a_picture_long_term_in_place_of_the_one_held() {
    use h264enc::config::frame_flags::MARK_LONG_TERM;
    let mut enc = Encoder::new(&Config {
        ltr_count: 1,
        ..cfg(1)
    })
    .unwrap();
    for ts in 0..3 {
        step(&mut enc, ts);
    }
    // The IDR picture is the long-term one until frame 3 takes its place
    // (MMCO 6 in its slice header, which the scripted hardware writes).
    assert!(dpb(&enc).contains(&(0, true)));
    let (plan, st) = run(&mut enc, 3, MARK_LONG_TERM, 2);
    assert_eq!((plan.mark_long_term, st.long_term), (1, 1));
    let held = dpb(&enc);
    assert!(held.contains(&(3, true)), "{held:?}");
    assert!(!held.iter().any(|&(ts, _)| ts == 0), "{held:?}");
    // The next P picture predicts from the previous picture, which is frame 3.
    assert_eq!(step(&mut enc, 4).reference_ts, 3);

    // Without long-term references, or on a non-reference picture: refused.
    let mark = |ts| FrameParams {
        timestamp: ts,
        flags: MARK_LONG_TERM,
        ..FrameParams::default()
    };
    let mut off = Encoder::new(&cfg(1)).unwrap();
    step(&mut off, 0);
    assert_eq!(off.plan_frame(&mark(1)).err(), Some(Error::InvalidParam));
    let mut layers = Encoder::new(&Config {
        ltr_count: 1,
        temporal_layers: 2,
        ..cfg(1)
    })
    .unwrap();
    step(&mut layers, 0);
    assert_eq!(layers.plan_frame(&mark(1)).err(), Some(Error::InvalidParam));
    assert!(
        layers.plan_frame(&mark(2)).is_err(),
        "frame 1 is still to code"
    );
}
